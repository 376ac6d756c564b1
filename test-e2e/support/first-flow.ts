// The first flow a new partner runs (the README's): a token, a customer endorsed for custody, a wallet, funded,
// and the customer's balance saying so. The smoke test runs it on every platform; the PgBouncer test behind it.
import type { TestPlatform } from './test-platform';

export async function firstFlow(platform: TestPlatform): Promise<void> {
  const token = await platform.token();
  // Custody of crypto needs the cryptoCustody endorsement, which the sandbox approves a moment after it is asked for.
  const customer = await platform.endorsedCustomer(token, {}, ['cryptoCustody']);
  const wallet = await platform.request('POST', `/v0.13/customers/${customer.id}/wallets`, {
    token,
    body: { asset: 'usdc', network: 'meridianchain' },
  });
  expect(wallet.status).toBe(201);
  const funded = await platform.request('POST', `/v0.13/sandbox/wallets/${wallet.body.id}/fund`, {
    token,
    body: { amount: '25.50' },
  });
  expect(funded.status).toBe(200);
  const balance = await platform.request('GET', `/v0.13/customers/${customer.id}/balance`, { token });
  expect(balance.status).toBe(200);
  expect(balance.body.data.totalBalance).toEqual({ totalUsd: '25.50', fiatUsd: '0.00', cryptoUsd: '25.50' });
}
