// Issue 42, items 5 and 9, in both modes. Item 5: every PATCH of the API reads
// null one way (docs/sandbox.md, "Changing a resource: PATCH and null"): a
// field the resource can be without is removed, `metadata: null` removing
// every key as Stripe's empty metadata does; any other field refuses null with
// 400 InvalidRequest and changes nothing; never a 500. The routes and their
// fields come from the OpenAPI document the platform serves, so a PATCH route
// or field added later is covered, or fails here until it is. Item 9: one
// message a refused field (the spec's error body), labels and descriptions
// trimmed and refused empty or with control or bidirectional formatting
// characters, and `limit` a plain base-10 integer from 1 to 100 on every list.
import { MoneyMovement, waitFor, type Customer, type ExternalAccount, type Wallet } from '@meridian/money-movement';
import { ADMIN_TOKEN, expectError, START_TIMEOUT_MS, TestPlatform, type Response } from './support/test-platform';

type Schema = Record<string, any>;
const WITHIN = { timeoutMs: 30_000, intervalMs: 100 };
const RETURN_WALLET = '0x8ba1f109551bD432803012645Ac136ddd64DBA72';

/** The ways a field may be "gone" in a read: absent, null, an empty object, or (a project's limits) every limit null. */
const removed = (value: unknown) =>
  value === undefined ||
  value === null ||
  (typeof value === 'object' && Object.values(value as object).every((v) => v === null || v === undefined));

describe('PATCH, labels and lists: one rule each, everywhere (issue 42, items 5 and 9)', () => {
  let platform: TestPlatform;
  let mm: MoneyMovement;
  let token: string;
  let projectId: string;
  let customer: Customer;
  let wallet: Wallet;
  let bank: ExternalAccount;
  let otherBank: ExternalAccount;
  let returnWallet: ExternalAccount;
  let document: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } };
  /** The id of this file's resource of each PATCH route. */
  const ids: Record<string, string> = {};

  const resolve = (schema: Schema | undefined): Schema => {
    if (!schema) return {};
    if (typeof schema.$ref === 'string') return resolve(document.components.schemas[schema.$ref.split('/').pop()!]);
    if (Array.isArray(schema.allOf) && schema.allOf.length === 1)
      return { ...resolve(schema.allOf[0]), description: schema.description };
    // A nullable reference: the referenced schema (nullable() reads the null beside it).
    const refs = Array.isArray(schema.anyOf) ? schema.anyOf.filter((s: Schema) => s.type !== 'null') : [];
    if (refs.length === 1) return { ...resolve(refs[0]), description: schema.description };
    return schema;
  };
  const nullable = (schema: Schema) =>
    (Array.isArray(schema.type) && schema.type.includes('null')) ||
    (Array.isArray(schema.anyOf) && schema.anyOf.some((s: Schema) => s.type === 'null'));

  /** A PATCH route of the document, as this file reaches its resource. */
  const ROUTES: Record<string, { path: () => string; admin?: boolean }> = {
    '/v0.13/deposit-addresses/{id}': { path: () => `/v0.13/deposit-addresses/${ids.depositAddress}` },
    '/v0.13/virtual-accounts/{id}': { path: () => `/v0.13/virtual-accounts/${ids.virtualAccount}` },
    '/v0.13/external-accounts/{id}': { path: () => `/v0.13/external-accounts/${ids.externalAccount}` },
    '/v0.13/counterparties/{id}': { path: () => `/v0.13/counterparties/${ids.counterparty}` },
    '/v0.13/webhooks/{id}': { path: () => `/v0.13/webhooks/${ids.webhook}` },
    '/v0.13/admin/projects/{projectId}': { path: () => `/v0.13/admin/projects/${projectId}`, admin: true },
  };

  /**
   * For each field that takes null, a body that gives it a value first, so that its removal shows; or the
   * refusal a domain rule gives its removal (a business counterparty needs its businessName), or `undefined`
   * where the field cannot hold a value on this resource (a business has no firstName) and null only keeps it none.
   */
  const SET: Record<
    string,
    Record<string, (() => Record<string, unknown>) | { refused: [number, string] } | undefined>
  > = {
    '/v0.13/deposit-addresses/{id}': {
      returnDestination: () => ({ returnDestination: { externalAccountId: returnWallet.id } }),
      label: () => ({ label: 'Payroll inlet' }),
      metadata: () => ({ metadata: { account: 'A-1001' } }),
    },
    '/v0.13/virtual-accounts/{id}': {
      returnDestination: () => ({
        returnDestination: { externalAccountId: otherBank.id },
        returnPayout: { rail: 'ach' },
      }),
      label: () => ({ label: 'Salary' }),
      metadata: () => ({ metadata: { account: 'A-1002' } }),
    },
    '/v0.13/external-accounts/{id}': {
      label: () => ({ label: 'Main account' }),
      metadata: () => ({ metadata: { account: 'A-1003' } }),
    },
    '/v0.13/counterparties/{id}': {
      firstName: undefined,
      lastName: undefined,
      businessName: { refused: [422, 'CounterpartyFieldsInvalid'] },
      email: () => ({ email: 'ap@acme.example' }),
      phone: () => ({ phone: '+14155550123' }),
      address: () => ({ address: { city: 'Paris', country: 'FR' } }),
    },
    '/v0.13/webhooks/{id}': { description: () => ({ description: 'Payroll hooks' }) },
    '/v0.13/admin/projects/{projectId}': {
      limits: () => ({ limits: { perTransactionMax: '5000.00', dailyBankPayoutCap: '9000.00' } }),
      fourEyesThreshold: () => ({ fourEyesThreshold: '2500.00' }),
    },
  };

  const patch = (route: string, body: unknown) =>
    platform.request('PATCH', ROUTES[route].path(), { token: ROUTES[route].admin ? ADMIN_TOKEN : token, body });
  const read = async (route: string) => {
    const res = await platform.request('GET', ROUTES[route].path(), {
      token: ROUTES[route].admin ? ADMIN_TOKEN : token,
    });
    expect(res.status).toBe(200);
    return res.body;
  };
  /** A refusal of the spec's error body, with one message naming the field. */
  const expectOneMessage = (res: Response, field: string, status = 400, error = 'InvalidRequest') => {
    expectError(res, status, error);
    expect(res.body.cause).not.toContain(';');
    expect(res.body.cause.startsWith(`${field}: `)).toBe(true);
  };

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    const project = await platform.newProject('patch and input rules');
    ({ projectId, token } = project);
    expect(
      (await platform.admin('PATCH', `/projects/${projectId}`, { body: { features: { depositAddresses: true } } }))
        .status,
    ).toBe(200);
    document = (await platform.request('GET', '/openapi.json')).body;
    mm = new MoneyMovement({
      apiKey: project.apiKey,
      apiSecret: project.apiSecret,
      baseUrl: `${platform.url}/v0.13`,
      fetch: platform.fetch,
    });
    const created = await mm.customers.create({
      type: 'individual',
      firstName: 'Ada',
      lastName: 'Lovelace',
      endorsements: ['basic', 'cryptoCustody', 'usd'],
    });
    customer = await waitFor(
      () => mm.customers.get(created.id),
      (c) => c.endorsements.every((e) => e.status === 'active'),
      WITHIN,
    );
    wallet = await mm.wallets.create(customer.id, { asset: 'usdc', network: 'meridianchain' });
    const owner = { kind: 'customer' as const, customerId: customer.id };
    const [a, b, c] = await Promise.all([
      mm.externalAccounts.create({
        owner,
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      }),
      mm.externalAccounts.create({
        owner,
        type: 'bankUs',
        bankUs: { accountNumber: '210987654321', routingNumber: '021000021' },
      }),
      mm.externalAccounts.create({
        owner,
        type: 'walletExternal',
        walletExternal: { address: RETURN_WALLET, network: 'meridianchain' },
      }),
    ]);
    [bank, otherBank, returnWallet] = await Promise.all(
      [a, b, c].map((account) =>
        waitFor(
          () => mm.externalAccounts.get(account.id),
          (x) => x.status === 'active',
          WITHIN,
        ),
      ),
    );
    const address = await mm.depositAddresses.create({
      customerId: customer.id,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: { externalAccountId: bank.id },
      payout: { rail: 'ach' },
    });
    const account = await mm.virtualAccounts.create({
      customerId: customer.id,
      source: { asset: 'usd', network: 'ach' },
      destination: { type: 'walletOms', walletId: wallet.id },
      accountHolder: 'customer',
      type: 'bankUs',
    });
    // Provisioned first, so that nothing but this file's requests changes them meanwhile; the bank answers on the project's clock.
    await waitFor(
      () => mm.depositAddresses.get(address.id),
      (x) => x.status === 'active',
      WITHIN,
    );
    await waitFor(
      async () => {
        const read = await mm.virtualAccounts.get(account.id);
        if (read.status !== 'active') await mm.sandbox.clock.advance({ seconds: 1 });
        return read;
      },
      (x) => x.status === 'active',
      WITHIN,
    );
    Object.assign(ids, {
      depositAddress: address.id,
      virtualAccount: account.id,
      externalAccount: (
        await mm.externalAccounts.create({
          owner,
          type: 'bankUs',
          bankUs: { accountNumber: '555566667777', routingNumber: '021000021' },
        })
      ).id,
      counterparty: (
        await mm.counterparties.create({ customerId: customer.id, entityType: 'business', businessName: 'Acme Ltd' })
      ).id,
      webhook: (
        await mm.webhooks.create({ url: 'https://hooks.example/patch-rules', subscriptions: ['wallet.provisioned'] })
      ).id,
    });
    await waitFor(
      () => mm.externalAccounts.get(ids.externalAccount),
      (x) => x.status === 'active',
      WITHIN,
    );
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await platform?.stop();
  });

  const patchRoutes = () => Object.entries(document.paths).filter(([, item]) => item.patch !== undefined);

  describe('null in a PATCH (issue 42, item 5)', () => {
    it('covers every PATCH route of the served document', () => {
      expect(
        patchRoutes()
          .map(([path]) => path)
          .sort(),
      ).toEqual(Object.keys(ROUTES).sort());
    });

    it('removes each field the document says takes null, and refuses null for every other field with one message, changing nothing', async () => {
      const outcomes: string[] = [];
      for (const [route, item] of patchRoutes()) {
        const properties: Record<string, Schema> = resolve(
          item.patch.requestBody.content['application/json'].schema,
        ).properties;
        for (const [field, declared] of Object.entries(properties)) {
          const schema = resolve(declared);
          if (nullable(declared)) {
            expect({ route, field, covered: field in SET[route] }).toEqual({ route, field, covered: true });
            const set = SET[route][field];
            if (set && 'refused' in set) {
              const res = await patch(route, { [field]: null });
              expectError(res, ...set.refused);
              outcomes.push(`${route} ${field}: null refused by its own rule (${set.refused[1]})`);
              continue;
            }
            if (set) {
              const given = await patch(route, set());
              expect({ route, field, status: given.status }).toEqual({ route, field, status: 200 });
              expect({ route, field, set: removed(given.body[field]) }).toEqual({ route, field, set: false });
            }
            const res = await patch(route, { [field]: null });
            expect({ route, field, status: res.status, body: res.status === 200 ? undefined : res.body }).toEqual({
              route,
              field,
              status: 200,
              body: undefined,
            });
            expect({ route, field, removed: removed(res.body[field]) }).toEqual({ route, field, removed: true });
            expect(removed((await read(route))[field])).toBe(true);
            outcomes.push(`${route} ${field}: null removes it`);
          } else {
            const before = await read(route);
            const res = await patch(route, { [field]: null });
            expectOneMessage(res, field);
            expect(res.body.cause).toMatch(new RegExp(`^${field}: must be [^;]+, not null$`));
            expect(await read(route)).toEqual(before);
            outcomes.push(`${route} ${field}: null refused`);
          }
          // One level down, in an object whose fields are all optional (a project's features and limits, an address).
          if (schema.properties && !schema.required) {
            for (const [inner, innerSchema] of Object.entries<Schema>(schema.properties)) {
              const res = await patch(route, { [field]: { [inner]: null } });
              if (nullable(innerSchema)) {
                expect({ route, field, inner, status: res.status }).toEqual({ route, field, inner, status: 200 });
                expect(res.body[field][inner] ?? null).toBeNull();
              } else {
                expectOneMessage(res, `${field}.${inner}`);
                expect(res.body.cause).toMatch(new RegExp(`^${field}\\.${inner}: must be [^;]+, not null$`));
              }
            }
          }
        }
      }
      // What the rule came to, route by route (docs/sandbox.md's table says the same).
      expect(outcomes).toEqual(
        expect.arrayContaining([
          '/v0.13/deposit-addresses/{id} metadata: null removes it',
          '/v0.13/deposit-addresses/{id} destination: null refused',
          '/v0.13/virtual-accounts/{id} metadata: null removes it',
          '/v0.13/virtual-accounts/{id} returnPayout: null refused',
          '/v0.13/external-accounts/{id} metadata: null removes it',
          '/v0.13/counterparties/{id} taxId: null refused',
          '/v0.13/webhooks/{id} url: null refused',
          '/v0.13/webhooks/{id} description: null removes it',
          '/v0.13/admin/projects/{projectId} limits: null removes it',
          '/v0.13/admin/projects/{projectId} features: null refused',
          '/v0.13/admin/projects/{projectId} attributionTimeoutHours: null refused',
        ]),
      );
    });

    it('merges metadata as Stripe does on every route that has it: a key set to null or "" is removed, and null removes every key', async () => {
      for (const route of [
        '/v0.13/deposit-addresses/{id}',
        '/v0.13/virtual-accounts/{id}',
        '/v0.13/external-accounts/{id}',
      ]) {
        expect((await patch(route, { metadata: { a: '1', b: '2', c: '3' } })).body.metadata).toEqual({
          a: '1',
          b: '2',
          c: '3',
        });
        expect((await patch(route, { metadata: { a: null, b: '', d: '4' } })).body.metadata).toEqual({
          c: '3',
          d: '4',
        });
        expect((await patch(route, { metadata: {} })).body.metadata).toEqual({ c: '3', d: '4' });
        const cleared = await patch(route, { metadata: null });
        expect({ route, status: cleared.status, metadata: cleared.body.metadata }).toEqual({
          route,
          status: 200,
          metadata: {},
        });
        expect((await read(route)).metadata).toEqual({});
      }
    });

    it('stores no null as a feature: a feature is on or off', async () => {
      const before = await read('/v0.13/admin/projects/{projectId}');
      const res = await patch('/v0.13/admin/projects/{projectId}', { features: { cashPickup: null } });
      expect(res.body.cause).toBe('features.cashPickup: must be a boolean value, not null');
      expect((await read('/v0.13/admin/projects/{projectId}')).features).toEqual(before.features);
    });
  });

  describe('one message a refused field (issue 42, item 9)', () => {
    it('tells attributionTimeoutHours what it must be, once, whatever was sent', async () => {
      const cases: Array<[unknown, string]> = [
        ['2', 'attributionTimeoutHours: must be an integer number, not a string'],
        [2.5, 'attributionTimeoutHours: must be an integer number'],
        [0, 'attributionTimeoutHours: must not be less than 1'],
        [721, 'attributionTimeoutHours: must not be greater than 720'],
        [null, 'attributionTimeoutHours: must be an integer number, not null'],
      ];
      const before = await read('/v0.13/admin/projects/{projectId}');
      for (const [value, cause] of cases) {
        const res = await patch('/v0.13/admin/projects/{projectId}', { attributionTimeoutHours: value });
        expectError(res, 400, 'InvalidRequest');
        expect({ value, cause: res.body.cause }).toEqual({ value, cause });
      }
      expect((await read('/v0.13/admin/projects/{projectId}')).attributionTimeoutHours).toBe(
        before.attributionTimeoutHours,
      );
      expect(
        (await patch('/v0.13/admin/projects/{projectId}', { attributionTimeoutHours: 2 })).body.attributionTimeoutHours,
      ).toBe(2);
    });
  });

  describe('labels and descriptions (issue 42, item 9)', () => {
    /** Every label a partner sets, on create and on PATCH: [what, its field, create it with this label, its PATCH route]. */
    const LABELS: Array<[string, string, (label: unknown) => Promise<Response>, string]> = [
      [
        'a deposit address',
        'label',
        (label) =>
          platform.request('POST', '/v0.13/deposit-addresses', {
            token,
            body: {
              customerId: customer.id,
              expectedSourceAsset: 'usdc',
              expectedSourceNetwork: 'meridianchain',
              destination: { externalAccountId: bank.id },
              payout: { rail: 'ach' },
              label,
            },
          }),
        '/v0.13/deposit-addresses/{id}',
      ],
      [
        'a virtual account',
        'label',
        (label) =>
          platform.request('POST', '/v0.13/virtual-accounts', {
            token,
            body: {
              customerId: customer.id,
              source: { asset: 'usd', network: 'ach' },
              destination: { type: 'walletOms', walletId: wallet.id },
              accountHolder: 'customer',
              type: 'bankUs',
              label,
            },
          }),
        '/v0.13/virtual-accounts/{id}',
      ],
      [
        'an external account',
        'label',
        (label) =>
          platform.request('POST', '/v0.13/external-accounts', {
            token,
            body: {
              owner: { kind: 'customer', customerId: customer.id },
              type: 'walletExternal',
              walletExternal: { address: RETURN_WALLET.toLowerCase(), network: 'ethereum' },
              label,
            },
          }),
        '/v0.13/external-accounts/{id}',
      ],
      [
        'a webhook endpoint',
        'description',
        (description) =>
          platform.request('POST', '/v0.13/webhooks', {
            token,
            body: { url: 'https://hooks.example/labels', subscriptions: ['*'], description },
          }),
        '/v0.13/webhooks/{id}',
      ],
    ];
    const REFUSED: Array<[string, string]> = [
      ['', 'must contain a visible character, not be empty or only spaces'],
      ['   ', 'must contain a visible character, not be empty or only spaces'],
      ['Pay\nroll', 'must be one line, without control characters (line breaks, tabs)'],
      ['Pay\troll', 'must be one line, without control characters (line breaks, tabs)'],
      ['Pay\u0085roll', 'must be one line, without control characters (line breaks, tabs)'],
      [
        'invoice\u202Efdp.exe',
        'must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)',
      ],
      [
        '\u2066Payroll\u2069',
        'must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)',
      ],
      [
        'Payroll\u200F',
        'must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)',
      ],
    ];

    it.each(LABELS.map(([what, field, , route]) => [what, field, route]))(
      'of %s (%s) are kept trimmed, and refused with one message when empty or carrying a control or bidirectional character',
      async (_what, field, route) => {
        const [, , create] = LABELS.find(([, f, , r]) => f === field && r === route)!;
        const made = await create('  Payroll  ');
        expect(made.status).toBe(201);
        expect(made.body[field]).toBe('Payroll');
        const before = await read(route);
        for (const [label, cause] of REFUSED) {
          const res = await patch(route, { [field]: label });
          expectOneMessage(res, field);
          expect({ label, cause: res.body.cause }).toEqual({ label, cause: `${field}: ${cause}` });
          const refused = await create(label);
          expect({ label, status: refused.status, cause: refused.body.cause }).toEqual({
            label,
            status: 400,
            cause: `${field}: ${cause}`,
          });
        }
        expect(await read(route)).toEqual(before);
        expect((await patch(route, { [field]: '\tQuarterly payroll \n' })).body[field]).toBe('Quarterly payroll');
      },
    );
  });

  describe('limit on every list (issue 42, item 9)', () => {
    const REFUSED =
      'limit: must be a whole number from 1 to 100 in plain digits (no sign, exponent, decimal point, spaces or leading zero)';
    const lists = () =>
      Object.entries(document.paths)
        .filter(([, item]) => (item.get?.parameters ?? []).some((p: Schema) => p.in === 'query' && p.name === 'limit'))
        .map(([path, item]) => {
          const query = new URLSearchParams();
          for (const p of item.get.parameters as Schema[])
            if (p.in === 'query' && p.required) query.set(p.name, customer.id);
          const at = path.replace('{id}', ids.webhook).replace('{projectId}', projectId);
          return { path: at, query, admin: path.startsWith('/v0.13/admin/') };
        });

    it('refuses anything but a plain base-10 integer from 1 to 100, with one message, on each of them', async () => {
      expect(lists().map((l) => l.path)).toEqual(
        expect.arrayContaining([
          '/v0.13/events',
          '/v0.13/customers',
          '/v0.13/admin/projects',
          `/v0.13/webhooks/${ids.webhook}/deliveries`,
        ]),
      );
      for (const { path, query, admin } of lists()) {
        for (const limit of ['1e2', '0x10', ' 5', '5 ', '5.0', '+5', '05', '0', '101', '', '-1', 'ten']) {
          const q = new URLSearchParams(query);
          q.set('limit', limit);
          const res = await platform.request('GET', `${path}?${q}`, { token: admin ? ADMIN_TOKEN : token });
          expect({ path, limit, status: res.status, cause: res.body?.cause }).toEqual({
            path,
            limit,
            status: 400,
            cause: REFUSED,
          });
          expectError(res, 400, 'InvalidRequest');
        }
        const q = new URLSearchParams(query);
        q.set('limit', '1');
        const res = await platform.request('GET', `${path}?${q}`, { token: admin ? ADMIN_TOKEN : token });
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(res.body.data.length).toBeLessThanOrEqual(1);
      }
    });

    it('gives exactly the page asked for', async () => {
      expect((await platform.request('GET', '/v0.13/events?limit=2', { token })).body.data).toHaveLength(2);
      expect((await platform.request('GET', '/v0.13/events?limit=100', { token })).status).toBe(200);
    });
  });
});
