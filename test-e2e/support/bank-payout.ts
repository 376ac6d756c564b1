// A wallet payout to a US bank account over ACH, made through the partner API as a test's set-up: a customer
// (endorsed for it), a funded custodial wallet, an account the sandbox has made active, a quote and the
// transaction that accepts it. The amount's cents choose how the sandbox's provider answers (docs/sandbox.md).
import { eventually, type TestPlatform } from './test-platform';

export interface BankPayout {
  /** The transaction as POST /transactions answered it. */
  transaction: { id: string; customerId: string; [field: string]: any };
  customerId: string;
  quoteId: string;
  accountId: string;
}

export async function bankPayout(
  platform: TestPlatform,
  token: string,
  amount: string,
  customerFields: Record<string, unknown> = {},
): Promise<BankPayout> {
  const api = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token, body });
  const customer = await platform.endorsedCustomer(token, customerFields, ['basic', 'cryptoCustody', 'usd']);
  const wallet = await api('POST', `/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' });
  expect((await api('POST', `/sandbox/wallets/${wallet.body.id}/fund`, { amount: '500.00' })).status).toBe(200);
  const account = await api('POST', '/external-accounts', {
    owner: { kind: 'customer', customerId: customer.id },
    type: 'bankUs',
    bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
  });
  expect(account.status).toBe(201);
  await eventually(
    async () =>
      (await api('GET', `/external-accounts/${account.body.id}`)).body.status === 'active' ? true : undefined,
    30_000,
  );
  const quote = await api('POST', '/quotes', {
    customerId: customer.id,
    source: { type: 'walletOms', details: { id: wallet.body.id }, amount },
    destination: { type: 'bankUs', details: { id: account.body.id, network: 'ach', accountHolder: 'customer' } },
  });
  expect(quote.status).toBe(201);
  const transaction = await api('POST', '/transactions', { quoteId: quote.body.id });
  expect(transaction.status).toBe(201);
  return { transaction: transaction.body, customerId: customer.id, quoteId: quote.body.id, accountId: account.body.id };
}
