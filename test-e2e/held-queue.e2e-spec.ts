// Issue 22, the operator view's queue: GET /admin/transactions/held lists the transactions of every project
// that wait on an operator (spec: States / Transaction, the sub-statuses processing.underReview and
// processing.payoutUnconfirmed, and awaitingAction; Operator-only), with the project each belongs to, until an
// operator's action resolves them. Operator token only. Both modes.
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

describe('the operator queue: GET /admin/transactions/held', () => {
  let platform: TestPlatform;
  let projectId: string;
  let token: string;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
    ({ projectId, token } = await platform.newProject('dashboard held queue'));
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  const partner = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token, body });

  /** A wallet payout to a bank account for this amount, made and answered as created. */
  async function payout(amount: string): Promise<{ id: string }> {
    const customer = await platform.endorsedCustomer(token, {}, ['basic', 'cryptoCustody', 'usd']);
    const wallet = await partner('POST', `/customers/${customer.id}/wallets`, {
      asset: 'usdc',
      network: 'meridianchain',
    });
    expect((await partner('POST', `/sandbox/wallets/${wallet.body.id}/fund`, { amount: '500.00' })).status).toBe(200);
    const registered = await partner('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId: customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    expect(registered.status).toBe(201);
    await eventually(
      async () =>
        (await partner('GET', `/external-accounts/${registered.body.id}`)).body.status === 'active' ? true : undefined,
      30_000,
    );
    const quote = await partner('POST', '/quotes', {
      customerId: customer.id,
      source: { type: 'walletOms', details: { id: wallet.body.id }, amount },
      destination: { type: 'bankUs', details: { id: registered.body.id, network: 'ach', accountHolder: 'customer' } },
    });
    expect(quote.status).toBe(201);
    const transaction = await partner('POST', '/transactions', { quoteId: quote.body.id });
    expect(transaction.status).toBe(201);
    return transaction.body;
  }

  it('lists an unconfirmed payout with its project, until an operator resolves it; refuses partners and bad filters', async () => {
    // docs/sandbox.md: .95 goes unanswered, and after 300 s of project time the payout is unconfirmed.
    const held = await payout('25.95');
    expect((await partner('POST', '/sandbox/clock/advance', { seconds: 301 })).status).toBe(200);
    await eventually(
      async () =>
        (await partner('GET', `/transactions/${held.id}`)).body.subStatus === 'processing.payoutUnconfirmed'
          ? true
          : undefined,
      30_000,
    );

    const mine = await platform.admin('GET', `/transactions/held?projectId=${projectId}&limit=100`);
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ hasMore: false, nextCursor: null });
    expect(mine.body.data).toEqual([
      {
        object: 'heldTransaction',
        projectId,
        transaction: expect.objectContaining({
          id: held.id,
          status: 'processing',
          subStatus: 'processing.payoutUnconfirmed',
        }),
      },
    ]);
    // Across projects: the queue without a filter holds it too (other files' held transactions beside it).
    const everyProject = await eventually(async () => {
      const page = await platform.admin('GET', '/transactions/held?limit=100');
      return page.body.data.some((h: { transaction: { id: string } }) => h.transaction.id === held.id)
        ? page
        : undefined;
    });
    expect(everyProject.status).toBe(200);

    expectError(await platform.request('GET', '/v0.13/admin/transactions/held', { token }), 401, 'Unauthorized');
    expectError(await platform.admin('GET', '/transactions/held?projectId=not-a-project'), 400, 'InvalidRequest');
    expectError(await platform.admin('GET', '/transactions/held?limit=0'), 400, 'InvalidRequest');

    // Resolved (the provider has it: completed), it leaves the queue.
    const retried = await platform.admin('POST', `/transactions/${held.id}/retry`, {
      body: { reason: 'provider holds it' },
    });
    expect(retried.status).toBe(200);
    const after = await platform.admin('GET', `/transactions/held?projectId=${projectId}`);
    expect(after.body.data).toEqual([]);
  });
});
