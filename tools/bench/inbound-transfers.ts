// "inbound transfer to transaction" in `npm run bench` (issue 20): one operation is
//   POST /v0.13/virtual-accounts/{id}/simulate/inbound-transfer {amount 1.00} -> 201 {transactionId}
//   GET  /v0.13/transactions/{transactionId}                                -> 200 processing, its precursor the account
// from each of N clients in a closed loop (the next operation once the last has answered), every client
// with a customer (endorsed for usd and cryptoCustody), a custodial USDC wallet and an active virtual
// account delivering to it (in a project of the bench's own), so clients never wait on one another's
// account lock. The transfer's answer names a transaction that exists already: the GET checks it is
// readable, `processing`, from this account, and the operation ends there. The ACH deposit settles after
// 60 s of project time and the USDC delivery a few seconds after that, so the measured window is the
// transfer and its transaction alone; after it the bench moves the project's clock and waits until no
// transaction is processing, and prints how long that took.
// Beside it, in the same run on the same PostgreSQL, a raw reference: what a minimal hand-written
// service would persist for the same work, with a `pg` Pool of N connections driven by N loops in this
// process (nothing else runs here meanwhile), in schema bench_raw_inbound (created, then dropped).
// The platform, read back after a transfer, writes (each table in one statement on the raw side):
//   commit 1  (virtual-accounts, the request's own transaction) the account's row read, its stream
//             locked and read (its lifecycle events) and checked active, the deposit's event
//             (virtualAccount.depositReceived) and its row, the idempotency row with the answer
//   commit 2  (transactions, once the deposit is committed, before the answer) the transaction's two
//             events (created, bank deposit leg initiated), its row (jsonb view), its two partner events
//             (transaction.statusChanged and virtualAccount.deposit.pending), the deposit leg's submission to its rail
// Two commits, because the platform cannot do with fewer: the deposit is recorded by one service and its
// transaction by another (separate processes in distributed mode), and the deposit must be durable before
// the transaction is made from it, so that a crash in between leaves a deposit the log still turns into
// its one transaction. Nothing is posted to the ledger while the bank deposit is pending: the accounts
// service posts the dollars in once the rail settles them, after the measured window.
// The raw side takes the account's lock with a SELECT ... FOR UPDATE of its row (the platform reads the
// row, then takes an advisory lock on its stream and reads the stream: one statement fewer on this side).
// The jsonb values are the platform's own (its events' data and metadata, its transaction view, its
// answer, its rail submission's records) read back from its database in this run, so both sides store the same bytes.
// At each client count both sides warm up, then take turns (compareSides): a measured run of the raw
// reference, then one of the platform, BENCH_ROUNDS times, each run once the platform's log readers are
// quiet. The first client count starts once the readers have read what the sections before it wrote,
// each later one once the platform's background work from the previous one has finished
// (the deposits settle, the USDC is delivered, the ledger posts them).
import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { Platform } from './deposits';
import {
  railTables,
  storedSubmission,
  submissionBytes,
  writeSubmission,
  type StoredSubmission,
} from './rail-submission';
import { compareSides, cpuLine, logReadersQuiet, roundsLine, roundsNote, type Figures } from './transfers';

export const INBOUND_SCENARIO = 'inbound transfer to transaction';

const AMOUNT = '1.00';
const NETWORK = 'ethereum';
/** Longest wait for the platform's transactions to finish before the next client count. */
const SETTLE_TIMEOUT_MS = 180_000;
const SCHEMA = 'bench_raw_inbound';

interface Options {
  clients: number[];
  durationSeconds: number;
  warmupSeconds: number;
}

interface BenchClient {
  customerId: string;
  virtualAccountId: string;
  /** Transfers made to this client's account. */
  transfers: number;
}

interface Sample {
  transfer: Record<string, unknown>;
  transaction: Record<string, unknown>;
}

/** The platform's side: virtual accounts over the deposit bench's HTTP client. */
class VirtualAccountsPlatform {
  readonly http: Platform;
  constructor(api: string, connections: number) {
    this.http = new Platform(api, connections);
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

  /** A customer endorsed for USD and custody, a custodial USDC wallet, and an active virtual account delivering to it. */
  async client(i: number): Promise<BenchClient> {
    const call = this.http.call.bind(this.http);
    const customer = await call<{ id: string }>('POST', '/customers', {
      type: 'individual',
      firstName: 'Bench',
      lastName: `Receiver${i}`,
      endorsements: ['usd', 'cryptoCustody'],
    });
    await this.until(`customer ${customer.id}'s endorsements`, async () => {
      const { endorsements } = await call<{ endorsements: Array<{ status: string }> }>(
        'GET',
        `/customers/${customer.id}`,
      );
      if (endorsements.some((e) => e.status === 'rejected'))
        throw new Error(`customer ${customer.id}'s endorsements were rejected`);
      return endorsements.every((e) => e.status === 'active') ? true : undefined;
    });
    const wallet = await call<{ id: string }>('POST', `/customers/${customer.id}/wallets`, {
      asset: 'usdc',
      network: NETWORK,
    });
    const account = await call<{ id: string }>('POST', '/virtual-accounts', {
      customerId: customer.id,
      source: { asset: 'usd', network: 'ach' },
      destination: { type: 'walletOms', walletId: wallet.id },
      accountHolder: 'customer',
      type: 'bankUs',
    });
    // The simulated bank partner provisions it a few seconds of project time later.
    await this.until(`virtual account ${account.id}`, async () => {
      await call('POST', '/sandbox/clock/advance', { seconds: 5 }, 200);
      const got = await call<{ status: string }>('GET', `/virtual-accounts/${account.id}`);
      if (got.status !== 'active' && got.status !== 'pending')
        throw new Error(`virtual account ${account.id} is ${got.status}`);
      return got.status === 'active' ? true : undefined;
    });
    return { customerId: customer.id, virtualAccountId: account.id, transfers: 0 };
  }

  /** One operation: the simulated inbound transfer, then its transaction read back. */
  async transfer(c: BenchClient): Promise<Sample> {
    const transfer = await this.http.call<{ transactionId: string }>(
      'POST',
      `/virtual-accounts/${c.virtualAccountId}/simulate/inbound-transfer`,
      { amount: AMOUNT },
    );
    c.transfers++;
    const transaction = await this.http.call<{ status: string; precursor?: { type: string; id: string } }>(
      'GET',
      `/transactions/${transfer.transactionId}`,
    );
    if (
      transaction.status !== 'processing' ||
      transaction.precursor?.type !== 'virtualAccount' ||
      transaction.precursor.id !== c.virtualAccountId
    ) {
      throw new Error(
        `transaction ${transfer.transactionId} is ${transaction.status} from ${transaction.precursor?.type} ${transaction.precursor?.id}, not processing from ${c.virtualAccountId}`,
      );
    }
    return { transfer, transaction };
  }

  /**
   * The ACH deposit settles after 60 s of project time, and the USDC delivery it starts a few seconds
   * later: the clock moves 61 s, then 6 s more each second while any client's transaction is still
   * processing (a delivery is scheduled only once its deposit settled). Returns the seconds it took.
   */
  async settled(clients: BenchClient[]): Promise<number> {
    const started = performance.now();
    const advance = (seconds: number) => this.http.call('POST', '/sandbox/clock/advance', { seconds }, 200);
    await advance(61);
    await advance(6);
    let advanced = performance.now();
    for (const c of clients) {
      for (;;) {
        const { data } = await this.http.call<{ data: unknown[] }>(
          'GET',
          `/transactions?customerId=${c.customerId}&status=processing&limit=1`,
        );
        if (data.length === 0) break;
        if (performance.now() - started > SETTLE_TIMEOUT_MS)
          throw new Error(
            `customer ${c.customerId} still has transactions processing after ${SETTLE_TIMEOUT_MS / 1000} s`,
          );
        if (performance.now() - advanced > 1000) {
          await advance(6);
          advanced = performance.now();
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return (performance.now() - started) / 1000;
  }
}

interface StoredEvent {
  type: string;
  data: unknown;
  metadata: unknown;
}

/** What the platform stored for one transfer, read back from its database: the raw side stores the same bytes. */
interface Stored {
  response: string;
  depositEvent: StoredEvent;
  transactionEvents: StoredEvent[];
  partnerEvents: StoredEvent[];
  view: string;
  /** The bank's reference of the transfer, in the deposit's row. */
  reference: string;
  submission: StoredSubmission;
}

async function stored(databaseUrl: string, sample: Sample): Promise<Stored> {
  const transactionId = String(sample.transfer.transactionId);
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const events = (schema: string, streamId: string) =>
      pool
        .query<StoredEvent>(
          `SELECT type, data, metadata FROM ${schema}.events WHERE stream_id = $1 ORDER BY stream_version`,
          [streamId],
        )
        .then((r) => r.rows);
    const [depositEvent] = await events('virtual_accounts', `virtualAccountDeposit-${transactionId}`);
    const transactionEvents = await events('transactions', `transaction-${transactionId}`);
    const partnerEvents = await events('transactions', `partner-${transactionId}`);
    const [{ view }] = (
      await pool.query<{ view: unknown }>(`SELECT view FROM transactions.transactions WHERE id = $1`, [transactionId])
    ).rows;
    const submission = await storedSubmission(pool, transactionId);
    if (!depositEvent || transactionEvents.length === 0 || partnerEvents.length === 0) {
      throw new Error(
        `transaction ${transactionId}: its rows were not all found (${transactionEvents.length} events, ${partnerEvents.length} partner events)`,
      );
    }
    return {
      response: JSON.stringify(sample.transfer),
      depositEvent,
      transactionEvents,
      partnerEvents,
      view: JSON.stringify(view),
      reference: (depositEvent.data as { deposit: { reference: string } }).deposit.reference,
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
        CREATE TABLE ${SCHEMA}.accounts (id text PRIMARY KEY, customer_id text NOT NULL, status text NOT NULL);
        CREATE TABLE ${SCHEMA}.deposits (
          transaction_id text PRIMARY KEY, customer_id text NOT NULL, virtual_account_id text NOT NULL REFERENCES ${SCHEMA}.accounts (id),
          amount numeric(38, 2) NOT NULL, rail text NOT NULL, reference text NOT NULL, disposition text NOT NULL,
          deposited_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX ON ${SCHEMA}.deposits (virtual_account_id, transaction_id);
        CREATE TABLE ${SCHEMA}.transactions (
          id text PRIMARY KEY, project_id text NOT NULL, customer_ids text[] NOT NULL, status text NOT NULL, sub_status text, view jsonb NOT NULL,
          version integer NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
        CREATE INDEX ON ${SCHEMA}.transactions USING gin (customer_ids);
        CREATE TABLE ${SCHEMA}.timers (
          id bigserial PRIMARY KEY, kind text NOT NULL, key text NOT NULL, payload jsonb NOT NULL, due_at timestamptz NOT NULL, UNIQUE (kind, key));
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
      ...[r.depositEvent, ...r.transactionEvents, ...r.partnerEvents].map(
        (e) => JSON.stringify(e.data) + JSON.stringify(e.metadata),
      ),
    ];
    return json.reduce((n, s) => n + Buffer.byteLength(s), submissionBytes(r.submission));
  }

  /** An active account per client. */
  async accounts(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => `va_${randomUUID().replace(/-/g, '')}`);
    await this.pool.query(
      `INSERT INTO ${SCHEMA}.accounts (id, customer_id, status) SELECT id, 'cst_' || id, 'active' FROM unnest($1::text[]) AS id`,
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

  async transfer(accountId: string): Promise<void> {
    const transactionId = `txn_${randomUUID().replace(/-/g, '')}`;
    const r = this.rows;
    let customerId = '';
    await this.inTransaction(async (db) => {
      const account = await db.query<{ customer_id: string }>(
        `SELECT customer_id FROM ${SCHEMA}.accounts WHERE id = $1 AND status = 'active' FOR UPDATE`,
        [accountId],
      );
      if (account.rowCount !== 1) throw new Error(`account ${accountId} not active`);
      customerId = account.rows[0].customer_id;
      await this.events(db, `virtualAccountDeposit-${transactionId}`, [r.depositEvent]);
      await db.query(
        `INSERT INTO ${SCHEMA}.deposits (transaction_id, customer_id, virtual_account_id, amount, rail, reference, disposition) VALUES ($1, $2, $3, $4, 'ach', $5, 'deliver')`,
        [transactionId, customerId, accountId, AMOUNT, r.reference],
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
        [transactionId, [customerId], r.view, r.transactionEvents.length],
      );
      await this.events(db, `partner-${transactionId}`, r.partnerEvents);
      await writeSubmission(db, SCHEMA, transactionId, `${transactionId}.1`, r.submission);
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

export async function benchInboundTransfers(
  api: string,
  adminToken: string,
  databaseUrl: string,
  options: Options,
): Promise<void> {
  const fixed = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 100 ? 1 : 0) : '-');
  const line = (cells: string[]) =>
    process.stdout.write(cells.map((c, i) => (i === 0 ? c.padEnd(32) : c.padStart(i === 6 ? 12 : 10))).join('') + '\n');
  process.stdout.write(
    `\n${INBOUND_SCENARIO}: a simulated ACH transfer of ${AMOUNT} usd to an active virtual account delivering USDC to a custodial wallet, then GET of its transaction, one operation, an account per client\n`,
  );
  process.stdout.write(roundsNote(options.durationSeconds));
  line(['scenario', 'clients', 'ops/s', 'p50 ms', 'p99 ms', 'errors', '1st/last s', 'ratio']);
  const platform = new VirtualAccountsPlatform(api, Math.max(...options.clients));
  await RawReference.create(databaseUrl);
  let bytes = 0;
  const counts = { events: 0, partnerEvents: 0 };
  const settleTimes: string[] = [];
  const ratios: string[] = [];
  try {
    await platform.http.project(adminToken, 'bench inbound transfers', {});
    // Every client count's clients first, each with one transfer before anything is timed (every account
    // works; the rows the raw side stores), then a wait until those transactions finish.
    const groups: BenchClient[][] = [];
    for (const clients of options.clients) {
      const group: BenchClient[] = [];
      for (let i = 0; i < clients; i++) group.push(await platform.client(i));
      groups.push(group);
    }
    const samples = await Promise.all(groups.flat().map((c) => platform.transfer(c)));
    const rows = await stored(databaseUrl, samples[0]);
    Object.assign(counts, { events: rows.transactionEvents.length, partnerEvents: rows.partnerEvents.length });
    await platform.settled(groups.flat());
    settleTimes.push(`log readers quiet ${fixed(await logReadersQuiet(databaseUrl))} s after setup`);

    for (const [g, clients] of options.clients.entries()) {
      const benchClients = groups[g];
      const raw = new RawReference(databaseUrl, clients, rows);
      try {
        bytes = raw.bodyBytes;
        const rawAccounts = await raw.accounts(clients);
        const rawError: { message?: string } = {};
        const rawOp = (client: number) => raw.transfer(rawAccounts[client]);

        const oursError: { message?: string } = {};
        const oursOp = async (client: number) => void (await platform.transfer(benchClients[client]));
        const comparison = await compareSides({
          clients,
          seconds: options.durationSeconds,
          warmupSeconds: options.warmupSeconds,
          databaseUrl,
          scenario: INBOUND_SCENARIO,
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
        row('transfer + GET transaction', ours, `${comparison.ratio.toFixed(2)} raw`);
        process.stdout.write(cpuLine(reference, ours));
        process.stdout.write(roundsLine(comparison));
        ratios.push(`${clients}: ${comparison.ratio.toFixed(2)}`);
        for (const [side, error] of [
          ['raw', rawError],
          ['platform', oursError],
        ] as const) {
          if (error.message) process.stdout.write(`  first ${side} error: ${error.message}\n`);
        }
        const transfers = benchClients.reduce((n, c) => n + c.transfers, 0);
        settleTimes.push(
          `${clients} clients: ${transfers} transactions finished ${fixed(await platform.settled(benchClients))} s after the run`,
        );
      } finally {
        await raw.close();
      }
    }
  } finally {
    await platform.http.close();
    await RawReference.drop(databaseUrl);
  }
  process.stdout.write(
    `ops/s: operations (a simulated inbound transfer and the GET of the transaction it names) finished per second over\n` +
      `  the measured runs, p50/p99 their latency, "1st/last s" how many finished in the first second of the\n` +
      `  first round and in the last of the last.\n` +
      `  "ratio" is the platform's ops/s divided by the raw reference's at the same client count: a pg Pool of as many\n` +
      `  connections as clients writing the rows the platform writes, two commits per operation (the account checked\n` +
      `  active under its lock, the deposit's event and row, the idempotency row; the transaction's ${counts.events} events, row\n` +
      `  and ${counts.partnerEvents} partner events, the deposit leg's submission to its rail: its record, the provider's and its timer), with the platform's own events, view and response\n` +
      `  (${bytes} bytes of jsonb in all), in schema ${SCHEMA} (dropped afterwards).\n` +
      `ratios by client count: ${ratios.join(', ')}. background: ${settleTimes.join('; ')}.\n`,
  );
}
