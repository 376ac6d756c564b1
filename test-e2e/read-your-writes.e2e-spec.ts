// Issue 17, item 5: a partner who follows a 200 or a webhook never meets a 404
// or a refusal made on a stale copy. Services learn of other services' changes
// from their event logs a moment later; these tests hold that moment open on
// purpose (every reader of the log is paused, see pauseReaders) and check that
// the first request after the write is already answered on it, in both modes.
import { pauseReaders } from './support/pause-readers';
import { newTenant } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

/** A Bigmart in Los Angeles that pays out cash (docs/sandbox.md). */
const PICKUP = { cashLocationId: 'loc_01m846c3h4e06945jf6mfht9tc', cashLocationReference: 'BIGMART-1001' };
const LA_QUICKSTOP = { locationId: 'loc_01m846c3h7e06945mv76kz01kg', locationReference: 'QUICKSTOP-2002' };

describe('read your writes across services', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
    // The quoting service knows the pickup locations once it has read the cash-in service's log.
    await eventually(async () => {
      const [row] = await platform.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM quoting.cash_locations WHERE 'cash_out' = ANY(flows)`,
      );
      return row.n > 0 ? true : undefined;
    }, 30_000);
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  /** A project of its own with a customer (every endorsement active) and a funded wallet. */
  async function tenant(name: string) {
    const t = await newTenant(platform, { name });
    const customer = await t.customer({}, ['basic', 'cryptoCustody', 'usd']);
    const wallet = await t.wallet(customer.id, { funding: '1000' });
    return { ...t, customer, wallet };
  }

  const patchProject = (projectId: string, body: unknown) =>
    platform.admin('PATCH', `/projects/${projectId}`, { body });

  it('quotes a cash pickup on the very next request after the operator enables the feature', async () => {
    const t = await tenant('feature at once');
    const pickup = () =>
      t.call('POST', '/quotes', {
        customerId: t.customer.id,
        source: { type: 'walletOms', details: { id: t.wallet.id } },
        destination: { type: 'cash', details: PICKUP, amount: '100.00' },
      });
    // The control: off, it is refused.
    expectError(await pickup(), 422, 'UnsupportedCorridor');
    const resume = await pauseReaders(platform.running.databaseUrl, 'gateway');
    try {
      expect((await patchProject(t.projectId, { features: { cashPickup: true } })).status).toBe(200);
      const quote = await pickup();
      expect(quote.status).toBe(201);
      expect(quote.body).toMatchObject({ sourceToDestination: 'cryptoToCash', status: 'open' });
    } finally {
      await resume();
    }
  }, 60_000);

  it('pays out on the very next request after the operator raises a limit that refused it', async () => {
    const t = await tenant('limit at once');
    const bank = await t.call('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId: t.customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    await eventually(async () =>
      (await t.call('GET', `/external-accounts/${bank.body.id}`)).body.status === 'active' ? true : undefined,
    );
    const sell = async () => {
      const quote = await t.call('POST', '/quotes', {
        customerId: t.customer.id,
        source: { type: 'walletOms', details: { id: t.wallet.id }, amount: '10.00' },
        destination: { type: 'bankUs', details: { id: bank.body.id, network: 'ach', accountHolder: 'customer' } },
      });
      expect(quote.status).toBe(201);
      return t.call('POST', '/transactions', { quoteId: quote.body.id });
    };
    expect((await patchProject(t.projectId, { limits: { perTransactionMax: '5.00' } })).status).toBe(200);
    // The control: the limit refuses.
    expectError(await sell(), 422, 'TransactionLimitExceeded');
    const resume = await pauseReaders(platform.running.databaseUrl, 'gateway');
    try {
      expect((await patchProject(t.projectId, { limits: { perTransactionMax: '5000.00' } })).status).toBe(200);
      const paid = await sell();
      expect(paid.status).toBe(201);
      expect(paid.body.status).toBe('processing');
    } finally {
      await resume();
    }
    // A raised limit decided on the gateway's word still counts nothing twice: the balance moved once.
    expect((await t.call('GET', `/wallets/${t.wallet.id}/balance`)).body.data.balance).toBe('990.00');
  }, 60_000);

  it('finds the transaction a completed cash-in names, at once and exactly once, announced after the cash-in', async () => {
    const t = await tenant('cash-in at once');
    const hook = await t.call('POST', '/webhooks', {
      url: 'http://127.0.0.1:9/read-your-writes',
      subscriptions: ['cashIn.completed', 'transaction.statusChanged'],
    });
    expect(hook.status).toBe(201);
    const cashIn = await t.call('POST', '/cash-ins', {
      customerId: t.customer.id,
      source: { asset: 'usd' },
      destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: t.wallet.id } },
      cash: LA_QUICKSTOP,
    });
    expect(cashIn.status).toBe(201);
    const resume = await pauseReaders(platform.running.databaseUrl, 'cash_in');
    let transactionId: string;
    try {
      const deposited = await t.call('POST', `/cash-ins/${cashIn.body.id}/simulate/deposit`, { amount: '60.00' });
      expect(deposited.status).toBe(200);
      expect(deposited.body).toMatchObject({ status: 'completed', transactionId: expect.stringMatching(/^txn_/) });
      transactionId = deposited.body.transactionId;
      const transaction = await t.call('GET', `/transactions/${transactionId}`);
      expect(transaction.status).toBe(200);
      expect(transaction.body).toMatchObject({
        id: transactionId,
        sourceToDestination: 'cashToCrypto',
        precursor: { type: 'cashIn', id: cashIn.body.id },
      });
      // The transaction's first statusChanged reaches the webhooks service before the cash-in's completion
      // does (that log is held still): it waits (spec: Events, tie 1), and nothing is delivered yet.
      await eventually(async () => {
        const [row] = await platform.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhooks.held_events WHERE project_id = $1 AND key = $2`,
          [t.projectId, `cashIn:${cashIn.body.id}`],
        );
        return row.n > 0 ? true : undefined;
      });
      expect((await t.call('GET', `/webhooks/${hook.body.id}/deliveries`)).body.data).toEqual([]);
    } finally {
      await resume();
    }
    // Once the completion is read: cashIn.completed, then the transaction's statusChanged.
    const emitted = await eventually(async () => {
      const deliveries = (await t.call('GET', `/webhooks/${hook.body.id}/deliveries`)).body.data as Array<{
        event: string;
      }>;
      return deliveries.length >= 2 ? deliveries.reverse().map((d) => d.event) : undefined;
    });
    expect(emitted.slice(0, 2)).toEqual(['cashIn.completed', 'transaction.statusChanged']);
    // The deposit's event, read once the log flows again, finds the transaction made: one creation.
    await platform.settle();
    await eventually(async () => {
      const [row] = await platform.db.query<{ caught_up: boolean }>(
        // Read in (transaction, position) order: caught up once no event is after the checkpoint in that order.
        `SELECT bool_and(NOT EXISTS (SELECT 1 FROM cash_in.events e WHERE (e.transaction_id, e.global_position) > (c.transaction_id, c.global_position))) AS caught_up
           FROM platform.subscription_checkpoints c WHERE c.source = 'cash_in'`,
      );
      return row.caught_up ? true : undefined;
    }, 20_000);
    const [{ n }] = await platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions.events WHERE stream_id = $1 AND type = 'transaction.created'`,
      [`transaction-${transactionId}`],
    );
    expect(n).toBe(1);
  }, 60_000);

  it("keeps the gateway's internal route hidden from partners and operators", async () => {
    const token = await platform.token();
    for (const auth of [token, undefined]) {
      const res = await platform.request('POST', '/v0.13/internal/gateway/project', {
        token: auth,
        body: { projectId: platform.projectId },
      });
      expectError(res, 404, 'NotFound');
    }
  });
});
