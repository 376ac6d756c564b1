// Issue 48, rebuilding read models (docs/kubernetes.md, Rebuilding a read model): after a bug in a projection or
// a hand edit, `npm run rebuild -- <service> [<read model>]` writes a service's read models again from its log
// while the service keeps answering. Here each rebuildable read model of a project is corrupted in the database
// (rows changed, one deleted, one no event made), the API is seen serving the corruption, the rebuild runs (the
// command for the transactions, the operator route for the rest) while partners' reads keep being answered,
// and every row comes back identical to what it was. Then the routes' refusals. Both modes.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { SERVICE_NAMES } from '@mm/contracts';
import { ADMIN_TOKEN, eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const ROOT = resolve(__dirname, '..');

/** Each read model that can be rebuilt, its service and its table (one row per aggregate, with its project). */
const READ_MODELS = [
  { service: 'accounts', readModel: 'customers', table: 'accounts.customers' },
  { service: 'quoting', readModel: 'quotes', table: 'quoting.quotes' },
  { service: 'transactions', readModel: 'transactions', table: 'transactions.transactions' },
  { service: 'cash-in', readModel: 'cash-ins', table: 'cash_in.cash_ins' },
  { service: 'deposit-addresses', readModel: 'deposit-addresses', table: 'deposit_addresses.addresses' },
  { service: 'virtual-accounts', readModel: 'virtual-accounts', table: 'virtual_accounts.accounts' },
] as const;

/** `npm run rebuild -- …` to its end. */
function rebuildCommand(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/rebuild/rebuild.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk));
  return new Promise((done) => child.once('exit', (code) => done({ code, output })));
}

describe('rebuilding read models from the log', () => {
  let platform: TestPlatform;
  let projectId: string;
  let token: string;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
    ({ projectId, token } = await platform.newProject('read model rebuild'));
    const features = { depositAddresses: true };
    expect((await platform.admin('PATCH', `/projects/${projectId}`, { body: { features } })).status).toBe(200);
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  const partner = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token, body });
  const created = async (method: string, path: string, body: unknown) => {
    const res = await partner(method, path, body);
    if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const until = (path: string, done: (body: any) => boolean) =>
    eventually(async () => {
      await partner('POST', '/sandbox/clock/advance', { seconds: 5 });
      const res = await partner('GET', path);
      return res.status === 200 && done(res.body) ? res.body : undefined;
    }, 30_000);

  /** This project's rows of every read model, as the database holds them. */
  const snapshot = async () => {
    const tables: Record<string, unknown[]> = {};
    for (const { table } of READ_MODELS)
      tables[table] = await platform.db.query(`SELECT * FROM ${table} WHERE project_id = $1 ORDER BY id`, [projectId]);
    return tables;
  };

  it('restores corrupted read models identical to the original while the service keeps answering', async () => {
    // One of each: customers, a wallet payout to a bank account (its quote accepted, the transaction completed),
    // a cash-in, a deposit address and a virtual account, each at rest.
    const ada = await platform.endorsedCustomer(token, {}, ['basic', 'cryptoCustody', 'usd']);
    const grace = await platform.endorsedCustomer(token, { firstName: 'Grace', lastName: 'Hopper' }, ['basic']);
    const wallet = await created('POST', `/customers/${ada.id}/wallets`, { asset: 'usdc', network: 'meridianchain' });
    expect((await partner('POST', `/sandbox/wallets/${wallet.id}/fund`, { amount: '500.00' })).status).toBe(200);
    const bank = await created('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId: ada.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    await until(`/external-accounts/${bank.id}`, (x) => x.status === 'active');
    const quote = await created('POST', '/quotes', {
      customerId: ada.id,
      source: { type: 'walletOms', details: { id: wallet.id }, amount: '25.00' },
      destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
    });
    const transaction = await created('POST', '/transactions', { quoteId: quote.id });
    await until(`/transactions/${transaction.id}`, (x) => x.status === 'completed');
    const cashIn = await created('POST', '/cash-ins', {
      customerId: ada.id,
      source: { asset: 'usd', indicatedAmount: '40.00' },
      destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: wallet.id } },
      cash: { locationId: 'loc_01m846c3h4e06945jf6mfht9tc', locationReference: 'BIGMART-1001' },
    });
    const address = await created('POST', '/deposit-addresses', {
      customerId: ada.id,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: { externalAccountId: bank.id },
      payout: { rail: 'ach' },
    });
    await until(`/deposit-addresses/${address.id}`, (x) => x.status === 'active');
    const account = await created('POST', '/virtual-accounts', {
      customerId: ada.id,
      source: { asset: 'usd', network: 'ach' },
      destination: { type: 'walletOms', walletId: wallet.id },
      accountHolder: 'customer',
      type: 'bankUs',
    });
    await until(`/virtual-accounts/${account.id}`, (x) => x.status === 'active');
    // At rest: two reads with every event consumed between them agree.
    const original = await eventually(async () => {
      const first = await snapshot();
      await platform.settle();
      const second = await snapshot();
      return JSON.stringify(first) === JSON.stringify(second) ? second : undefined;
    }, 30_000);
    for (const { table } of READ_MODELS)
      expect({ table, rows: original[table].length > 0 }).toEqual({ table, rows: true });

    // Corrupted: rows changed (one even to a later version), one deleted, one that no event made.
    const db = platform.db;
    await db.query(`UPDATE accounts.customers SET first_name = 'Mallory', endorsements = '[]' WHERE id = $1`, [
      grace.id,
    ]);
    await db.query(`UPDATE quoting.quotes SET status = 'open', transaction_id = NULL WHERE id = $1`, [quote.id]);
    await db.query(
      `UPDATE transactions.transactions SET status = 'failed', sub_status = 'failed.outboundFailed',
         view = jsonb_set(view, '{status}', '"failed"'), version = version + 100 WHERE id = $1`,
      [transaction.id],
    );
    await db.query(
      `INSERT INTO transactions.transactions (id, project_id, customer_ids, status, sub_status, view, version, created_at, updated_at)
       SELECT 'txn_01m900000000000000000000ff', project_id, customer_ids, status, sub_status,
         jsonb_set(view, '{id}', '"txn_01m900000000000000000000ff"'), version, created_at, updated_at
       FROM transactions.transactions WHERE id = $1`,
      [transaction.id],
    );
    await db.query(`DELETE FROM cash_in.cash_ins WHERE id = $1`, [cashIn.id]);
    await db.query(
      `UPDATE deposit_addresses.addresses SET status = 'frozen', view = jsonb_set(view, '{status}', '"frozen"') WHERE id = $1`,
      [address.id],
    );
    await db.query(
      `UPDATE virtual_accounts.accounts SET view = jsonb_set(view, '{metadata}', '{"edited": "by hand"}') WHERE id = $1`,
      [account.id],
    );
    // The API serves the read models: it shows the corruption.
    expect((await partner('GET', `/transactions/${transaction.id}`)).body.status).toBe('failed');
    expect((await partner('GET', `/customers/${grace.id}`)).body.firstName).toBe('Mallory');
    expect((await partner('GET', `/cash-ins/${cashIn.id}`)).status).toBe(404);

    // The transactions by the command, the others by the operator route (through the gateway in distributed
    // mode); partners' reads are answered all the while.
    let rebuilding = true;
    const reads: number[] = [];
    const reading = (async () => {
      while (rebuilding) {
        reads.push((await partner('GET', `/transactions/${transaction.id}`)).status);
        reads.push((await partner('GET', `/customers/${ada.id}`)).status);
      }
    })();
    const command = await rebuildCommand(['transactions'], { MM_URL: platform.url, MM_ADMIN_TOKEN: ADMIN_TOKEN });
    const routed = [];
    for (const { service, readModel } of READ_MODELS.filter((m) => m.service !== 'transactions'))
      routed.push(await platform.admin('POST', `/read-models/${service}/rebuild`, { body: { readModel } }));
    rebuilding = false;
    await reading;

    expect(command).toEqual({
      code: 0,
      output: expect.stringMatching(
        /^transactions transactions: \d+ rebuilt from the log, [1-9]\d* rows no event made deleted, in \d+ ms\n$/,
      ),
    });
    for (const res of routed) {
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual([
        { readModel: expect.any(String), streams: expect.any(Number), orphansRemoved: 0, tookMs: expect.any(Number) },
      ]);
      expect(res.body.data[0].streams).toBeGreaterThan(0);
    }
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((status) => status !== 200)).toEqual([]);
    expect(await snapshot()).toEqual(original);
    expect((await partner('GET', `/transactions/${transaction.id}`)).body.status).toBe('completed');
    expect((await partner('GET', `/cash-ins/${cashIn.id}`)).status).toBe(200);
    expect((await partner('GET', '/transactions/txn_01m900000000000000000000ff')).status).toBe(404);
  });

  it('lists what each service can rebuild, and rebuilds all of a service when none is named', async () => {
    const listed = await platform.admin('GET', '/read-models/transactions');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      service: 'transactions',
      data: [{ name: 'transactions', tables: ['transactions.transactions'] }],
    });
    expect((await platform.admin('GET', '/read-models/webhooks')).body).toEqual({ service: 'webhooks', data: [] });
    const all = await platform.admin('POST', '/read-models/quoting/rebuild', { body: {} });
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: { readModel: string }) => r.readModel)).toEqual(['quotes']);
    // Every service's, as the Kubernetes Job runs it.
    const everything = await rebuildCommand(['all'], { MM_URL: platform.url, MM_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(everything.code).toBe(0);
    const lines = everything.output.trim().split('\n');
    expect(lines.map((line) => line.split(/[ :]/)[0])).toEqual([...SERVICE_NAMES]);
    expect(lines).toContain('webhooks: no read model to rebuild');
    expect(lines.filter((line) => / rebuilt from the log, 0 rows no event made deleted/.test(line))).toHaveLength(6);
  });

  it('refuses partners, unknown services and read models, and bad bodies, changing nothing', async () => {
    expectError(await partner('POST', '/admin/read-models/transactions/rebuild', {}), 401, 'Unauthorized');
    expectError(await partner('GET', '/admin/read-models/transactions'), 401, 'Unauthorized');
    expectError(await platform.admin('GET', '/read-models/ledger'), 404, 'NotFound');
    expectError(await platform.admin('POST', '/read-models/ledger/rebuild', { body: {} }), 404, 'NotFound');
    const unknown = await platform.admin('POST', '/read-models/transactions/rebuild', { body: { readModel: 'nope' } });
    expectError(unknown, 400, 'InvalidRequest');
    expect(unknown.body.cause).toContain('it has transactions');
    for (const body of [{ readModel: 5 }, { readModel: 'Transactions;' }, { other: true }])
      expectError(await platform.admin('POST', '/read-models/transactions/rebuild', { body }), 400, 'InvalidRequest');
    const command = await rebuildCommand([], {});
    expect(command.code).toBe(2);
    expect(command.output).toContain('usage: npm run rebuild');
  });
});
