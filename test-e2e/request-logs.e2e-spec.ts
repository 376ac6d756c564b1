// The request log (docs/request-logs.md): every API request a project's keys made, with its status, request id,
// idempotency key, duration and masked bodies, listed newest first with filters and read one by one; never a
// secret, card number or account number; another project's entries out of reach; bad filters refused.
import { newTenant, type Tenant } from './support/tenant';
import { ADMIN_TOKEN, eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const ENTRY_FIELDS = [
  'createdAt',
  'durationMs',
  'id',
  'idempotencyKey',
  'method',
  'path',
  'requestBody',
  'requestId',
  'responseBody',
  'status',
];

describe('the request log', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let tenant: Tenant;
  let other: Tenant;

  /** Every entry of the tenant's log, page by page. */
  const everyEntry = async (who: Tenant, query = ''): Promise<any[]> => {
    const entries: any[] = [];
    for (let cursor: string | null = ''; cursor !== null;) {
      const res = await who.get(`/request-logs?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      entries.push(...res.body.data);
      cursor = res.body.nextCursor;
    }
    return entries;
  };
  /** The entry of the request with this id, once written (entries are written just after their responses). */
  const entryOf = (who: Tenant, requestId: string) =>
    eventually(async () => (await who.get(`/request-logs?requestId=${requestId}`)).body.data?.[0]);

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    receiver = await WebhookReceiver.start();
    tenant = await newTenant(platform, { name: 'request log', receiver });
    other = await newTenant(platform, { name: 'request log, another project' });
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver.stop();
    await platform.stop();
  });

  it('keeps a request as it went: method, path, status, ids, duration and both bodies', async () => {
    const body = { type: 'individual', firstName: 'Grace', lastName: 'Hopper', endorsements: ['basic'] };
    const created = await tenant.post('/customers', body, 'request-log-grace');
    expect(created.status).toBe(201);
    const requestId = created.headers.get('x-request-id')!;
    const entry = await entryOf(tenant, requestId);
    expect(Object.keys(entry).sort()).toEqual(ENTRY_FIELDS);
    expect(entry).toEqual({
      id: expect.stringMatching(/^rlog_[0-9a-z]{26}$/),
      method: 'POST',
      path: '/v0.13/customers',
      status: 201,
      requestId,
      idempotencyKey: 'request-log-grace',
      durationMs: expect.any(Number),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      requestBody: body,
      responseBody: created.body,
    });
    expect(entry.durationMs).toBeGreaterThanOrEqual(0);
    expect(Math.abs(Date.now() - Date.parse(entry.createdAt))).toBeLessThan(5 * 60_000);
    expect((await tenant.get(`/request-logs/${entry.id}`)).body).toEqual(entry);

    // A read has no bodies sent and no idempotency key; a refusal is kept with its error body.
    const read = await tenant.get(`/customers/${created.body.id}`);
    expect(await entryOf(tenant, read.headers.get('x-request-id')!)).toMatchObject({
      method: 'GET',
      path: `/v0.13/customers/${created.body.id}`,
      status: 200,
      idempotencyKey: null,
      requestBody: null,
      responseBody: read.body,
    });
    const refused = await tenant.post('/customers', { type: 'individual', firstName: 7 });
    expect(refused.status).toBe(400);
    expect(await entryOf(tenant, refused.headers.get('x-request-id')!)).toMatchObject({
      status: 400,
      requestBody: { type: 'individual', firstName: 7 },
      responseBody: refused.body,
    });
  });

  it('keeps a body PostgreSQL could not store as sent (a NUL, half a surrogate pair) with those characters replaced', async () => {
    const hostile = { type: 'nobody', firstName: 'Nul\u0000', lastName: 'Half\ud800', metadata: { '\udc00': 'x' } };
    const refused = await tenant.post('/customers', hostile);
    expect(refused.status).toBe(400);
    // And a request beside it, which the same batch may carry, is kept too.
    const read = await tenant.get('/customers?limit=1');
    expect(await entryOf(tenant, refused.headers.get('x-request-id')!)).toMatchObject({
      status: 400,
      requestBody: { type: 'nobody', firstName: 'Nul\uFFFD', lastName: 'Half\uFFFD', metadata: { '\uFFFD': 'x' } },
    });
    expect(await entryOf(tenant, read.headers.get('x-request-id')!)).toMatchObject({ status: 200 });
  });

  it('keeps a body nested thousands deep (refused), followed down to its 32nd level', async () => {
    const deep = 15_000;
    const refused = await tenant.request('POST', '/customers', { rawBody: '['.repeat(deep) + ']'.repeat(deep) });
    expect(refused.status).toBe(400);
    let kept = (await entryOf(tenant, refused.headers.get('x-request-id')!)).requestBody;
    for (let depth = 0; depth < 32; depth++) kept = kept[0];
    expect(kept).toBe('(not kept: nested deeper than 32 levels)');
  });

  it('lists newest first and filters by status, method, path and request id', async () => {
    const missing = await tenant.get('/transactions/txn_01m900000000000000000000aa');
    expect(missing.status).toBe(404);
    const listed = await tenant.get('/transactions');
    await entryOf(tenant, listed.headers.get('x-request-id')!);
    const all = await everyEntry(tenant);
    expect(all.map((e) => e.createdAt)).toEqual([...all.map((e) => e.createdAt)].sort().reverse());
    // Its own reads are not in it.
    expect(all.filter((e) => e.path.startsWith('/v0.13/request-logs'))).toEqual([]);

    const notFound = await everyEntry(tenant, '&status=404');
    expect(notFound.length).toBeGreaterThan(0);
    expect(notFound.every((e) => e.status === 404)).toBe(true);
    const clientErrors = await everyEntry(tenant, '&status=4xx');
    expect(clientErrors.map((e) => e.status).sort()).toEqual(
      all
        .filter((e) => e.status >= 400 && e.status < 500)
        .map((e) => e.status)
        .sort(),
    );
    const posts = await everyEntry(tenant, '&method=post');
    expect(posts.length).toBe(all.filter((e) => e.method === 'POST').length);
    // A path and what is under it, written with or without the version.
    const transactions = all.filter((e) => e.path.startsWith('/v0.13/transactions')).map((e) => e.id);
    expect(transactions.length).toBe(2);
    expect((await everyEntry(tenant, '&path=/transactions')).map((e) => e.id)).toEqual(transactions);
    expect((await everyEntry(tenant, '&path=/v0.13/transactions/')).map((e) => e.id)).toEqual(transactions);
    expect(await everyEntry(tenant, '&path=/transact')).toEqual([]);
    expect((await everyEntry(tenant, `&requestId=${missing.headers.get('x-request-id')}`)).length).toBe(1);

    // Pages of one follow each other.
    const first = await tenant.get('/request-logs?limit=1');
    const second = await tenant.get(`/request-logs?limit=1&cursor=${first.body.nextCursor}`);
    expect([first.body.data[0].id, second.body.data[0].id]).toEqual(all.slice(0, 2).map((e) => e.id));
  });

  it('never keeps a secret, a card number or an account number', async () => {
    const ada = await tenant.customer();
    await tenant.bankUs(ada.id, undefined, '987654321098');
    // A card number where no field names it: in a label.
    const labelled = await tenant.post('/external-accounts', {
      owner: { kind: 'customer', customerId: ada.id },
      type: 'bankUs',
      bankUs: { accountNumber: '11112222333', routingNumber: '021000021' },
      label: 'paid with 4000 0566 5566 5556',
    });
    expect(labelled.status).toBe(201);
    await tenant.bankCanada(ada.id);
    await tenant.bankIban(ada.id);
    await tenant.card(ada.id, { cardNumber: '5555555555554444', cvc: '737' });
    const endpoint = await tenant.endpoint('/request-log');
    const key = await tenant.post('/api-keys', { name: 'request log' });
    expect(key.status).toBe(201);
    const last = await tenant.get(`/customers/${ada.id}`);
    await entryOf(tenant, last.headers.get('x-request-id')!);

    const kept = JSON.stringify(await everyEntry(tenant));
    for (const secret of [
      '987654321098',
      '11112222333',
      '1234567',
      'DE89370400440532013000',
      '5555555555554444',
      '4000 0566 5566 5556',
      '"737"',
      endpoint.signingKey,
      key.body.apiSecret,
      tenant.token,
    ])
      expect({ secret, found: kept.includes(secret) }).toEqual({ secret, found: false });
    // What the partner needs to recognise them stays.
    expect(kept).toContain('"accountNumberLast4":"1098"');
    expect(kept).toContain('"last4":"4444"');
  });

  it("keeps another project's entries out of reach", async () => {
    const mine = await everyEntry(tenant);
    const theirs = await other.get('/customers');
    await entryOf(other, theirs.headers.get('x-request-id')!);
    const seen = await everyEntry(other);
    expect(seen.some((e) => mine.some((m) => m.id === e.id))).toBe(false);
    expectError(await other.get(`/request-logs/${mine[0].id}`), 404, 'RequestLogNotFound', 1213);
    expectError(await tenant.get('/request-logs/rlog_01m900000000000000000000aa'), 404, 'RequestLogNotFound', 1213);
    expectError(await tenant.get('/request-logs/not-an-id'), 404, 'RequestLogNotFound', 1213);
    // Operators' requests are not a partner's.
    const operator = await platform.request('GET', `/v0.13/admin/projects/${tenant.projectId}`, { token: ADMIN_TOKEN });
    expect(operator.status).toBe(200);
    expect(await everyEntry(tenant, `&requestId=${operator.headers.get('x-request-id')}`)).toEqual([]);
  });

  it('refuses bad filters, and keys restricted to some resources', async () => {
    for (const query of [
      'status=abc',
      'status=600',
      'status=4x',
      'method=FETCH',
      'path=customers',
      'cursor=nope',
      'limit=0',
    ])
      expect({ query, status: (await tenant.get(`/request-logs?${query}`)).status }).toEqual({ query, status: 400 });
    const narrow = await platform.request('POST', `/v0.13/admin/projects/${tenant.projectId}/api-keys`, {
      token: ADMIN_TOKEN,
      body: { scopes: ['customers:write'] },
    });
    const token = await platform.request('POST', '/v0.13/auth/token', { body: narrow.body });
    const refused = await platform.request('GET', '/v0.13/request-logs', { token: token.body.accessToken });
    expectError(refused, 403, 'InsufficientScope', 1143);
  });
});
