// Spec: rule 3 (auto-created transactions skip the quote and start in
// `processing`), Cash-in ("the auto-created transaction has sourceToDestination
// cashToCrypto, precursor type cashIn, source type cash"), States / Cash-in
// ("if crypto delivery fails after deposit, the auto-created transaction moves
// to failed; the cash-in itself stays completed"), Events ties 1 and 6
// (`cashIn.completed` then `transaction.statusChanged`). In both modes: the
// cash-in service announces the deposit, the transactions service creates the
// transaction, the accounts service credits the wallet.
import { newTenant } from './support/tenant';
import { eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const LA_QUICKSTOP = { locationId: 'loc_01m846c3h7e06945mv76kz01kg', locationReference: 'QUICKSTOP-2002' };
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
/** The crypto rail's sandbox delay (docs/sandbox.md), and a little more. */
const CRYPTO_SETTLES = 6;

describe('the transaction a cash-in creates', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    // A platform of its own (a test replays the cash-in log from the start); distributed, the services the flow
    // goes through and no others.
    [platform, receiver] = await Promise.all([
      TestPlatform.start({}, undefined, { services: ['accounts', 'cash-in', 'transactions', 'webhooks'] }),
      WebhookReceiver.start(),
    ]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own (its own clock) and a customer with a wallet. */
  async function tenant(name: string) {
    const t = await newTenant(platform, { name });
    const customerId = (await t.customer({}, ['basic', 'cryptoCustody', 'usd'])).id;
    const wallet = await t.wallet(customerId);
    /** A cash-in into the wallet (or to a bare address), deposited with `amount`: the completed cash-in. */
    const deposited = async (amount: string, to: Record<string, string> = { id: wallet.id }) => {
      const cashIn = await t.post('/cash-ins', {
        customerId,
        source: { asset: 'usd' },
        destination: { asset: 'usdc', network: 'meridianchain', wallet: to },
        cash: LA_QUICKSTOP,
      });
      expect(cashIn.status).toBe(201);
      const done = await t.post(`/cash-ins/${cashIn.body.id}/simulate/deposit`, { amount });
      expect(done.status).toBe(200);
      return done.body;
    };
    /** The transaction once the transactions service has created it (it hears of the deposit). */
    const transaction = (id: string, until: (t: any) => boolean = () => true) =>
      eventually(async () => {
        const res = await t.get(`/transactions/${id}`);
        return res.status === 200 && until(res.body) ? res.body : undefined;
      }, 20_000);
    return { ...t, customerId, wallet, balance: () => t.balance(wallet.id), deposited, transaction };
  }

  it('is cashToCrypto with precursor cashIn and a cash source, starts processing, and completes into the wallet', async () => {
    const t = await tenant('cash-in transaction');
    const hook = await t.post('/webhooks', {
      url: receiver.url('/cash-in-transaction'),
      subscriptions: ['cashIn.completed', 'transaction.statusChanged'],
    });
    expect(hook.status).toBe(201);
    const cashIn = await t.deposited('120.00');
    expect(cashIn).toMatchObject({
      status: 'completed',
      subStatus: 'settled',
      transactionId: expect.stringMatching(/^txn_[0-9a-hjkmnp-tv-z]{26}$/),
    });
    // The transaction's id carries the cash-in's: one transaction per cash-in.
    expect(cashIn.transactionId.slice(4)).toBe(cashIn.id.slice(3));

    const started = await t.transaction(cashIn.transactionId);
    expect(started).toMatchObject({
      id: cashIn.transactionId,
      object: 'transaction',
      sourceToDestination: 'cashToCrypto',
      status: 'processing',
      customerId: t.customerId,
      precursor: { type: 'cashIn', id: cashIn.id },
      source: {
        type: 'cash',
        category: 'cash',
        details: {
          asset: 'usd',
          locationId: LA_QUICKSTOP.locationId,
          locationReference: LA_QUICKSTOP.locationReference,
        },
      },
      destination: {
        type: 'walletOms',
        category: 'crypto',
        details: { id: t.wallet.id, asset: 'usdc', network: 'meridianchain', address: t.wallet.address },
      },
      pricing: {
        source: { asset: 'usd', amountGross: '120.00', amountNet: '120.00' },
        destination: { asset: 'usdc', amountGross: '120.00', amountNet: '120.00' },
        fixedAmountSide: 'source',
      },
    });
    // No quote was made for it.
    expect(started).not.toHaveProperty('quoteId');
    expect(
      (await t.get(`/transactions?customerId=${t.customerId}`)).body.data.map((x: { id: string }) => x.id),
    ).toContain(cashIn.transactionId);

    // The cash is in: the crypto goes out on its rail and settles into the wallet.
    const paying = await t.transaction(cashIn.transactionId, (x) =>
      x.legs.some((l: { kind: string; rail: string }) => l.kind === 'payout' && l.rail === 'crypto'),
    );
    expect(paying.legs.find((l: { kind: string }) => l.kind === 'deposit')).toMatchObject({
      rail: 'cash',
      asset: 'usd',
      amount: '120.00',
      status: 'settled',
    });
    expect(await t.balance()).toBe('0.00');
    await t.advance(CRYPTO_SETTLES);
    const completed = await t.transaction(cashIn.transactionId, (x) => x.status === 'completed');
    expect(completed.legs.find((l: { kind: string }) => l.kind === 'payout')).toMatchObject({
      rail: 'crypto',
      asset: 'usdc',
      amount: '120.00',
      status: 'settled',
    });
    expect(await eventually(async () => ((await t.balance()) === '120.00' ? true : undefined))).toBe(true);
    // The cash-in is unchanged by its transaction.
    expect((await t.get(`/cash-ins/${cashIn.id}`)).body).toEqual(cashIn);

    // cashIn.completed first, then the transaction's statusChanged events: in the order they are emitted,
    // which is the order of the endpoint's deliveries (arrival is best effort: deliveries run concurrently).
    const received = await eventually(async () => {
      const got = receiver.at('/cash-in-transaction').map((r) => r.body);
      return got.some((b) => b.eventType === 'transaction.statusChanged' && b.data.status === 'completed')
        ? got
        : undefined;
    }, 20_000);
    const emitted = [...(await t.get(`/webhooks/${hook.body.id}/deliveries?limit=100`)).body.data].reverse() as Array<{
      id: string;
    }>;
    // (A statusChanged envelope names its event `eventType`; the others `event`: spec, Events.)
    const inEmittedOrder = emitted.map((d) => received.find((b) => b.id === d.id));
    const order = inEmittedOrder.map((b) => `${b.event ?? b.eventType}:${b.data.status}`);
    expect(order[0]).toBe('cashIn.completed:completed');
    expect(order).toContain('transaction.statusChanged:processing');
    expect(order.indexOf('transaction.statusChanged:completed')).toBeGreaterThan(
      order.indexOf('transaction.statusChanged:processing'),
    );
    // The first emitted, not the first to arrive: a delivery retried after a slow attempt arrives later.
    const firstTransactionEvent = inEmittedOrder.find((b) => b.eventType === 'transaction.statusChanged');
    expect(firstTransactionEvent).toMatchObject({
      previousStatus: null,
      data: { id: cashIn.transactionId, status: 'processing', precursor: { type: 'cashIn', id: cashIn.id } },
    });
  }, 60_000);

  it('delivers to a bare blockchain address: completed, no custodial wallet credited', async () => {
    const t = await tenant('cash-in to an address');
    const cashIn = await t.deposited('40.00', { blockchainAddress: ADDRESS });
    await t.transaction(cashIn.transactionId);
    await t.advance(CRYPTO_SETTLES);
    const completed = await t.transaction(cashIn.transactionId, (x) => x.status === 'completed');
    expect(completed.destination).toMatchObject({
      type: 'walletExternal',
      category: 'crypto',
      details: { asset: 'usdc', network: 'meridianchain', address: ADDRESS },
    });
    expect(await t.balance()).toBe('0.00');
  }, 60_000);

  it('fails when the crypto cannot be delivered, and the cash-in stays completed (magic cents .92)', async () => {
    const t = await tenant('cash-in delivery fails');
    const cashIn = await t.deposited('20.92');
    await t.transaction(cashIn.transactionId);
    await t.advance(CRYPTO_SETTLES);
    const failed = await t.transaction(cashIn.transactionId, (x) => x.status === 'failed');
    expect(failed).toMatchObject({
      status: 'failed',
      subStatus: 'failed.outboundFailed',
      error: { code: 'providerError' },
    });
    expect((await t.get(`/cash-ins/${cashIn.id}`)).body).toMatchObject({
      status: 'completed',
      subStatus: 'settled',
      transactionId: cashIn.transactionId,
    });
    expect(await t.balance()).toBe('0.00');
  }, 60_000);

  it('is created once however often the deposit is announced', async () => {
    const t = await tenant('cash-in once');
    const cashIn = await t.deposited('60.00');
    const before = await t.transaction(cashIn.transactionId, (x) => x.legs.length === 2);
    // Every reader of the cash-in log reads it again from the start (in one process the services'
    // subscriptions, across processes the relay that publishes it to Kafka): the deposit is announced
    // again, and its transaction's stream refuses a second creation.
    const reset = await platform.db.query(
      `UPDATE platform.subscription_checkpoints SET transaction_id = '0', global_position = 0 WHERE source = 'cash_in' RETURNING subscription`,
    );
    expect(reset.length).toBeGreaterThan(0);
    await eventually(async () => {
      const [row] = await platform.db.query<{ caught_up: boolean }>(
        // Read in (transaction, position) order: caught up once no event is after the checkpoint in that order.
        `SELECT bool_and(NOT EXISTS (SELECT 1 FROM cash_in.events e WHERE (e.transaction_id, e.global_position) > (c.transaction_id, c.global_position))) AS caught_up
           FROM platform.subscription_checkpoints c WHERE c.source = 'cash_in'`,
      );
      return row.caught_up ? true : undefined;
    }, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    const [{ n }] = await platform.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM transactions.events WHERE stream_id = $1 AND type = 'transaction.created'`,
      [`transaction-${cashIn.transactionId}`],
    );
    expect(n).toBe(1);
    expect((await t.get(`/transactions/${cashIn.transactionId}`)).body).toEqual(before);
  }, 60_000);
});
