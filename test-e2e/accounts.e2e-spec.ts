// API-CONTRACT: Customers and wallets; spec: Customer balance, Identifiers,
// Endpoints / Customers and wallets.
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('customers, wallets and balances', () => {
  let platform: TestPlatform;
  let token: string;
  const post = (path: string, body?: unknown) => platform.request('POST', `/v0.13${path}`, { token, body });
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });
  const createCustomer = async (overrides: Record<string, unknown> = {}) =>
    (await post('/customers', { type: 'individual', firstName: 'Ada', lastName: 'Lovelace', ...overrides })).body;
  /** A customer who may hold custodial wallets: cryptoCustody active (docs/endorsements.md). */
  const custodian = (overrides: Record<string, unknown> = {}) =>
    platform.endorsedCustomer(token, overrides, ['cryptoCustody']);

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  describe('customers', () => {
    it('creates an individual customer with the contract shape', async () => {
      const res = await post('/customers', {
        type: 'individual',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^cst_[0-9a-hjkmnp-tv-z]{26}$/),
        object: 'customer',
        type: 'individual',
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        endorsements: [],
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      const read = await get(`/customers/${res.body.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
    });

    it('shows email as null when none was given', async () => {
      expect((await createCustomer()).email).toBeNull();
    });

    it('requests endorsements as pending; the sandbox approves them asynchronously', async () => {
      const customer = await createCustomer({ endorsements: ['basic', 'usd'] });
      expect(customer.endorsements).toEqual([
        { name: 'basic', status: 'pending' },
        { name: 'usd', status: 'pending' },
      ]);
      const approved = await eventually(async () => {
        const res = await get(`/customers/${customer.id}`);
        return res.body.endorsements.every((e: { status: string }) => e.status === 'active') ? res.body : undefined;
      });
      expect(approved.endorsements).toEqual([
        { name: 'basic', status: 'active' },
        { name: 'usd', status: 'active' },
      ]);
      const types = (
        await platform.running.dataSource.query(
          `SELECT type FROM accounts.events WHERE stream_id = $1 ORDER BY stream_version`,
          [`customer-${customer.id}`],
        )
      ).map((r: { type: string }) => r.type);
      expect(types).toEqual([
        'customer.created',
        'endorsement.requested',
        'endorsement.requested',
        'endorsement.approved',
        'endorsement.approved',
      ]);
    });

    it('requests one more endorsement later', async () => {
      const customer = await createCustomer();
      const res = await post(`/customers/${customer.id}/endorsements`, { name: 'cryptoCustody' });
      expect(res.status).toBe(200);
      expect(res.body.endorsements).toEqual([{ name: 'cryptoCustody', status: 'pending' }]);
      await eventually(async () =>
        (await get(`/customers/${customer.id}`)).body.endorsements[0].status === 'active' ? true : undefined,
      );
    });

    it('rejects endorsements of the magic last name Rejected', async () => {
      const customer = await createCustomer({ lastName: 'Rejected', endorsements: ['usd'] });
      const rejected = await eventually(async () => {
        const body = (await get(`/customers/${customer.id}`)).body;
        return body.endorsements[0].status !== 'pending' ? body : undefined;
      });
      expect(rejected.endorsements).toEqual([{ name: 'usd', status: 'rejected' }]);
    });

    it('lists customers newest first with cursor pagination', async () => {
      const project = await platform.newProject('pagination');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          (
            await platform.request('POST', '/v0.13/customers', {
              token: project.token,
              body: { type: 'individual', firstName: `C${i}`, lastName: 'Page' },
            })
          ).body.id,
        );
      }
      const first = await platform.request('GET', '/v0.13/customers?limit=2', { token: project.token });
      expect(first.body.data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
      expect(first.body.hasMore).toBe(true);
      const second = await platform.request('GET', `/v0.13/customers?limit=2&cursor=${first.body.nextCursor}`, {
        token: project.token,
      });
      expect(second.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
      const third = await platform.request('GET', `/v0.13/customers?limit=2&cursor=${second.body.nextCursor}`, {
        token: project.token,
      });
      expect(third.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], hasMore: false, nextCursor: null });
    });
  });

  describe('wallets', () => {
    it('creates a custodial wallet with an on-chain address', async () => {
      const customer = await custodian();
      const res = await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(/^wlt_[0-9a-hjkmnp-tv-z]{26}$/),
        object: 'wallet',
        customerId: customer.id,
        asset: 'usdc',
        network: 'meridianchain',
        address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
        createdAt: expect.stringMatching(ISO),
      });
      expect((await get(`/wallets/${res.body.id}`)).body).toEqual(res.body);
      const [event] = await platform.running.dataSource.query(`SELECT type FROM accounts.events WHERE stream_id = $1`, [
        `wallet-${res.body.id}`,
      ]);
      expect(event.type).toBe('wallet.provisioned');
    });

    it('refuses an asset and network that are not offered', async () => {
      const customer = await createCustomer();
      expectError(
        await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'solana' }),
        400,
        'UnsupportedAssetNetwork',
        11002,
      );
      expectError(
        await post(`/customers/${customer.id}/wallets`, { asset: 'btc', network: 'ethereum' }),
        400,
        'UnsupportedAssetNetwork',
        11002,
      );
      // Names of Object.prototype members are no assets (found by the fuzz test: a 500 before).
      for (const asset of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        expectError(
          await post(`/customers/${customer.id}/wallets`, { asset, network: 'ethereum' }),
          400,
          'UnsupportedAssetNetwork',
          11002,
        );
      }
    });

    it('needs an active cryptoCustody endorsement: 422 CryptoCustodyEndorsementRequired until it is active', async () => {
      const customer = await createCustomer({ endorsements: ['basic', 'usd'] });
      const refused = await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' });
      expectError(refused, 422, 'CryptoCustodyEndorsementRequired', 10110);
      expect(refused.body.cause).toBe(
        `a custodial wallet needs an active cryptoCustody endorsement, and customer ${customer.id}'s cryptoCustody endorsement was never requested: request it (POST /customers/${customer.id}/endorsements) and wait for endorsement.active`,
      );
      expect((await get(`/wallets?customerId=${customer.id}`)).body.data).toEqual([]);
      // Once the endorsement the refusal names is active, the same request makes the wallet.
      await post(`/customers/${customer.id}/endorsements`, { name: 'cryptoCustody' });
      await eventually(async () =>
        (await get(`/customers/${customer.id}`)).body.endorsements.some(
          (e: { name: string; status: string }) => e.name === 'cryptoCustody' && e.status === 'active',
        )
          ? true
          : undefined,
      );
      expect(
        (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).status,
      ).toBe(201);

      const rejected = await createCustomer({ lastName: 'Rejected', endorsements: ['cryptoCustody'] });
      await eventually(async () =>
        (await get(`/customers/${rejected.id}`)).body.endorsements[0].status === 'rejected' ? true : undefined,
      );
      const refusedRejected = await post(`/customers/${rejected.id}/wallets`, {
        asset: 'usdc',
        network: 'meridianchain',
      });
      expectError(refusedRejected, 422, 'CryptoCustodyEndorsementRequired', 10110);
      expect(refusedRejected.body.cause).toContain(`customer ${rejected.id}'s cryptoCustody endorsement is rejected`);
    });

    it('refuses a wallet for a customer that does not exist', async () => {
      expectError(
        await post('/customers/cst_01h455vb4pex5vsknk084sn02q/wallets', { asset: 'usdc', network: 'ethereum' }),
        404,
        'CustomerNotFound',
        10001,
      );
    });

    it('lists wallets by customer', async () => {
      const customer = await custodian();
      const a = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).body;
      const b = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'ethereum' })).body;
      const res = await get(`/wallets?customerId=${customer.id}`);
      expect(res.body).toEqual({ data: [b, a], hasMore: false, nextCursor: null });
      expectError(await get('/wallets?customerId=nope'), 400, 'InvalidCustomerID', 10000);
    });

    it('funds a wallet in the sandbox through a balanced ledger posting', async () => {
      const customer = await custodian();
      const wallet = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' }))
        .body;
      expect((await get(`/wallets/${wallet.id}/balance`)).body.data).toEqual({
        walletId: wallet.id,
        asset: 'usdc',
        network: 'meridianchain',
        balance: '0.00',
        updatedAt: expect.stringMatching(ISO),
      });
      const funded = await post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '100.25' });
      expect(funded.status).toBe(200);
      expect(funded.body.data.balance).toBe('100.25');
      await post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '0.000001' });
      expect((await get(`/wallets/${wallet.id}/balance`)).body.data.balance).toBe('100.250001');
      const entries = await platform.running.dataSource.query(
        `SELECT posting_id, sum(amount)::text AS total, count(*)::int AS n FROM accounts.ledger_entries
          WHERE posting_id IN (SELECT posting_id FROM accounts.ledger_entries WHERE account = $1) GROUP BY posting_id`,
        [`wallet:${wallet.id}`],
      );
      expect(entries).toHaveLength(2);
      for (const e of entries) expect({ total: Number(e.total), n: e.n }).toEqual({ total: 0, n: 2 });
    });

    it.each([['0'], ['-5'], ['1e3'], ['1.0000001'], ['1.0000000'], [10], ['abc'], ['1000000.01']])(
      'refuses to fund the amount %p',
      async (amount) => {
        const customer = await custodian();
        const wallet = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' }))
          .body;
        const res = await post(`/sandbox/wallets/${wallet.id}/fund`, { amount });
        expectError(res, 400, 'InvalidAmount', 11003);
        expect((await get(`/wallets/${wallet.id}/balance`)).body.data.balance).toBe('0.00');
      },
    );

    it('keeps every concurrent funding of one wallet', async () => {
      const customer = await custodian();
      const wallet = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' }))
        .body;
      const results = await Promise.all(
        Array.from({ length: 8 }, () => post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '1.10' })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect((await get(`/wallets/${wallet.id}/balance`)).body.data.balance).toBe('8.80');
    });
  });

  describe('GET /customers/{id}/balance (spec: Customer balance)', () => {
    it('totals custodial wallets in USD with every field', async () => {
      const customer = await custodian();
      const w1 = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).body;
      const w2 = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'ethereum' })).body;
      await post(`/sandbox/wallets/${w1.id}/fund`, { amount: '10.10' });
      const last = await post(`/sandbox/wallets/${w2.id}/fund`, { amount: '5.255' });
      const res = await get(`/customers/${customer.id}/balance`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        data: {
          customerId: customer.id,
          estimatedBalanceValue: '15.36',
          estimatedBalanceCurrencyCode: 'USD',
          updatedAt: last.body.data.updatedAt,
          totalBalance: { totalUsd: '15.36', fiatUsd: '0.00', cryptoUsd: '15.36' },
        },
      });
    });

    it('reports zero and omits updatedAt for a customer without wallets', async () => {
      const customer = await createCustomer();
      const res = await get(`/customers/${customer.id}/balance`);
      expect(res.body).toEqual({
        data: {
          customerId: customer.id,
          estimatedBalanceValue: '0.00',
          estimatedBalanceCurrencyCode: 'USD',
          totalBalance: { totalUsd: '0.00', fiatUsd: '0.00', cryptoUsd: '0.00' },
        },
      });
    });

    it('values the balance in CAD without a totalBalance', async () => {
      const customer = await custodian();
      const wallet = (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' }))
        .body;
      await post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '10' });
      const res = await get(`/customers/${customer.id}/balance?estimatedBalanceCurrencyCode=CAD`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        customerId: customer.id,
        estimatedBalanceValue: '12.50',
        estimatedBalanceCurrencyCode: 'CAD',
        updatedAt: expect.stringMatching(ISO),
      });
    });

    it('omits totalBalance when the fiat component cannot be read (magic last name FiatUnavailable)', async () => {
      const customer = await createCustomer({ lastName: 'FiatUnavailable' });
      const res = await get(`/customers/${customer.id}/balance`);
      expect(res.status).toBe(200);
      expect(res.body.data.totalBalance).toBeUndefined();
    });

    it.each([
      [
        'Unprovisioned',
        404,
        'ProviderUserAccountNotFound',
        10029,
        'provider account not provisioned for this customer',
      ],
      ['InvalidBalance', 502, 'Provider', 10002, 'invalid provider balance response'],
      ['Unreachable', 503, 'ProviderUnreachable', 10087, 'upstream provider unreachable'],
    ])('answers the provider error for the magic last name %s', async (lastName, status, error, code, msg) => {
      const customer = await createCustomer({ lastName });
      const res = await get(`/customers/${customer.id}/balance`);
      expect(res.status).toBe(status);
      expect(res.body).toMatchObject({ error, code, msg, status });
    });

    it('answers 10000 for a malformed id and 10001 for an unknown one', async () => {
      expectError(await get('/customers/12345/balance'), 400, 'InvalidCustomerID', 10000);
      expect((await get('/customers/12345/balance')).body.msg).toBe('invalid customer_id');
      expectError(await get('/customers/cst_01h455vb4pex5vsknk084sn02q/balance'), 404, 'CustomerNotFound', 10001);
      expect((await get('/customers/cst_01h455vb4pex5vsknk084sn02q/balance')).body.msg).toBe('customer not found');
    });

    it('answers 1000 without credentials', async () => {
      const customer = await createCustomer();
      const res = await platform.request('GET', `/v0.13/customers/${customer.id}/balance`);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe(1000);
    });

    it('refuses an unsupported or malformed currency', async () => {
      const customer = await createCustomer();
      expectError(
        await get(`/customers/${customer.id}/balance?estimatedBalanceCurrencyCode=JPY`),
        400,
        'UnsupportedCurrency',
        10100,
      );
      expectError(
        await get(`/customers/${customer.id}/balance?estimatedBalanceCurrencyCode=US`),
        400,
        'InvalidRequest',
        1100,
      );
    });
  });
});
