import { START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

describe('smoke: token -> customer (endorsed) -> wallet -> fund -> balance', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('moves through the first flow', async () => {
    const token = await platform.token();
    // Custody of crypto needs the cryptoCustody endorsement, which the sandbox approves a moment after it is asked for.
    const customer = { body: await platform.endorsedCustomer(token, {}, ['cryptoCustody']) };
    const wallet = await platform.request('POST', `/v0.13/customers/${customer.body.id}/wallets`, {
      token,
      body: { asset: 'usdc', network: 'meridianchain' },
    });
    expect(wallet.status).toBe(201);
    const funded = await platform.request('POST', `/v0.13/sandbox/wallets/${wallet.body.id}/fund`, {
      token,
      body: { amount: '25.50' },
    });
    expect(funded.status).toBe(200);
    const balance = await platform.request('GET', `/v0.13/customers/${customer.body.id}/balance`, { token });
    expect(balance.status).toBe(200);
    expect(balance.body.data.totalBalance).toEqual({ totalUsd: '25.50', fiatUsd: '0.00', cryptoUsd: '25.50' });
  });
});
