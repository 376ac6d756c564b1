// Issue 42, item 3: a switch that refuses (a feature turned off, a limit lowered,
// an API key revoked) is seen by the very next request after the operator's
// answer, in both modes, whichever process serves it; and turning it back is
// seen at once too (read-your-writes e2e). Each switch is tried several times in
// a row, the way an operator would flip it; in the last round every reader of
// the gateway's log is held still (pauseReaders), so no service can have
// learned of the change from the gateway's events: only asking the gateway at
// the decision passes. The platform has no switch that suspends a project
// (API-CONTRACT: Operator routes), so there is none to try here.
import { GATEWAY_CHECKED_HEADER, gatewayCheckOf } from '@mm/platform/auth';
import {
  E2E_MODE,
  eventually,
  expectError,
  START_TIMEOUT_MS,
  TestPlatform,
  type Response,
} from './support/test-platform';
import { bannerServices } from './support/crash-run';
import { pauseReaders } from './support/pause-readers';

/** A Bigmart in Los Angeles that pays out cash (docs/sandbox.md). */
const PICKUP = { cashLocationId: 'loc_01m846c3h4e06945jf6mfht9tc', cashLocationReference: 'BIGMART-1001' };
const ROUNDS = 5;

/** A partner route of each service that a token of the project reads (200), to reach it directly (distributed mode). */
const READ_ROUTES: Record<string, (quoteId: string) => string> = {
  accounts: () => '/customers',
  quoting: (quoteId) => `/quotes/${quoteId}`,
  transactions: () => '/transactions',
  webhooks: () => '/webhooks',
  'cash-in': () => '/cash-ins',
  'deposit-addresses': () => '/deposit-addresses',
  'virtual-accounts': () => '/virtual-accounts',
};

describe('kill switches act on the very next request', () => {
  let platform: TestPlatform;
  let token: string;
  let customerId: string;
  let walletId: string;
  let bankId: string;
  const call = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token, body });
  const patchProject = async (body: unknown) =>
    expect((await platform.admin('PATCH', `/projects/${platform.projectId}`, { body })).status).toBe(200);

  /**
   * Rounds of: the switch turned so that it allows (seen at once), then turned so that it refuses and the
   * very next request tried. The last round holds the gateway's log still. Resolves to each round's outcome.
   */
  async function rounds(
    allow: () => Promise<void>,
    refuse: () => Promise<void>,
    next: () => Promise<string>,
  ): Promise<string[]> {
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await allow();
      const resume = round === ROUNDS - 1 ? await pauseReaders(platform.running.databaseUrl, 'gateway') : undefined;
      try {
        await refuse();
        outcomes.push(await next());
      } finally {
        await resume?.();
      }
    }
    return outcomes;
  }

  /** 'refused' when the answer is the given error, else what it was (a stale copy's acceptance shows here). */
  const refusedAs = (res: Response, status: number, error: string) => {
    if (res.status !== status) return `${res.status} ${res.body?.error ?? ''}`.trim();
    expectError(res, status, error);
    return 'refused';
  };

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
    const customer = await platform.endorsedCustomer(token, { lastName: 'Switch' });
    customerId = customer.id;
    const wallet = await call('POST', `/customers/${customerId}/wallets`, { asset: 'usdc', network: 'meridianchain' });
    walletId = wallet.body.id;
    expect((await call('POST', `/sandbox/wallets/${walletId}/fund`, { amount: '5000' })).status).toBe(200);
    const bank = await call('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    bankId = bank.body.id;
    await eventually(async () =>
      (await call('GET', `/external-accounts/${bankId}`)).body.status === 'active' ? true : undefined,
    );
    // The quoting service knows the pickup locations once it has read the cash-in service's log.
    await eventually(async () => {
      const [row] = await platform.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM quoting.cash_locations WHERE 'cash_out' = ANY(flows)`,
      );
      return row.n > 0 ? true : undefined;
    }, 30_000);
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  describe('a feature turned off', () => {
    const pickup = () =>
      call('POST', '/quotes', {
        customerId,
        source: { type: 'walletOms', details: { id: walletId } },
        destination: { type: 'cash', details: PICKUP, amount: '20.00' },
      });

    it('cashPickup: the next cash pickup quote, and the acceptance of one quoted while it was on, are refused', async () => {
      let open: Response | undefined;
      const outcomes = await rounds(
        async () => {
          await patchProject({ features: { cashPickup: true } });
          // Turned on, it is seen at once.
          open = await pickup();
          expect(open.status).toBe(201);
        },
        () => patchProject({ features: { cashPickup: false } }),
        async () => {
          const quoted = refusedAs(await pickup(), 422, 'UnsupportedCorridor');
          const accepted = refusedAs(
            await call('POST', '/transactions', { quoteId: open!.body.id }),
            422,
            'UnsupportedCorridor',
          );
          return `quote ${quoted}, acceptance ${accepted}`;
        },
      );
      expect(outcomes).toEqual(Array(ROUNDS).fill('quote refused, acceptance refused'));
    }, 180_000);

    it('depositAddresses: the next deposit address is refused', async () => {
      const create = () =>
        call('POST', '/deposit-addresses', {
          customerId,
          expectedSourceAsset: 'usdc',
          expectedSourceNetwork: 'meridianchain',
          destination: { externalAccountId: bankId },
          payout: { rail: 'ach' },
        });
      const outcomes = await rounds(
        async () => {
          await patchProject({ features: { depositAddresses: true } });
          expect((await create()).status).toBe(201);
        },
        () => patchProject({ features: { depositAddresses: false } }),
        async () => refusedAs(await create(), 403, 'FeatureNotEnabled'),
      );
      expect(outcomes).toEqual(Array(ROUNDS).fill('refused'));
    }, 180_000);
  });

  describe('a limit on bank payouts lowered (PATCH /admin/projects/{projectId})', () => {
    /** A source-pinned sell of 10.00 usdc to the bank account over ACH: its fiat leg is 10.00 usd, which the limits apply to. */
    const sell = async () => {
      const quote = await call('POST', '/quotes', {
        customerId,
        source: { type: 'walletOms', details: { id: walletId }, amount: '10.00' },
        destination: { type: 'bankUs', details: { id: bankId, network: 'ach', accountHolder: 'customer' } },
      });
      expect(quote.status).toBe(201);
      return call('POST', '/transactions', { quoteId: quote.body.id });
    };

    it.each([
      { limit: 'perTransactionMax', allows: '1000.00', refuses: '5.00' },
      { limit: 'perTransactionMin', allows: '1.00', refuses: '20.00' },
      { limit: 'perTransactionMultiple', allows: '5.00', refuses: '3.00' },
      // The caps count this project's payouts so far: one of 1.00 is exceeded by the next 10.00.
      { limit: 'dailyBankPayoutCap', allows: '1000000.00', refuses: '1.00' },
      { limit: 'monthlyBankPayoutCap', allows: '1000000.00', refuses: '1.00' },
    ])(
      '$limit: the next payout over it is refused',
      async ({ limit, allows, refuses }) => {
        const balance = async () => (await call('GET', `/wallets/${walletId}/balance`)).body.data.balance as string;
        const before = await balance();
        const outcomes = await rounds(
          async () => {
            await patchProject({ limits: { [limit]: allows } });
            const paid = await sell();
            expect(paid.status).toBe(201);
          },
          () => patchProject({ limits: { [limit]: refuses } }),
          async () => refusedAs(await sell(), 422, 'TransactionLimitExceeded'),
        );
        await patchProject({ limits: { [limit]: null } });
        expect(outcomes).toEqual(Array(ROUNDS).fill('refused'));
        // Only the payouts the limit allowed moved money.
        expect(Number(before) - Number(await balance())).toBe(10 * ROUNDS);
      },
      180_000,
    );
  });

  describe('an API key revoked (DELETE /admin/api-keys/{apiKey})', () => {
    it(`refuses its tokens on the next request through the public entry${E2E_MODE === 'distributed' ? ', and sent directly to every service' : ''}`, async () => {
      // Distributed: each service's own address, from start:distributed's banner.
      const services =
        E2E_MODE === 'distributed'
          ? [...bannerServices(platform.logs()).values()].filter((s) => s.name !== 'gateway')
          : [];
      if (E2E_MODE === 'distributed')
        expect(services.map((s) => s.name).sort()).toEqual(Object.keys(READ_ROUTES).sort());
      const quoteId = (
        await call('POST', '/quotes', {
          customerId,
          source: { type: 'walletOms', details: { id: walletId }, amount: '10.00' },
          destination: { type: 'bankUs', details: { id: bankId, network: 'ach', accountHolder: 'customer' } },
        })
      ).body.id;
      const direct = (url: string, path: string, bearer: string, headers: Record<string, string> = {}) =>
        fetch(`${url}/v0.13${path}`, { headers: { authorization: `Bearer ${bearer}`, ...headers } });
      // The gateway's mark on what it checked, made without the internal credential: it must not pass.
      const forged = (bearer: string) => ({
        [GATEWAY_CHECKED_HEADER]: gatewayCheckOf('not-the-internal-credential', bearer),
      });
      let pair: { apiKey: string; token: string } | undefined;
      const outcomes = await rounds(
        async () => {
          const keys = (await platform.admin('POST', `/projects/${platform.projectId}/api-keys`)).body;
          pair = { apiKey: keys.apiKey, token: await platform.token(keys.apiKey, keys.apiSecret) };
          // Each process verifies the token, and remembers it, before the revocation.
          expect((await platform.request('GET', '/v0.13/customers', { token: pair.token })).status).toBe(200);
          for (const s of services)
            expect({
              service: s.name,
              status: (await direct(s.url, READ_ROUTES[s.name](quoteId), pair.token)).status,
            }).toEqual({ service: s.name, status: 200 });
        },
        async () => expect((await platform.admin('DELETE', `/api-keys/${pair!.apiKey}`)).status).toBe(200),
        async () => {
          const answers = [
            `gateway ${(await platform.request('GET', '/v0.13/customers', { token: pair!.token })).status}`,
          ];
          for (const s of services) {
            const plain = await direct(s.url, READ_ROUTES[s.name](quoteId), pair!.token);
            const marked = await direct(s.url, READ_ROUTES[s.name](quoteId), pair!.token, forged(pair!.token));
            answers.push(`${s.name} ${plain.status}/${marked.status}`);
          }
          return answers.join(', ');
        },
      );
      // Sent directly: as it is, then with a forged mark of the gateway.
      const refusedEverywhere = ['gateway 401', ...services.map((s) => `${s.name} 401/401`)].join(', ');
      expect(outcomes).toEqual(Array(ROUNDS).fill(refusedEverywhere));
    }, 180_000);
  });
});
