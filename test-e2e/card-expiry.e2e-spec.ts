// Spec: External account (States: any -> invalid, always with statusChanged), Events (tie 2:
// a change of failure emits externalAccount.updated), Quote and States / Transaction (an unusable
// account is refused); issue 26 item 1: a card lapses when its expiry month ends on the project's
// sandbox clock, by a durable timer, whether or not anything reads it. Over HTTP, both modes.
import { newTenant, type ExternalAccount } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver, type ReceivedDelivery } from './support/webhook-receiver';

const YEAR_SECONDS = 365 * 24 * 3600;

describe('cards lapse at the end of their expiry month', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own (its own clock), a customer with a funded wallet, and an endpoint hearing its events. */
  async function tenant(name: string) {
    const t = await newTenant(platform, { name, receiver });
    const hook = `/${name}`;
    await t.endpoint(hook);
    const ada = await t.customer();
    const wallet = await t.wallet(ada.id, { funding: '500' });
    /** Seconds from the project's now to the first instant of the next month (UTC): when a card of this month lapses. */
    const toMonthEnd = async () => {
      const now = await t.clock();
      return { now, seconds: (Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime()) / 1000 };
    };
    /** A Mastercard expiring in the project's current month, active. */
    const cardOfThisMonth = async () => {
      const now = await t.clock();
      return (await t.card(ada.id, {
        cardNumber: '5555555555554444',
        expiryMonth: now.getUTCMonth() + 1,
        expiryYear: now.getUTCFullYear(),
      })) as ExternalAccount & {
        details: { expiryMonth: number; expiryYear: number };
      };
    };
    const deliveries = (resourceId: string) => receiver.at(hook).filter((d) => d.body?.data?.id === resourceId);
    const buy = (cardId: string, amount = '20.00') =>
      t.post('/quotes', {
        customerId: ada.id,
        source: { type: 'card', details: { externalAccountId: cardId }, amount },
        destination: { type: 'walletOms', details: { id: wallet.id } },
      });
    const sell = (cardId: string, amount = '20.00') =>
      t.post('/quotes', {
        customerId: ada.id,
        source: { type: 'walletOms', details: { id: wallet.id }, amount },
        destination: { type: 'card', details: { externalAccountId: cardId } },
      });
    return { ...t, ada, wallet, toMonthEnd, cardOfThisMonth, deliveries, buy, sell };
  }

  const name = (d: ReceivedDelivery) => (d.body.event ?? d.body.eventType) as string;
  // Ordering is best effort (an attempt that failed is retried after what followed it): a receiver orders a
  // resource's events by their sequence, as these tests do.
  const bySequence = (ds: ReceivedDelivery[]) =>
    [...ds].sort((a, b) => (a.body.sequence as number) - (b.body.sequence as number));

  it('becomes invalid with card_expired when its month ends, announced by statusChanged and by updated naming failure, without a read', async () => {
    const t = await tenant('lapses');
    const card = await t.cardOfThisMonth();
    const { seconds } = await t.toMonthEnd();
    // Not yet: the card is valid through the last day of its month.
    await t.advance(Math.max(1, Math.floor(seconds) - 60));
    expect((await t.get(`/external-accounts/${card.id}`)).body).toMatchObject({ status: 'active', failure: null });
    // Into the next month, with nothing reading the card: the timer decides.
    await t.advance(120);
    const announced = await eventually(async () => {
      const got = t.deliveries(card.id).filter((d) => d.body.data.status === 'invalid');
      return got.length >= 2 ? bySequence(got) : undefined;
    }, 30_000);
    const failure = {
      code: 'card_expired',
      message: `the card expired at the end of ${String(card.details.expiryMonth).padStart(2, '0')}/${card.details.expiryYear}`,
    };
    expect(
      announced.map((d) => ({
        name: name(d),
        previousStatus: d.body.previousStatus,
        changedFields: d.body.changedFields,
        failure: d.body.data.failure,
      })),
    ).toEqual([
      { name: 'externalAccount.statusChanged', previousStatus: 'active', changedFields: undefined, failure },
      { name: 'externalAccount.updated', previousStatus: undefined, changedFields: ['failure'], failure },
    ]);
    const read = (await t.get(`/external-accounts/${card.id}`)).body;
    expect(read).toMatchObject({ id: card.id, status: 'invalid', failure });
    expect(announced.at(-1)!.body.data).toEqual(read);
  });

  it('fires once however far the clock jumps past the expiry: years later it is still one invalidation', async () => {
    const t = await tenant('jumps');
    const card = await t.cardOfThisMonth();
    await t.advance(YEAR_SECONDS);
    await t.advance(YEAR_SECONDS);
    await eventually(
      async () => ((await t.get(`/external-accounts/${card.id}`)).body.status === 'invalid' ? true : undefined),
      30_000,
    );
    // Both announcements reach the receiver (deliveries are sent after the fan-out), and no third after them.
    await eventually(
      async () =>
        t.deliveries(card.id).filter((d) => d.body.data.status === 'invalid').length >= 2 ? true : undefined,
      30_000,
    );
    await platform.settle();
    const invalidations = bySequence(t.deliveries(card.id).filter((d) => d.body.data.status === 'invalid'));
    expect(invalidations.map(name)).toEqual(['externalAccount.statusChanged', 'externalAccount.updated']);
    const stream = await platform.db.query<{ type: string }>(
      `SELECT type FROM accounts.events WHERE stream_id = $1 ORDER BY stream_version`,
      [`external-account-${card.id}`],
    );
    expect(stream.map((e) => e.type).filter((type) => type === 'externalAccount.statusChanged')).toHaveLength(2); // active, then invalid
  });

  it('is refused on new quotes and at acceptance once it lapsed, and a charge under way is not taken', async () => {
    const t = await tenant('refused');
    const card = await t.cardOfThisMonth();
    const { seconds } = await t.toMonthEnd();
    // Half a minute before the month ends: quotes made now are open for 60 s.
    await t.advance(Math.max(1, Math.floor(seconds) - 30));
    const buy = (await t.buy(card.id)).body;
    const sell = (await t.sell(card.id)).body;
    expect([buy.status, sell.status]).toEqual(['open', 'open']);
    // A second before it ends, a buy's charge is under way: the card rail answers 5 s later.
    await t.advance(29);
    const charging = (await t.post('/transactions', { quoteId: (await t.buy(card.id, '30.00')).body.id })).body;
    expect(charging).toMatchObject({
      status: 'processing',
      legs: [{ kind: 'deposit', rail: 'card', status: 'pending' }],
    });
    // The month ends: the card lapses before the rail answers.
    await t.advance(2);
    await eventually(
      async () => ((await t.get(`/external-accounts/${card.id}`)).body.status === 'invalid' ? true : undefined),
      30_000,
    );
    for (const quote of [buy, sell]) {
      expect((await t.get(`/quotes/${quote.id}`)).body.status).toBe('open');
      const refused = await t.post('/transactions', { quoteId: quote.id });
      expectError(refused, 422, 'ExternalAccountNotActive');
      expect(refused.body.cause).toContain('card_expired');
    }
    expectError(await t.buy(card.id), 422, 'ExternalAccountNotActive');
    expectError(await t.sell(card.id), 422, 'ExternalAccountNotActive');
    await t.advance(10);
    const declined = await eventually(async () => {
      const txn = (await t.get(`/transactions/${charging.id}`)).body;
      return txn.status === 'failed' ? txn : undefined;
    }, 30_000);
    expect(declined).toMatchObject({
      subStatus: 'failed.providerDeclined',
      legs: [{ kind: 'deposit', status: 'failed', failure: { code: 'externalAccountInvalid' } }],
    });
    expect((await t.get(`/wallets/${t.wallet.id}/balance`)).body.data.balance).toBe('500.00');
  });
});
