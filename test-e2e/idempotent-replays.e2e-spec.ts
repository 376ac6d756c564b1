// API-CONTRACT: Common shapes (Idempotency): the same key and body replay the
// stored status and body, with Idempotent-Replayed: true. A replay is the first
// response byte for byte, as Stripe's is: the same fields in the same order,
// under the same Content-Type, whatever the route (a simulation, a create, a
// quote, a transaction, a PATCH, and a create whose signing key is kept sealed,
// ADR 0017). Over real HTTP, in both modes.
import { randomUUID } from 'node:crypto';
import { eventually, START_TIMEOUT_MS, TestPlatform, type Response } from './support/test-platform';

describe('idempotent replays are the first response, byte for byte', () => {
  let platform: TestPlatform;
  let token: string;

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    const project = await platform.newProject('replays');
    token = project.token;
    expect(
      (
        await platform.admin('PATCH', `/projects/${project.projectId}`, {
          body: { features: { depositAddresses: true } },
        })
      ).status,
    ).toBe(200);
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  const send = (method: 'POST' | 'PATCH', path: string, body: unknown, idempotencyKey: string) =>
    platform.request(method, `/v0.13${path}`, { token, body, idempotencyKey });
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });

  /** Every replay that was not its first response again: the route, and what each answered. */
  const differences: Array<{ route: string; first: Record<string, unknown>; replay: Record<string, unknown> }> = [];
  const seen = (res: Response) => ({
    status: res.status,
    contentType: res.headers.get('content-type'),
    cacheControl: res.headers.get('cache-control'),
    text: res.text,
  });

  /** Sends the request twice under one key; the second must be the first's bytes again, marked as a replay. */
  async function replayed(
    method: 'POST' | 'PATCH',
    path: string,
    body: unknown,
    status = method === 'POST' ? 201 : 200,
  ): Promise<Response> {
    const key = randomUUID();
    const first = await send(method, path, body, key);
    expect({ status: first.status, body: first.body }).toEqual({ status, body: expect.anything() });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await send(method, path, body, key);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    if (JSON.stringify(seen(again)) !== JSON.stringify(seen(first)))
      differences.push({ route: `${method} ${path}`, first: seen(first), replay: seen(again) });
    return first;
  }

  it('replays a customer create, a quote, a transaction, a deposit simulation, a PATCH and a sealed webhook create as first sent', async () => {
    // Each replay is counted on the answering service's /metrics (docs/metrics.md): the counter only grows.
    const replays = async () =>
      Number(/^mm_idempotency_replays_total (\d+)$/m.exec(await platform.metrics('accounts'))?.[1] ?? NaN);
    const before = await replays();
    const customer = (
      await replayed('POST', '/customers', {
        type: 'individual',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        endorsements: ['basic', 'cryptoCustody', 'usd'],
      })
    ).body;
    expect(await replays()).toBeGreaterThan(before);
    await eventually(
      async () =>
        (await get(`/customers/${customer.id}`)).body.endorsements.every(
          (e: { status: string }) => e.status === 'active',
        )
          ? true
          : undefined,
      30_000,
    );

    const wallet = (
      await replayed('POST', `/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })
    ).body;
    await replayed('POST', `/sandbox/wallets/${wallet.id}/fund`, { amount: '500.00' }, 200);
    const bank = (
      await replayed('POST', '/external-accounts', {
        owner: { kind: 'customer', customerId: customer.id },
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      })
    ).body;
    await eventually(
      async () => ((await get(`/external-accounts/${bank.id}`)).body.status === 'active' ? true : undefined),
      20_000,
    );

    const quote = (
      await replayed('POST', '/quotes', {
        customerId: customer.id,
        source: { type: 'walletOms', details: { id: wallet.id }, amount: '100.25' },
        destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
      })
    ).body;
    await replayed('POST', '/transactions', { quoteId: quote.id });

    const address = (
      await replayed('POST', '/deposit-addresses', {
        customerId: customer.id,
        expectedSourceAsset: 'usdc',
        expectedSourceNetwork: 'meridianchain',
        destination: { externalAccountId: bank.id },
        payout: { rail: 'ach' },
        metadata: { zeta: '1', alpha: '2', mid: '3' },
      })
    ).body;
    await eventually(
      async () => ((await get(`/deposit-addresses/${address.id}`)).body.status === 'active' ? true : undefined),
      20_000,
    );
    await replayed('POST', `/deposit-addresses/${address.id}/simulate/crypto-deposit`, {
      amount: '125.50',
      senderAddress: '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    });
    await replayed('PATCH', `/deposit-addresses/${address.id}`, {
      label: 'Treasury inlet',
      metadata: { zeta: '9', beta: '8' },
    });

    // The signing key is in the create response only, and kept sealed for the replay (ADR 0017).
    const hook = (
      await replayed('POST', '/webhooks', {
        url: 'https://partner.example/hooks',
        subscriptions: ['*'],
        description: 'replays',
      })
    ).body;
    expect(hook.signingKey).toMatch(/^whsec_/);

    expect(differences).toEqual([]);
  });
});
