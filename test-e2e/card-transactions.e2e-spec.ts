// Spec: Quote (card buys and sells), Transaction (payoutOrigin), Events (envelope `data`: the full
// resource at the time of the event; transaction.statusChanged), Errors (card validation);
// issue 26 items 3 to 5, as a partner meets them from outside. Over HTTP, both modes.
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const BILLING = { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' };

describe('card buys and sells as a partner sees them', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let token: string;
  let grace: { id: string };
  let wallet: { id: string; address: string };
  let card: { id: string };
  let bank: { id: string };
  const post = (path: string, body?: unknown) => platform.request('POST', `/v0.13${path}`, { token, body });
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });
  const active = async (res: { status: number; body: { id: string } }) => {
    expect(res.status).toBe(201);
    return eventually(async () => {
      const account = (await get(`/external-accounts/${res.body.id}`)).body;
      return account.status === 'active' ? (account as { id: string }) : undefined;
    });
  };
  const sell = (source: Record<string, unknown>, amount = '25.00') =>
    post('/quotes', {
      customerId: grace.id,
      source: { type: 'walletOms', details: source, amount },
      destination: { type: 'card', details: { externalAccountId: card.id } },
    });
  const buy = (amount = '30.00') =>
    post('/quotes', {
      customerId: grace.id,
      source: { type: 'card', details: { externalAccountId: card.id }, amount },
      destination: { type: 'walletOms', details: { id: wallet.id } },
    });
  /** The transaction.statusChanged deliveries of a transaction, in sequence order. */
  const statusChanges = (id: string) =>
    receiver
      .at('/cards')
      .map((d) => d.body)
      .filter((b) => b.eventType === 'transaction.statusChanged' && b.data.id === id)
      .sort((a, b) => a.sequence - b.sequence);

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
    token = await platform.token();
    expect(
      (await post('/webhooks', { url: receiver.url('/cards'), subscriptions: ['transaction.statusChanged'] })).status,
    ).toBe(201);
    grace = await platform.endorsedCustomer(token, { firstName: 'Grace', lastName: 'Hopper' });
    wallet = (await post(`/customers/${grace.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).body;
    expect((await post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '500' })).status).toBe(200);
    const owner = { kind: 'customer', customerId: grace.id };
    card = await active(
      await post('/external-accounts/cards', {
        owner,
        card: {
          cardNumber: '5555555555554444',
          expiryMonth: 12,
          expiryYear: 2031,
          cvc: '123',
          billingAddress: BILLING,
        },
      }),
    );
    bank = await active(
      await post('/external-accounts', {
        owner,
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      }),
    );
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  describe('the first transaction.statusChanged is the transaction as the POST answered it (item 3)', () => {
    it('a card buy: its pending charge leg included', async () => {
      const created = await post('/transactions', { quoteId: (await buy()).body.id });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        status: 'processing',
        subStatus: null,
        legs: [{ kind: 'deposit', rail: 'card', status: 'pending' }],
      });
      const [first] = await eventually(async () => {
        const got = statusChanges(created.body.id);
        return got.length > 0 ? got : undefined;
      }, 20_000);
      expect(first).toMatchObject({ previousStatus: null });
      expect(first.data).toEqual(created.body);
    });

    it('a card sell: the wallet debited before it was made, its pending push to the card included', async () => {
      const created = await post('/transactions', { quoteId: (await sell({ id: wallet.id })).body.id });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        status: 'processing',
        subStatus: 'processing.fundsPulled',
        legs: [{ kind: 'payout', rail: 'card', status: 'pending' }],
      });
      const [first] = await eventually(async () => {
        const got = statusChanges(created.body.id);
        return got.length > 0 ? got : undefined;
      }, 20_000);
      expect(first).toMatchObject({ previousStatus: null });
      expect(first.data).toEqual(created.body);
    });
  });

  describe('payoutOrigin names the customer the payout comes from (item 4)', () => {
    it('on a card sell and on a bank payout, in the response, the read and the event', async () => {
      const sold = (await post('/transactions', { quoteId: (await sell({ id: wallet.id }, '10.00')).body.id })).body;
      const paid = (
        await post('/transactions', {
          quoteId: (
            await post('/quotes', {
              customerId: grace.id,
              source: { type: 'walletOms', details: { id: wallet.id }, amount: '10.00' },
              destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
            })
          ).body.id,
        })
      ).body;
      for (const txn of [sold, paid]) {
        const origin = {
          type: 'quote',
          id: txn.precursor.id,
          accountHolder: 'customer',
          accountHolderName: 'Grace Hopper',
        };
        expect(txn.payoutOrigin).toEqual(origin);
        expect((await get(`/transactions/${txn.id}`)).body.payoutOrigin).toEqual(origin);
        const [first] = await eventually(async () => {
          const got = statusChanges(txn.id);
          return got.length > 0 ? got : undefined;
        }, 20_000);
        expect(first.data.payoutOrigin).toEqual(origin);
      }
    });
  });

  describe('a card quote whose source names a raw wallet address (item 5)', () => {
    it("is refused with the card rules' 422 source_wallet_address_not_allowed, and nothing is quoted", async () => {
      const quotes = async () =>
        Number(
          (
            await platform.db.query<{ count: string }>(`SELECT count(*) FROM quoting.quotes WHERE customer_id = $1`, [
              grace.id,
            ])
          )[0].count,
        );
      const before = await quotes();
      for (const source of [{ address: wallet.address }, { id: wallet.id, address: wallet.address }]) {
        const refused = await sell(source);
        expectError(refused, 422, 'source_wallet_address_not_allowed', 13014);
        expect(refused.body.cause).toMatch(/^source\.details\.address/);
      }
      const asBuy = await post('/quotes', {
        customerId: grace.id,
        source: { type: 'card', details: { externalAccountId: card.id, address: wallet.address }, amount: '10.00' },
        destination: { type: 'walletOms', details: { id: wallet.id } },
      });
      expectError(asBuy, 422, 'source_wallet_address_not_allowed', 13014);
      expect(await quotes()).toBe(before);
    });
  });
});
