// "deposit to transaction" in `npm run bench` (issue 19): one operation is
//   POST /v0.13/deposit-addresses/{id}/simulate/crypto-deposit {amount 1.00, senderAddress} -> 201 {transactionId}
//   GET  /v0.13/transactions/{transactionId}                                              -> 200 processing, its precursor the address
// from each of N clients in a closed loop (the next operation once the last has answered), every client
// with a customer, a bank account and an active deposit address of its own (in a project of the bench's
// own, the feature turned on by the operator), so clients never wait on one another's address or
// customer lock. The deposit's answer names a transaction that exists already: the GET checks it is
// readable, `processing`, from this address, and the operation ends there. The ACH payout settles after
// 60 s of project time, so the measured window is the deposit and its transaction alone; after it the
// bench moves the project's clock and waits for every payout to settle, and prints how long that took.
// Beside it, in the same run on the same PostgreSQL, a raw reference: what a minimal hand-written
// service would persist for the same work, with a `pg` Pool of N connections driven by N loops in this
// process (nothing else runs here meanwhile), in schema bench_raw_deposits (created, then dropped).
// The platform, read back after a deposit, writes (each table in one statement on the raw side):
//   commit 1  (deposit-addresses, the request's own transaction) the address read under its lock and
//             checked active, the customer's lock row (upserted), the deposit's event and its row,
//             the idempotency row with the answer
//   commit 2  (transactions, once the deposit is committed, before the answer) the transaction's four
//             events (created, deposit leg initiated and settled, payout leg initiated), its row (jsonb
//             view), its five partner events (statusChanged and four leg events), the payout's submission to its rail;
//             and the ledger's event with its two entries (rail to transit), which the accounts service
//             posts from the transactions log just after the answer: the raw side writes them here
// Two commits, because the platform cannot do with fewer: the deposit is recorded by one service and its
// transaction by another (separate processes in distributed mode), and the deposit must be durable before
// the transaction is made from it, so that a crash in between leaves a deposit the log still turns into
// its one transaction. The ledger posting is a third commit on the platform's side, done after the
// answer; the raw side folds it into the second, which favours the raw side.
// The jsonb values are the platform's own (its events' data and metadata, its transaction view, its
// answer, its rail submission's records) read back from its database in this run, so both sides store the same bytes.
// At each client count both sides warm up, then take turns (compareSides): a measured run of the raw
// reference, then one of the platform, BENCH_ROUNDS times, each run once the platform's log readers are
// quiet. The first client count starts once the readers have read what the sections before it wrote,
// each later one once the platform's background work from the previous one has finished
// (the payouts settle, the ledger posts them).
import { randomBytes, randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { Agent, request } from 'undici';
import {
  railTables,
  storedSubmission,
  submissionBytes,
  writeSubmission,
  type StoredSubmission,
} from './rail-submission';
import { compareSides, cpuLine, logReadersQuiet, roundsLine, roundsNote, type Figures } from './transfers';

export const DEPOSITS_SCENARIO = 'deposit to transaction';

const AMOUNT = '1.00';
const NETWORK = 'ethereum';
/** Longest wait for the platform's payouts to settle before the next client count. */
const SETTLE_TIMEOUT_MS = 120_000;
const SCHEMA = 'bench_raw_deposits';

interface Options {
  clients: number[];
  durationSeconds: number;
  warmupSeconds: number;
}

interface BenchClient {
  customerId: string;
  depositAddressId: string;
  senderAddress: string;
  /** Deposits made at this client's address. */
  deposits: number;
}

interface Sample {
  deposit: Record<string, unknown>;
  transaction: Record<string, unknown>;
}

/** The platform's side: HTTP through undici with keep-alive, one connection per client. */
export class Platform {
  private readonly agent: Agent;
  private token = '';
  constructor(
    private readonly api: string,
    connections: number,
  ) {
    this.agent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 10_000, connections });
  }

  async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    expected = method === 'POST' ? 201 : 200,
    authorization = this.token,
  ): Promise<T> {
    const res = await request(`${this.api}${path}`, {
      method,
      headers: {
        authorization,
        ...(method === 'POST' ? { 'idempotency-key': randomUUID(), 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.agent,
    });
    const text = await res.body.text();
    if (res.statusCode !== expected) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  /** A project of the bench's own (its own clock), with deposit addresses enabled by the operator (or the features given). */
  async project(
    adminToken: string,
    name = 'bench deposits',
    features: Record<string, boolean> = { depositAddresses: true },
  ): Promise<void> {
    const admin = `Bearer ${adminToken}`;
    const project = await this.call<{ id: string }>('POST', '/admin/projects', { name, features }, 201, admin);
    const keys = await this.call<{ apiKey: string; apiSecret: string }>(
      'POST',
      `/admin/projects/${project.id}/api-keys`,
      undefined,
      201,
      admin,
    );
    const { accessToken } = await this.call<{ accessToken: string }>('POST', '/auth/token', keys, 200, '');
    this.token = `Bearer ${accessToken}`;
  }

  /** The Authorization header of the project made by project(). */
  get authorization(): string {
    return this.token;
  }

  private async until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
    const deadline = performance.now() + 60_000;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (performance.now() > deadline) throw new Error(`${what} did not happen in time`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** A customer endorsed for USD payouts, an active bank account, and an active deposit address paying to it over ACH. */
  async client(i: number): Promise<BenchClient> {
    const customer = await this.call<{ id: string }>('POST', '/customers', {
      type: 'individual',
      firstName: 'Bench',
      lastName: `Depositor${i}`,
      endorsements: ['usd'],
    });
    await this.until(`customer ${customer.id}'s endorsement`, async () => {
      const { endorsements } = await this.call<{ endorsements: Array<{ status: string }> }>(
        'GET',
        `/customers/${customer.id}`,
      );
      if (endorsements.some((e) => e.status === 'rejected'))
        throw new Error(`customer ${customer.id}'s endorsements were rejected`);
      return endorsements.every((e) => e.status === 'active') ? true : undefined;
    });
    const bank = await this.call<{ id: string }>('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId: customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    await this.until(`bank account ${bank.id}`, async () => {
      const account = await this.call<{ status: string }>('GET', `/external-accounts/${bank.id}`);
      if (account.status !== 'active' && account.status !== 'pending')
        throw new Error(`bank account ${bank.id} is ${account.status}`);
      return account.status === 'active' ? true : undefined;
    });
    const address = await this.call<{ id: string }>('POST', '/deposit-addresses', {
      customerId: customer.id,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: NETWORK,
      destination: { externalAccountId: bank.id },
      payout: { rail: 'ach' },
    });
    // The simulated custodian provisions it a couple of seconds of project time later.
    await this.until(`deposit address ${address.id}`, async () => {
      await this.call('POST', '/sandbox/clock/advance', { seconds: 5 }, 200);
      const got = await this.call<{ status: string }>('GET', `/deposit-addresses/${address.id}`);
      if (got.status !== 'active' && got.status !== 'pending')
        throw new Error(`deposit address ${address.id} is ${got.status}`);
      return got.status === 'active' ? true : undefined;
    });
    return {
      customerId: customer.id,
      depositAddressId: address.id,
      senderAddress: `0x${randomBytes(20).toString('hex')}`,
      deposits: 0,
    };
  }

  /** One operation: the simulated deposit, then its transaction read back. */
  async deposit(c: BenchClient): Promise<Sample> {
    const deposit = await this.call<{ transactionId: string }>(
      'POST',
      `/deposit-addresses/${c.depositAddressId}/simulate/crypto-deposit`,
      { amount: AMOUNT, senderAddress: c.senderAddress },
    );
    c.deposits++;
    const transaction = await this.call<{ status: string; precursor?: { id: string } }>(
      'GET',
      `/transactions/${deposit.transactionId}`,
    );
    if (transaction.status !== 'processing' || transaction.precursor?.id !== c.depositAddressId) {
      throw new Error(
        `transaction ${deposit.transactionId} is ${transaction.status} from ${transaction.precursor?.id}, not processing from ${c.depositAddressId}`,
      );
    }
    return { deposit, transaction };
  }

  /**
   * The ACH rail settles after 60 s of project time: the clock moves on, and this waits until no
   * client's transaction is still processing (paid out, the ledger posted). Returns the seconds it took.
   */
  async settled(clients: BenchClient[]): Promise<number> {
    const started = performance.now();
    await this.call('POST', '/sandbox/clock/advance', { seconds: 61 }, 200);
    for (const c of clients) {
      for (;;) {
        const { data } = await this.call<{ data: unknown[] }>(
          'GET',
          `/transactions?customerId=${c.customerId}&status=processing&limit=1`,
        );
        if (data.length === 0) break;
        if (performance.now() - started > SETTLE_TIMEOUT_MS)
          throw new Error(
            `customer ${c.customerId} still has transactions processing after ${SETTLE_TIMEOUT_MS / 1000} s`,
          );
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return (performance.now() - started) / 1000;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

interface StoredEvent {
  type: string;
  data: unknown;
  metadata: unknown;
}

/** What the platform stored for one deposit, read back from its database: the raw side stores the same bytes. */
interface Stored {
  response: string;
  depositEvent: StoredEvent;
  transactionEvents: StoredEvent[];
  partnerEvents: StoredEvent[];
  ledgerEvent: StoredEvent;
  view: string;
  submission: StoredSubmission;
}

async function stored(databaseUrl: string, sample: Sample): Promise<Stored> {
  const transactionId = String(sample.deposit.transactionId);
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const events = (schema: string, streamId: string) =>
      pool
        .query<StoredEvent>(
          `SELECT type, data, metadata FROM ${schema}.events WHERE stream_id = $1 ORDER BY stream_version`,
          [streamId],
        )
        .then((r) => r.rows);
    const [depositEvent] = await events('deposit_addresses', `depositAddressDeposit-${transactionId}`);
    const transactionEvents = await events('transactions', `transaction-${transactionId}`);
    const partnerEvents = await events('transactions', `partner-${transactionId}`);
    // The accounts service posts the crypto in from the transactions log, after the answer.
    let ledgerEvent: StoredEvent | undefined;
    for (
      const started = performance.now();
      !ledgerEvent && performance.now() - started < 30_000;
      await new Promise((r) => setTimeout(r, 100))
    ) {
      [ledgerEvent] = await events('accounts', `ledger-${transactionId}`);
    }
    const [{ view }] = (
      await pool.query<{ view: unknown }>(`SELECT view FROM transactions.transactions WHERE id = $1`, [transactionId])
    ).rows;
    const submission = await storedSubmission(pool, transactionId);
    if (!depositEvent || transactionEvents.length === 0 || partnerEvents.length === 0 || !ledgerEvent)
      throw new Error(`transaction ${transactionId}: its rows were not all found`);
    return {
      response: JSON.stringify(sample.deposit),
      depositEvent,
      transactionEvents,
      partnerEvents,
      ledgerEvent,
      view: JSON.stringify(view),
      submission,
    };
  } finally {
    await pool.end();
  }
}

/** The raw reference: the same rows, two commits per operation, straight to PostgreSQL. */
class RawReference {
  private readonly pool: Pool;
  constructor(
    databaseUrl: string,
    connections: number,
    private readonly rows: Stored,
  ) {
    this.pool = new Pool({ connectionString: databaseUrl, max: connections });
  }

  static async create(databaseUrl: string): Promise<void> {
    const pool = new Pool({ connectionString: databaseUrl, max: 1 });
    try {
      await pool.query(`
        DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE;
        CREATE SCHEMA ${SCHEMA};
        CREATE TABLE ${SCHEMA}.idempotency_keys (
          scope text NOT NULL, key text NOT NULL, request_hash text NOT NULL, response_status integer NOT NULL,
          response_body jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (scope, key));
        CREATE TABLE ${SCHEMA}.events (
          global_position bigserial PRIMARY KEY, stream_id text NOT NULL, stream_version integer NOT NULL, type text NOT NULL,
          data jsonb NOT NULL, metadata jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), UNIQUE (stream_id, stream_version));
        CREATE TABLE ${SCHEMA}.addresses (id text PRIMARY KEY, customer_id text NOT NULL, status text NOT NULL);
        CREATE TABLE ${SCHEMA}.customer_locks (customer_id text PRIMARY KEY);
        CREATE TABLE ${SCHEMA}.deposits (
          transaction_id text PRIMARY KEY, customer_id text NOT NULL, deposit_address_id text NOT NULL REFERENCES ${SCHEMA}.addresses (id),
          amount numeric(38, 6) NOT NULL, sender_address text NOT NULL, network text NOT NULL, disposition text NOT NULL, held text,
          deposited_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX ON ${SCHEMA}.deposits (deposit_address_id, transaction_id);
        CREATE TABLE ${SCHEMA}.transactions (
          id text PRIMARY KEY, project_id text NOT NULL, customer_ids text[] NOT NULL, status text NOT NULL, sub_status text, view jsonb NOT NULL,
          version integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX ON ${SCHEMA}.transactions USING gin (customer_ids);
        CREATE TABLE ${SCHEMA}.timers (
          id bigserial PRIMARY KEY, kind text NOT NULL, key text NOT NULL, payload jsonb NOT NULL, due_at timestamptz NOT NULL, UNIQUE (kind, key));
        CREATE TABLE ${SCHEMA}.ledger_entries (
          posting_id text NOT NULL, entry_no smallint NOT NULL, account text NOT NULL, asset text NOT NULL, amount numeric(38, 18) NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (posting_id, entry_no));
        ${railTables(SCHEMA)}`);
    } finally {
      await pool.end();
    }
  }

  static async drop(databaseUrl: string): Promise<void> {
    const pool = new Pool({ connectionString: databaseUrl, max: 1 });
    try {
      await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    } finally {
      await pool.end();
    }
  }

  get bodyBytes(): number {
    const r = this.rows;
    const json = [
      r.response,
      r.view,
      ...[r.depositEvent, r.ledgerEvent, ...r.transactionEvents, ...r.partnerEvents].map(
        (e) => JSON.stringify(e.data) + JSON.stringify(e.metadata),
      ),
    ];
    return json.reduce((n, s) => n + Buffer.byteLength(s), submissionBytes(r.submission));
  }

  /** An active address per client. */
  async addresses(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => `da_${randomUUID().replace(/-/g, '')}`);
    await this.pool.query(
      `INSERT INTO ${SCHEMA}.addresses (id, customer_id, status) SELECT id, 'cst_' || id, 'active' FROM unnest($1::text[]) AS id`,
      [ids],
    );
    return ids;
  }

  private async inTransaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** A multi-row insert of events into one stream, versions from 1. */
  private events(db: PoolClient, streamId: string, events: StoredEvent[]) {
    const values = events.map((_, i) => `($1, ${i + 1}, $${3 * i + 2}, $${3 * i + 3}, $${3 * i + 4})`).join(', ');
    return db.query(`INSERT INTO ${SCHEMA}.events (stream_id, stream_version, type, data, metadata) VALUES ${values}`, [
      streamId,
      ...events.flatMap((e) => [e.type, JSON.stringify(e.data), JSON.stringify(e.metadata)]),
    ]);
  }

  async deposit(addressId: string): Promise<void> {
    const transactionId = `txn_${randomUUID().replace(/-/g, '')}`;
    const r = this.rows;
    await this.inTransaction(async (db) => {
      const address = await db.query<{ customer_id: string }>(
        `SELECT customer_id FROM ${SCHEMA}.addresses WHERE id = $1 AND status = 'active' FOR UPDATE`,
        [addressId],
      );
      if (address.rowCount !== 1) throw new Error(`address ${addressId} not active`);
      const customerId = address.rows[0].customer_id;
      await db.query(
        `INSERT INTO ${SCHEMA}.customer_locks (customer_id) VALUES ($1) ON CONFLICT (customer_id) DO UPDATE SET customer_id = EXCLUDED.customer_id`,
        [customerId],
      );
      await this.events(db, `depositAddressDeposit-${transactionId}`, [r.depositEvent]);
      await db.query(
        `INSERT INTO ${SCHEMA}.deposits (transaction_id, customer_id, deposit_address_id, amount, sender_address, network, disposition) VALUES ($1, $2, $3, $4, '0x1111111111111111111111111111111111111111', $5, 'payout')`,
        [transactionId, customerId, addressId, AMOUNT, NETWORK],
      );
      await db.query(
        `INSERT INTO ${SCHEMA}.idempotency_keys (scope, key, request_hash, response_status, response_body) VALUES ('bench', $1, 'hash', 201, $2)`,
        [randomUUID(), r.response],
      );
    });
    await this.inTransaction(async (db) => {
      await this.events(db, `transaction-${transactionId}`, r.transactionEvents);
      await db.query(
        `INSERT INTO ${SCHEMA}.transactions (id, project_id, customer_ids, status, view, version) VALUES ($1, 'bench', $2, 'processing', $3, $4)`,
        [transactionId, [`cst_${addressId}`], r.view, r.transactionEvents.length],
      );
      await this.events(db, `partner-${transactionId}`, r.partnerEvents);
      await writeSubmission(db, SCHEMA, transactionId, `${transactionId}.2`, r.submission);
      await this.events(db, `ledger-${transactionId}`, [r.ledgerEvent]);
      await db.query(
        `INSERT INTO ${SCHEMA}.ledger_entries (posting_id, entry_no, account, asset, amount) VALUES ($1, 1, $2, 'usdc', -$3::numeric), ($1, 2, $4, 'usdc', $3::numeric)`,
        [`${transactionId}:deposit`, `rail:usdc:${NETWORK}`, AMOUNT, `transit:${transactionId}`],
      );
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

export async function benchDeposits(
  api: string,
  adminToken: string,
  databaseUrl: string,
  options: Options,
): Promise<void> {
  const fixed = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 100 ? 1 : 0) : '-');
  const line = (cells: string[]) =>
    process.stdout.write(cells.map((c, i) => (i === 0 ? c.padEnd(32) : c.padStart(i === 6 ? 12 : 10))).join('') + '\n');
  process.stdout.write(
    `\n${DEPOSITS_SCENARIO}: a simulated deposit of ${AMOUNT} usdc to an active address paying out over ACH, then GET of its transaction, one operation, an address per client\n`,
  );
  process.stdout.write(roundsNote(options.durationSeconds));
  line(['scenario', 'clients', 'ops/s', 'p50 ms', 'p99 ms', 'errors', '1st/last s', 'ratio']);
  const platform = new Platform(api, Math.max(...options.clients));
  await RawReference.create(databaseUrl);
  let bytes = 0;
  const settleTimes: string[] = [];
  const ratios: string[] = [];
  try {
    await platform.project(adminToken);
    // Every client count's clients first, each with one deposit before anything is timed (every address
    // works; the rows the raw side stores), then a wait until those payouts settle.
    const groups: BenchClient[][] = [];
    for (const clients of options.clients) {
      const group: BenchClient[] = [];
      for (let i = 0; i < clients; i++) group.push(await platform.client(i));
      groups.push(group);
    }
    const samples = await Promise.all(groups.flat().map((c) => platform.deposit(c)));
    const rows = await stored(databaseUrl, samples[0]);
    await platform.settled(groups.flat());
    settleTimes.push(`log readers quiet ${fixed(await logReadersQuiet(databaseUrl))} s after setup`);

    for (const [g, clients] of options.clients.entries()) {
      const benchClients = groups[g];
      const raw = new RawReference(databaseUrl, clients, rows);
      try {
        bytes = raw.bodyBytes;
        const rawAddresses = await raw.addresses(clients);
        const rawError: { message?: string } = {};
        const rawOp = (client: number) => raw.deposit(rawAddresses[client]);

        const oursError: { message?: string } = {};
        const oursOp = async (client: number) => void (await platform.deposit(benchClients[client]));
        const comparison = await compareSides({
          clients,
          seconds: options.durationSeconds,
          warmupSeconds: options.warmupSeconds,
          databaseUrl,
          scenario: DEPOSITS_SCENARIO,
          rawOp,
          oursOp,
          rawError,
          oursError,
        });
        const { reference, ours } = comparison;

        const row = (name: string, f: Figures, ratio: string) =>
          line([
            name,
            String(clients),
            fixed(f.rps),
            fixed(f.p50),
            fixed(f.p99),
            String(f.errors),
            `${f.firstSecond}/${f.lastSecond}`,
            ratio,
          ]);
        row('raw pg (two commits)', reference, '1.00');
        row('deposit + GET transaction', ours, `${comparison.ratio.toFixed(2)} raw`);
        process.stdout.write(cpuLine(reference, ours));
        process.stdout.write(roundsLine(comparison));
        ratios.push(`${clients}: ${comparison.ratio.toFixed(2)}`);
        for (const [side, error] of [
          ['raw', rawError],
          ['platform', oursError],
        ] as const) {
          if (error.message) process.stdout.write(`  first ${side} error: ${error.message}\n`);
        }
        const deposits = benchClients.reduce((n, c) => n + c.deposits, 0);
        settleTimes.push(
          `${clients} clients: ${deposits} payouts settled ${fixed(await platform.settled(benchClients))} s after the run`,
        );
      } finally {
        await raw.close();
      }
    }
  } finally {
    await platform.close();
    await RawReference.drop(databaseUrl);
  }
  process.stdout.write(
    `ops/s: operations (a simulated deposit and the GET of the transaction it names) finished per second over the measured\n` +
      `  runs, p50/p99 their latency, "1st/last s" how many finished in the first second of the\n` +
      `  first round and in the last of the last. "ratio" is the\n` +
      `  platform's ops/s divided by the raw reference's at the same client count: a pg Pool of as many connections as\n` +
      `  clients writing the rows the platform writes, two commits per operation (the address checked active under its\n` +
      `  lock, the customer's lock row, the deposit's event and row, the idempotency row; the transaction's four events,\n` +
      `  row and five partner events, the payout's submission to its rail, the ledger's event and two entries for the crypto in), with the\n` +
      `  platform's own events, view and response (${bytes} bytes of jsonb in all), in schema ${SCHEMA} (dropped afterwards).\n` +
      `ratios by client count: ${ratios.join(', ')}. background: ${settleTimes.join('; ')}.\n`,
  );
}
