// Issue 22, the operator view's queue: GET /admin/transactions/held lists the transactions of every project
// that wait on an operator (spec: States / Transaction, the sub-statuses processing.underReview and
// processing.payoutUnconfirmed, and awaitingAction; Operator-only), with the project each belongs to, until an
// operator's action resolves them. Operator token only. Both modes.
import { E2E_MODE, eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { bankPayout } from './support/bank-payout';

describe('the operator queue: GET /admin/transactions/held', () => {
  let platform: TestPlatform;
  let projectId: string;
  let token: string;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
    ({ projectId, token } = await platform.newProject('dashboard held queue'));
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  /** A series' value in a /metrics page, undefined when it is absent. */
  const sample = (page: string, name: string) => {
    const line = page.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };
  /** mm_transactions_ended_total of a status, summed over its sub-statuses. */
  const ended = (page: string, status: string) =>
    [
      ...page.matchAll(
        new RegExp(`^mm_transactions_ended_total\\{status="${status}",sub_status="[^"]*"\\} (\\d+)$`, 'gm'),
      ),
    ]
      .map((m) => Number(m[1]))
      .reduce((a, b) => a + b, 0);
  const partner = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token, body });

  /** A wallet payout to a bank account for this amount, made and answered as created. */
  async function payout(amount: string): Promise<{ id: string }> {
    return (await bankPayout(platform, token, amount)).transaction;
  }

  it('lists an unconfirmed payout with its project, until an operator resolves it; refuses partners and bad filters', async () => {
    // docs/sandbox.md: .95 goes unanswered, and after 300 s of project time the payout is unconfirmed.
    const held = await payout('25.95');
    // Its payout sent first: the 300 s run from the sending.
    await eventually(async () =>
      (await partner('GET', `/transactions/${held.id}`)).body.legs.some(
        (l: { kind: string; status: string }) => l.kind === 'payout' && l.status === 'pending',
      )
        ? true
        : undefined,
    );
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

    // On the transactions service's /metrics (docs/metrics.md): the queue's size across projects and its oldest
    // wait, the service's log readers' lag, and its timers due.
    const metrics = await platform.metrics('transactions');
    expect(sample(metrics, 'mm_held_transactions')).toBeGreaterThanOrEqual(1);
    expect(sample(metrics, 'mm_held_oldest_seconds')).toBeGreaterThanOrEqual(0);
    expect(metrics).toMatch(/^mm_reader_lag_events\{reader="[^"]+",source="transactions"\} \d+$/m);
    expect(metrics).toMatch(/^mm_reader_lag_seconds\{reader="[^"]+",source="transactions"\} [\d.e+-]+$/m);
    expect(metrics).toMatch(/^mm_timers_overdue\{kind="[^"]+"\} \d+$/m);
    // Over Kafka, how far the service's consumer group trails the topics it reads, as the broker tells.
    if (E2E_MODE === 'distributed' && process.env.KAFKA_BROKERS)
      expect(metrics).toMatch(/^mm_kafka_consumer_lag_messages\{group="[^"]+",topic="[^"]+\.events"\} \d+$/m);
    // Transactions by status and sub-status: this one among those not ended yet.
    expect(
      sample(metrics, 'mm_transactions_open{status="processing",sub_status="processing.payoutUnconfirmed"}'),
    ).toBeGreaterThanOrEqual(1);
    // The accounts service's ledger postings: the wallet's funding and the payout's pull among them.
    const accounts = await platform.metrics('accounts');
    expect(Number(/^mm_ledger_postings_total\{asset="usdc"\} (\d+)$/m.exec(accounts)?.[1])).toBeGreaterThanOrEqual(2);

    expectError(await platform.request('GET', '/v0.13/admin/transactions/held', { token }), 401, 'Unauthorized');
    expectError(await platform.admin('GET', '/transactions/held?projectId=not-a-project'), 400, 'InvalidRequest');
    expectError(await platform.admin('GET', '/transactions/held?limit=0'), 400, 'InvalidRequest');

    // Resolved (the provider has it: completed), it leaves the queue, and is counted among the ended.
    const completedSoFar = ended(await platform.metrics('transactions'), 'completed');
    const retried = await platform.admin('POST', `/transactions/${held.id}/retry`, {
      body: { reason: 'provider holds it' },
    });
    expect(retried.status).toBe(200);
    // The operators' audit log holds the action: the reason, the transaction as it was, and as it became.
    const audit = (await platform.admin('GET', `/audit-log?targetId=${held.id}`)).body.data;
    expect(audit.map((e: { phase: string; reason: string }) => [e.phase, e.reason])).toEqual([
      ['response', 'provider holds it'],
      ['request', 'provider holds it'],
    ]);
    expect(audit[0].before).toMatchObject({ id: held.id, subStatus: 'processing.payoutUnconfirmed' });
    expect(audit[0].after).toMatchObject({ result: retried.body.result, transaction: { id: held.id } });
    const after = await platform.admin('GET', `/transactions/held?projectId=${projectId}`);
    expect(after.body.data).toEqual([]);
    expect(ended(await platform.metrics('transactions'), 'completed')).toBeGreaterThan(completedSoFar);
  });

  it("names a held item's customer to operators: GET /admin/customers/{id}, any project's, never for a partner", async () => {
    const customer = await platform.endorsedCustomer(token, { firstName: 'Mary', lastName: 'Jackson' }, ['basic']);
    const read = await platform.admin('GET', `/customers/${customer.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...(await partner('GET', `/customers/${customer.id}`)).body, projectId });
    expect(read.body).toMatchObject({ id: customer.id, firstName: 'Mary', lastName: 'Jackson' });
    expectError(await platform.admin('GET', '/customers/cst_01m900000000000000000000aa'), 404, 'CustomerNotFound');
    expectError(await platform.admin('GET', '/customers/not-an-id'), 404, 'CustomerNotFound');
    expect((await partner('GET', `/admin/customers/${customer.id}`)).status).toBe(401);
  });
});
