// Which operations need which endorsement (docs/endorsements.md; ADR 0028; spec: Customer, Cash-in).
// Custody needs cryptoCustody; fiat and cash need their currency's endorsement (usd; basic for CAD);
// crypto between wallets needs nothing more. Every service refuses the same way: 422 with the
// endorsement's own error and a cause naming the operation and the customer, before it stores
// anything; and the same request goes through the moment the endorsement is active.
import { rowCounts, settledRowCounts } from './support/row-counts';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform, type Response } from './support/test-platform';

const BILLING = { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' };
const PICKUP_LOCATION = { cashLocationId: 'loc_01m846c3h4e06945jf6mfht9tc', cashLocationReference: 'BIGMART-1001' };
const CASH_IN_LOCATION = { locationId: 'loc_01m846c3h7e06945mv76kz01kg', locationReference: 'QUICKSTOP-2002' };
const CODES = {
  UsdEndorsementRequired: 14004,
  CryptoCustodyEndorsementRequired: 10110,
  BasicEndorsementRequired: 10111,
};

describe('endorsements (docs/endorsements.md)', () => {
  let platform: TestPlatform;
  let token: string;
  const post = (path: string, body?: unknown) => platform.request('POST', `/v0.13${path}`, { token, body });
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });
  /** Holds cryptoCustody only: wallets, but neither fiat nor cash. */
  let holder: { id: string };
  let wallet: { id: string };
  let otherWallet: { id: string };
  let bankUs: { id: string };
  let bankCanada: { id: string };
  let card: { id: string };

  const active = async (res: Response) => {
    expect(res.status).toBe(201);
    return eventually(
      async () =>
        (await get(`/external-accounts/${res.body.id}`)).body.status === 'active'
          ? (res.body as { id: string })
          : undefined,
      30_000,
    );
  };

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    // A project of this file's own with cash pickup enabled.
    const project = await platform.admin('POST', '/projects', {
      body: { name: 'endorsements', features: { cashPickup: true } },
    });
    const keys = await platform.admin('POST', `/projects/${project.body.id}/api-keys`);
    token = await platform.token(keys.body.apiKey, keys.body.apiSecret);
    holder = await platform.endorsedCustomer(token, { lastName: 'Holder' }, ['cryptoCustody']);
    wallet = (await post(`/customers/${holder.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).body;
    otherWallet = (await post(`/customers/${holder.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).body;
    expect((await post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '1000' })).status).toBe(200);
    // Registering an account needs no endorsement: paying out to it does.
    const owner = { kind: 'customer', customerId: holder.id };
    [bankUs, bankCanada, card] = await Promise.all([
      post('/external-accounts', {
        owner,
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      }).then(active),
      post('/external-accounts', {
        owner,
        type: 'bankCanada',
        bankCanada: { institutionNumber: '001', transitNumber: '12345', accountNumber: '1234567' },
      }).then(active),
      post('/external-accounts/cards', {
        owner,
        card: {
          cardNumber: '4242424242424242',
          expiryMonth: 12,
          expiryYear: 2031,
          cvc: '123',
          billingAddress: BILLING,
        },
      }).then(active),
    ]);
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  const fromWallet = (amount = '20.00') => ({ type: 'walletOms', details: { id: wallet.id }, amount });
  const operations: Array<[string, string, () => [string, Record<string, unknown>]]> = [
    [
      'a USD bank payout',
      'usd',
      () => [
        '/quotes',
        {
          customerId: holder.id,
          source: fromWallet(),
          destination: { type: 'bankUs', details: { id: bankUs.id, network: 'ach', accountHolder: 'customer' } },
        },
      ],
    ],
    [
      'a USD bank payout',
      'usd',
      () => [
        '/quotes',
        {
          customerId: holder.id,
          source: fromWallet(),
          destination: {
            type: 'bankCanada',
            details: { id: bankCanada.id, network: 'swift', accountHolder: 'customer' },
          },
        },
      ],
    ],
    [
      'a CAD bank payout',
      'basic',
      () => [
        '/quotes',
        {
          customerId: holder.id,
          source: fromWallet(),
          destination: {
            type: 'bankCanada',
            details: { id: bankCanada.id, network: 'local', accountHolder: 'customer' },
          },
        },
      ],
    ],
    [
      'a card sell',
      'usd',
      () => [
        '/quotes',
        {
          customerId: holder.id,
          source: fromWallet(),
          destination: { type: 'card', details: { externalAccountId: card.id } },
        },
      ],
    ],
    [
      'a card buy',
      'usd',
      () => [
        '/quotes',
        {
          customerId: holder.id,
          source: { type: 'card', details: { externalAccountId: card.id }, amount: '20.00' },
          destination: { type: 'walletOms', details: { id: wallet.id } },
        },
      ],
    ],
    [
      'a cash pickup',
      'usd',
      () => [
        '/quotes',
        {
          customerId: holder.id,
          source: { type: 'walletOms', details: { id: wallet.id } },
          destination: { type: 'cash', details: { asset: 'usd', ...PICKUP_LOCATION }, amount: '60.00' },
        },
      ],
    ],
    [
      'a cash-in',
      'usd',
      () => [
        '/cash-ins',
        {
          customerId: holder.id,
          source: { asset: 'usd' },
          destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: wallet.id } },
          cash: CASH_IN_LOCATION,
        },
      ],
    ],
  ];

  it.each(operations)(
    'refuses %s (%s endorsement never requested) with 422 and its error, storing nothing',
    async (operation, endorsement, request) => {
      const [path, body] = request();
      const before = await settledRowCounts(platform);
      const res = await post(path, body);
      const error = endorsement === 'usd' ? 'UsdEndorsementRequired' : 'BasicEndorsementRequired';
      expectError(res, 422, error, CODES[error]);
      expect(res.body.msg).toBe(`customer needs an active ${endorsement} endorsement`);
      expect(res.body.cause).toBe(
        `${operation} needs an active ${endorsement} endorsement, and customer ${holder.id}'s ${endorsement} endorsement was never requested: request it (POST /customers/${holder.id}/endorsements) and wait for endorsement.active`,
      );
      expect(await rowCounts(platform)).toEqual(before);
    },
  );

  it('refuses a custodial wallet to a customer without cryptoCustody the same way', async () => {
    const payer = await platform.endorsedCustomer(token, { lastName: 'Payer' }, ['basic', 'usd']);
    const before = await settledRowCounts(platform);
    const res = await post(`/customers/${payer.id}/wallets`, { asset: 'usdc', network: 'ethereum' });
    expectError(res, 422, 'CryptoCustodyEndorsementRequired', CODES.CryptoCustodyEndorsementRequired);
    expect(res.body.cause).toBe(
      `a custodial wallet needs an active cryptoCustody endorsement, and customer ${payer.id}'s cryptoCustody endorsement was never requested: request it (POST /customers/${payer.id}/endorsements) and wait for endorsement.active`,
    );
    expect(await rowCounts(platform)).toEqual(before);
  });

  it('asks nothing more than custody to move crypto between wallets', async () => {
    const quote = await post('/quotes', {
      customerId: holder.id,
      source: fromWallet('5.00'),
      destination: { type: 'walletOms', details: { id: otherWallet.id } },
    });
    expect(quote.status).toBe(201);
    expect((await post('/transactions', { quoteId: quote.body.id })).status).toBe(201);
  });

  it('takes each refused request as soon as the endorsement it named is active, on every service', async () => {
    // Sent while the others are checked, as a partner would: the sandbox approves them asynchronously.
    expect((await post(`/customers/${holder.id}/endorsements`, { name: 'usd' })).status).toBe(200);
    expect((await post(`/customers/${holder.id}/endorsements`, { name: 'basic' })).status).toBe(200);
    await eventually(async () =>
      (await get(`/customers/${holder.id}`)).body.endorsements.every((e: { status: string }) => e.status === 'active')
        ? true
        : undefined,
    );
    // The accounts service has them active now: quoting and cash-in ask it, so none of them waits on a copy.
    for (const [operation, , request] of operations) {
      const [path, body] = request();
      const res = await post(path, body);
      expect({ operation, path, status: res.status, error: res.body.error }).toEqual({
        operation,
        path,
        status: 201,
        error: undefined,
      });
    }
  });
});
