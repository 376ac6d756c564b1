// Spec: Quote, Pricing, Party, Transaction, States / Transaction and Quote,
// Events (transaction.statusChanged, underReview), rules 2, 4, 5;
// API-CONTRACT: Quotes; docs/sandbox.md for the magic cents. Every corridor's
// happy path and the failure rows of the state tables, over HTTP, in both modes.
import { eventually, expectError, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const QT = /^qt_[0-9a-hjkmnp-tv-z]{26}$/;
const TXN = /^txn_[0-9a-hjkmnp-tv-z]{26}$/;
const BILLING = { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' };
const ZERO_FEES = (zero: string) => ({ total: zero, developer: zero, gas: zero, meridian: zero });

describe('quotes and transactions', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.start(), WebhookReceiver.start()]);
  });
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own (its own sandbox clock), with a customer holding a funded wallet. */
  async function tenant(name: string, funding = '1000') {
    const { token } = await platform.newProject(name);
    const call = (method: string, path: string, body?: unknown) => platform.request(method, `/v0.13${path}`, { token, body });
    const post = (path: string, body?: unknown) => call('POST', path, body);
    const get = (path: string) => call('GET', path);
    const customer = async (lastName = 'Lovelace') => (await post('/customers', { type: 'individual', firstName: 'Ada', lastName, endorsements: ['basic', 'usd'] })).body as { id: string };
    const wallet = async (customerId: string, amount?: string, network = 'meridianchain') => {
      const w = (await post(`/customers/${customerId}/wallets`, { asset: 'usdc', network })).body as { id: string; address: string };
      if (amount) expect((await post(`/sandbox/wallets/${w.id}/fund`, { amount })).status).toBe(200);
      return w;
    };
    const active = async (res: { status: number; body: { id: string } }) => {
      expect(res.status).toBe(201);
      return eventually(async () => {
        const a = (await get(`/external-accounts/${res.body.id}`)).body;
        return a.status === 'active' ? (a as { id: string }) : undefined;
      });
    };
    const owner = (customerId: string) => ({ kind: 'customer', customerId });
    const ada = await customer();
    const adaWallet = await wallet(ada.id, funding);
    return {
      token,
      post,
      get,
      customer,
      wallet,
      ada,
      adaWallet,
      advance: async (seconds: number) => expect((await post('/sandbox/clock/advance', { seconds })).status).toBe(200),
      balance: async (walletId: string) => (await get(`/wallets/${walletId}/balance`)).body.data.balance as string,
      bankUs: (customerId = ada.id) => post('/external-accounts', { owner: owner(customerId), type: 'bankUs', bankUs: { accountNumber: '123456789012', routingNumber: '021000021' } }).then(active),
      bankIban: () => post('/external-accounts', { owner: owner(ada.id), type: 'bankIban', bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX', countryCode: 'DE' } }).then(active),
      bankCanada: () =>
        post('/external-accounts', { owner: owner(ada.id), type: 'bankCanada', bankCanada: { institutionNumber: '001', transitNumber: '12345', accountNumber: '1234567' } }).then(active),
      card: () => post('/external-accounts/cards', { owner: owner(ada.id), card: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123', billingAddress: BILLING } }).then(active),
      externalWallet: () =>
        post('/external-accounts', { owner: owner(ada.id), type: 'walletExternal', walletExternal: { address: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum' } }).then(active),
      quote: (body: Record<string, unknown>) => post('/quotes', { customerId: ada.id, ...body }),
      transaction: (quoteId: string) => post('/transactions', { quoteId }),
      /** The transaction once its status is the one given (the rails answer on the project's clock). */
      until: (id: string, status: string, subStatus?: string | null) =>
        eventually(async () => {
          const t = (await get(`/transactions/${id}`)).body;
          return t.status === status && (subStatus === undefined || t.subStatus === subStatus) ? t : undefined;
        }, 15_000),
    };
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  const walletToBank = (t: Tenant, accountId: string, type: string, network: string, amount = '100.00') =>
    t.quote({
      source: { type: 'walletOms', details: { id: t.adaWallet.id }, amount },
      destination: { type, details: { id: accountId, network, accountHolder: 'customer' } },
    });

  describe('POST /quotes', () => {
    it('prices a wallet to ACH quote exactly, open until expiresAt, with every Pricing field', async () => {
      const t = await tenant('quote-ach');
      const bank = await t.bankUs();
      const res = await walletToBank(t, bank.id, 'bankUs', 'ach', '100.25');
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(QT),
        object: 'quote',
        status: 'open',
        customerId: t.ada.id,
        sourceToDestination: 'cryptoToFiatAccount',
        source: {
          type: 'walletOms',
          category: 'crypto',
          details: { id: t.adaWallet.id, asset: 'usdc', network: 'meridianchain', address: t.adaWallet.address },
          amount: '100.25',
          party: { relationship: 'customer', customerId: t.ada.id, entityType: 'individual' },
        },
        destination: {
          type: 'bankUs',
          category: 'fiat',
          details: { id: bank.id, asset: 'usd', network: 'ach', accountHolder: 'customer', last4: '9012' },
          party: { relationship: 'customer', customerId: t.ada.id, entityType: 'individual' },
        },
        sponsorGas: true,
        pricing: {
          source: { asset: 'usdc', amountGross: '100.25', amountNet: '100.25', feesDeducted: ZERO_FEES('0.00') },
          destination: { asset: 'usd', amountGross: '100.25', amountNet: '100.25', feesDeducted: ZERO_FEES('0.00') },
          pair: 'usdc/usd',
          exchangeRate: '1.00',
          effectiveRate: '1.00',
          fixedAmountSide: 'source',
          sponsorGas: true,
          sponsorGasCost: '0.00',
        },
        metadata: {},
        transactionId: null,
        expiresAt: expect.stringMatching(ISO),
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      expect(Date.parse(res.body.expiresAt) - Date.parse(res.body.createdAt)).toBe(60_000);
      expect((await t.get(`/quotes/${res.body.id}`)).body).toEqual(res.body);
    });

    it('prices CAD from a fixed destination amount at the sandbox rate, exactly', async () => {
      const t = await tenant('quote-cad');
      const bank = await t.bankCanada();
      const res = await t.quote({ source: { type: 'walletOms', details: { id: t.adaWallet.id } }, destination: { type: 'bankCanada', details: { id: bank.id, network: 'local', accountHolder: 'customer' }, amount: '125.10' } });
      expect(res.status).toBe(201);
      expect(res.body.pricing).toMatchObject({ pair: 'usdc/cad', exchangeRate: '1.25', fixedAmountSide: 'destination', source: { amountNet: '100.08' }, destination: { asset: 'cad', amountGross: '125.10' } });
    });
  });

  describe('wallet to bank, completed', () => {
    it('pulls the funds, pays out over ACH, and completes with subStatus null', async () => {
      const t = await tenant('ach');
      const bank = await t.bankUs();
      const quote = (await walletToBank(t, bank.id, 'bankUs', 'ach')).body;
      const res = await t.transaction(quote.id);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ id: expect.stringMatching(TXN), object: 'transaction', status: 'processing', subStatus: 'processing.fundsPulled', customerId: t.ada.id, sourceToDestination: 'cryptoToFiatAccount', precursor: { type: 'quote', id: quote.id } });
      expect(await t.balance(t.adaWallet.id)).toBe('900.00');
      expect((await t.get(`/quotes/${quote.id}`)).body).toMatchObject({ status: 'accepted', transactionId: res.body.id });
      await t.advance(60);
      const done = await t.until(res.body.id, 'completed');
      expect(done.subStatus).toBeNull();
      expect(done.legs).toEqual([expect.objectContaining({ kind: 'payout', rail: 'ach', status: 'settled', endToEndId: expect.stringMatching(/^E2E/) })]);
      expectError(await t.transaction(quote.id), 409, 'QuoteAlreadyAccepted');
    });
  });
});
