// "quote + transaction creation" in `npm run bench`: one operation is
//   POST /v0.13/quotes        walletOms -> bankUs over ACH, source amount 1.00 -> 201 qt_…
//   POST /v0.13/transactions  {quoteId}                                      -> 201 processing / processing.fundsPulled
// from each of N clients in a closed loop (the next operation once the last has answered), every
// client with a customer, a funded source wallet and an active bank account of its own, so clients
// never wait on one another's wallet. Fresh clients at each client count. The ACH payout settles
// after 60 s of project time, so the measured window is creation alone; after it the bench moves the
// project's clock and waits for every payout to settle, and prints how long that took.
// Beside it, in the same run on the same PostgreSQL, a raw reference: what a minimal hand-written
// service would persist for the same work, with a `pg` Pool of N connections driven by N loops in
// this process (nothing else runs here meanwhile), in schema bench_raw_transfers (created, then dropped):
//   commit 1  the quote's event, its row (jsonb body) and its idempotency row
//   commit 2  accept the quote and its event, debit the balance row (`balance >= amount`) and its event,
//             two ledger entries, the transaction's three events, its row (jsonb body), its two
//             statusChanged events, the payout's submission to its rail, and the idempotency row
// (the rows the platform writes for the same work, each table in one statement)
// The jsonb bodies are the platform's own quote and transaction responses from this run, so both sides
// store the same bytes.
// At each client count both sides warm up, then take turns (compareSides): a measured run of the raw
// reference, then one of the platform, BENCH_ROUNDS times, each run once the platform's log readers are
// quiet. The first client count starts once the readers have read what the sections before it wrote,
// each later one once the platform's background work from the previous one has finished
// (the payouts settle, the ledger posts them).
import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { Agent, request } from 'undici';
import { cpuNow, cpuPerOp, cpuText, profileWindow, type CpuTimes } from './cpu';
import { railTables, WIRE_PAYOUT_SUBMISSION, writeSubmission } from './rail-submission';
import {
  addStatements,
  readStatements,
  resetStatements,
  STATEMENTS,
  statementsText,
  type StatementRow,
} from './statements';

export const TRANSFERS_SCENARIO = 'quote + transaction creation';

const AMOUNT = '1.00';
const FUNDING = '1000000';
/** Longest wait for the platform's payouts to settle before the next client count. */
const SETTLE_TIMEOUT_MS = 120_000;
const SCHEMA = 'bench_raw_transfers';

export interface Figures {
  ops: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Operations finished in the first and in the last whole second of the measured run. */
  firstSecond: number;
  lastSecond: number;
  /** CPU ms per operation of the processes doing the work (tools/bench/cpu.ts), where readable. */
  cpu?: Partial<CpuTimes>;
  /** Every operation's latency (ms, sorted) and the CPU ms the run took in all, for pooling runs. */
  latencies: number[];
  cpuUsed: Partial<CpuTimes>;
}

/** How each client count of a flow is measured (compareSides), under the section's title. */
export function roundsNote(seconds: number): string {
  return `each client count: both sides warmed up until their rate stopped rising, then ${ROUNDS} rounds of ${seconds} s of the raw reference followed by ${seconds} s of the platform (BENCH_ROUNDS), pooled\n`;
}

/** How long each side warmed up (warmUp), and the ratio of each round (compareSides). */
export function roundsLine(c: Comparison): string {
  return (
    `  warm-up until the rate stopped rising: raw ${c.warmUp.raw} s, platform ${c.warmUp.ours} s; ratio of each round: ${c.rounds.map((r) => r.toFixed(2)).join(' ')}\n` +
    c.statementLines
  );
}

/** The CPU line under a scenario's rows: what one operation cost each process, on each side. */
export function cpuLine(reference: Figures, ours: Figures): string {
  return `  cpu per operation: raw ${cpuText(reference.cpu, ['bench', 'postgres'])}; platform ${cpuText(ours.cpu, ['platform', 'postgres'])}\n`;
}

interface Options {
  clients: number[];
  durationSeconds: number;
  warmupSeconds: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Runs `op(client)` from every client in a closed loop for `seconds`; an operation counts when it
 * finishes inside the window.
 */
export async function closedLoop(
  clients: number,
  seconds: number,
  op: (client: number) => Promise<void>,
  firstError: { message?: string },
  /** The platform's measured window of this scenario: BENCH_PROFILE_CMD runs through it (tools/bench/cpu.ts). */
  profiled?: string,
): Promise<Figures> {
  const endProfile = profiled ? profileWindow(profiled, clients) : async () => undefined;
  const cpuBefore = cpuNow();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const latencies: number[] = [];
  const finished: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await op(client);
        } catch (error) {
          errors++;
          firstError.message ??= error instanceof Error ? error.message : String(error);
          await new Promise((r) => setTimeout(r, 10));
          continue;
        }
        const t1 = performance.now();
        if (t1 <= deadline) {
          latencies.push(t1 - t0);
          finished.push(t1 - started);
        }
      }
    }),
  );
  const cpuAfter = cpuNow();
  await endProfile();
  latencies.sort((a, b) => a - b);
  const inSecond = (s: number) => finished.filter((t) => t >= s * 1000 && t < (s + 1) * 1000).length;
  return {
    ops: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    firstSecond: inSecond(0),
    lastSecond: inSecond(Math.max(0, Math.floor(seconds) - 1)),
    cpu: cpuPerOp(cpuBefore, cpuAfter, latencies.length),
    latencies,
    cpuUsed: cpuPerOp(cpuBefore, cpuAfter, 1),
  };
}

/** Several measured runs of one side as one: their operations, latencies and CPU pooled. */
function pooled(runs: Figures[], seconds: number): Figures {
  const ops = runs.reduce((n, r) => n + r.ops, 0);
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const cpuUsed: Partial<CpuTimes> = {};
  for (const key of ['platform', 'bench', 'postgres'] as const) {
    if (runs.every((r) => r.cpuUsed[key] !== undefined)) cpuUsed[key] = runs.reduce((n, r) => n + r.cpuUsed[key]!, 0);
  }
  return {
    ops,
    rps: ops / (seconds * runs.length),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    firstSecond: runs[0].firstSecond,
    lastSecond: runs[runs.length - 1].lastSecond,
    cpu: Object.fromEntries(Object.entries(cpuUsed).map(([k, v]) => [k, ops > 0 ? v / ops : NaN])) as Partial<CpuTimes>,
    latencies,
    cpuUsed,
  };
}

export interface Comparison {
  reference: Figures;
  ours: Figures;
  /** ours.rps / reference.rps, and the same for each round. */
  ratio: number;
  rounds: number[];
  warmUp: { raw: number; ours: number };
  /** BENCH_PG_STATEMENTS: each side's statements per operation (tools/bench/statements.ts), else ''. */
  statementLines: string;
}

/** Measured rounds of each side at each client count (BENCH_ROUNDS). */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));

/**
 * One client count of a flow: each side warmed up, then ROUNDS rounds of a measured run of the raw
 * reference followed by one of the platform, each `seconds` long, pooled per side. Interleaved, so that
 * the machine's slower and faster minutes (other work on it moved single runs by a fifth to a third) fall
 * on both sides alike. Before each run the platform's log readers have finished what its last run left
 * them (at least a second's pause), so that neither side's trail of work is counted against the other.
 */
export async function compareSides(o: {
  clients: number;
  seconds: number;
  warmupSeconds: number;
  databaseUrl: string;
  scenario: string;
  rawOp: (client: number) => Promise<void>;
  oursOp: (client: number) => Promise<void>;
  rawError: { message?: string };
  oursError: { message?: string };
}): Promise<Comparison> {
  const rawWarmUp = await warmUp(o.clients, o.warmupSeconds, o.rawOp, o.rawError);
  const ourWarmUp = await warmUp(o.clients, o.warmupSeconds, o.oursOp, o.oursError);
  const raws: Figures[] = [];
  const ours: Figures[] = [];
  const statements = { raw: new Map<string, StatementRow>(), ours: new Map<string, StatementRow>() };
  for (let round = 0; round < ROUNDS; round++) {
    await logReadersQuiet(o.databaseUrl);
    if (STATEMENTS) await resetStatements(o.databaseUrl);
    raws.push(await closedLoop(o.clients, o.seconds, o.rawOp, o.rawError));
    // The same pause before the platform's run (its readers are quiet already: one second), so that
    // neither side starts on the other's trail of work in PostgreSQL.
    await logReadersQuiet(o.databaseUrl);
    if (STATEMENTS) {
      addStatements(statements.raw, await readStatements(o.databaseUrl));
      await resetStatements(o.databaseUrl);
    }
    ours.push(await closedLoop(o.clients, o.seconds, o.oursOp, o.oursError, o.scenario));
    if (STATEMENTS) {
      await logReadersQuiet(o.databaseUrl);
      addStatements(statements.ours, await readStatements(o.databaseUrl));
    }
  }
  const reference = pooled(raws, o.seconds);
  const mine = pooled(ours, o.seconds);
  const statementLines = STATEMENTS
    ? statementsText('raw', statements.raw, reference.ops) + statementsText('platform', statements.ours, mine.ops)
    : '';
  return {
    reference,
    ours: mine,
    ratio: mine.rps / reference.rps,
    rounds: ours.map((f, i) => f.rps / raws[i].rps),
    warmUp: { raw: rawWarmUp, ours: ourWarmUp },
    statementLines,
  };
}

/** The longest warm-up of one side at one client count, however its rate moves. */
const WARMUP_LIMIT_SECONDS = 30;

/**
 * Warms one side up at one client count: at least `minSeconds` of the closed loop, then one second more
 * at a time until the rate of operations has stopped rising (the last three seconds' mean within 5% of the
 * three before them), at most WARMUP_LIMIT_SECONDS. A fresh platform process runs each new code path
 * unoptimised first and compiles it on the way: a flow's rate kept rising for ten to fifteen seconds of
 * load, so a fixed three-second warm-up measured the compiler, not the steady state a partner's
 * sustained peak meets. Both sides warm up the same way; returns the seconds it took.
 */
export async function warmUp(
  clients: number,
  minSeconds: number,
  op: (client: number) => Promise<void>,
  firstError: { message?: string },
): Promise<number> {
  if (minSeconds <= 0) return 0;
  const rates: number[] = [];
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  while (rates.length < WARMUP_LIMIT_SECONDS) {
    rates.push((await closedLoop(clients, 1, op, firstError)).ops);
    if (rates.length < Math.max(minSeconds, 6)) continue;
    if (mean(rates.slice(-3)) <= 1.05 * mean(rates.slice(-6, -3))) break;
  }
  return rates.length;
}

interface BenchClient {
  customerId: string;
  sourceWalletId: string;
  bankAccountId: string;
  /** Transactions accepted for this client. */
  transfers: number;
}

interface Sample {
  quote: Record<string, unknown>;
  transaction: Record<string, unknown>;
}

/** The platform's side: HTTP through undici with keep-alive, one connection per client. */
class Platform {
  private readonly agent: Agent;
  constructor(
    private readonly api: string,
    private readonly authorization: string,
    connections: number,
  ) {
    // An idle connection is dropped after 10 s whatever the server's Keep-Alive hint says: between the
    // client counts some sit idle for a minute or more, and one reused as the server closes it at its
    // keep-alive timeout fails the request ("other side closed").
    this.agent = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 10_000, connections });
  }

  async call<T>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    expected = method === 'POST' ? 201 : 200,
  ): Promise<T> {
    const res = await request(`${this.api}${path}`, {
      method,
      headers: {
        authorization: this.authorization,
        ...(method === 'POST' ? { 'idempotency-key': randomUUID(), 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      dispatcher: this.agent,
    });
    const text = await res.body.text();
    if (res.statusCode !== expected) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  }

  async client(i: number): Promise<BenchClient> {
    // A wallet needs cryptoCustody, a USD bank payout usd (docs/endorsements.md); the sandbox approves them a moment later.
    const customer = await this.call<{ id: string }>('POST', '/customers', {
      type: 'individual',
      firstName: 'Bench',
      lastName: `Client${i}`,
      endorsements: ['cryptoCustody', 'usd'],
    });
    for (;;) {
      const { endorsements } = await this.call<{ endorsements: Array<{ status: string }> }>(
        'GET',
        `/customers/${customer.id}`,
      );
      if (endorsements.every((e) => e.status === 'active')) break;
      if (endorsements.some((e) => e.status === 'rejected'))
        throw new Error(`customer ${customer.id}'s endorsements were rejected`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const wallet = { asset: 'usdc', network: 'meridianchain' };
    const source = await this.call<{ id: string }>('POST', `/customers/${customer.id}/wallets`, wallet);
    await this.call('POST', `/sandbox/wallets/${source.id}/fund`, { amount: FUNDING }, 200);
    const bank = await this.call<{ id: string }>('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId: customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    for (;;) {
      const account = await this.call<{ status: string }>('GET', `/external-accounts/${bank.id}`);
      if (account.status === 'active') break;
      if (account.status !== 'pending') throw new Error(`bank account ${bank.id} is ${account.status}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { customerId: customer.id, sourceWalletId: source.id, bankAccountId: bank.id, transfers: 0 };
  }

  /** One operation: the quote, then the transaction accepting it. */
  async transfer(c: BenchClient): Promise<Sample> {
    const quote = await this.call<{ id: string }>('POST', '/quotes', {
      customerId: c.customerId,
      source: { type: 'walletOms', details: { id: c.sourceWalletId }, amount: AMOUNT },
      destination: { type: 'bankUs', details: { id: c.bankAccountId, network: 'ach', accountHolder: 'customer' } },
    });
    const transaction = await this.call<{ status: string; subStatus: string }>('POST', '/transactions', {
      quoteId: quote.id,
    });
    c.transfers++;
    if (transaction.status !== 'processing' || transaction.subStatus !== 'processing.fundsPulled') {
      throw new Error(
        `transaction ${transaction.status}/${transaction.subStatus}, not processing/processing.fundsPulled`,
      );
    }
    return { quote, transaction };
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

/** The raw reference: the same writes, two commits per operation, straight to PostgreSQL. */
class RawReference {
  private readonly pool: Pool;
  private readonly quoteBody: string;
  private readonly transactionBody: string;
  constructor(databaseUrl: string, connections: number, sample: Sample) {
    this.pool = new Pool({ connectionString: databaseUrl, max: connections });
    this.quoteBody = JSON.stringify(sample.quote);
    this.transactionBody = JSON.stringify(sample.transaction);
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
        CREATE TABLE ${SCHEMA}.quotes (
          id text PRIMARY KEY, project_id text NOT NULL, customer_id text NOT NULL, body jsonb NOT NULL, status text NOT NULL,
          transaction_id text, expires_at timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now());
        CREATE TABLE ${SCHEMA}.balances (
          wallet_id text PRIMARY KEY, balance numeric(38, 6) NOT NULL CHECK (balance >= 0), updated_at timestamptz NOT NULL DEFAULT now());
        CREATE TABLE ${SCHEMA}.ledger_entries (
          id bigserial PRIMARY KEY, transaction_id text NOT NULL, account text NOT NULL, amount numeric(38, 6) NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now());
        CREATE TABLE ${SCHEMA}.events (
          global_position bigserial PRIMARY KEY, stream_id text NOT NULL, stream_version integer NOT NULL, type text NOT NULL,
          data jsonb NOT NULL, metadata jsonb NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), UNIQUE (stream_id, stream_version));
        CREATE TABLE ${SCHEMA}.timers (
          id bigserial PRIMARY KEY, kind text NOT NULL, key text NOT NULL, payload jsonb NOT NULL, due_at timestamptz NOT NULL, UNIQUE (kind, key));
        CREATE TABLE ${SCHEMA}.transactions (
          id text PRIMARY KEY, project_id text NOT NULL, customer_id text NOT NULL, quote_id text NOT NULL UNIQUE, body jsonb NOT NULL,
          status text NOT NULL, sub_status text, created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now());
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

  get bodyBytes(): { quote: number; transaction: number } {
    return { quote: Buffer.byteLength(this.quoteBody), transaction: Buffer.byteLength(this.transactionBody) };
  }

  /** A funded balance row per client. */
  async wallets(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, () => `wal_${randomUUID().replace(/-/g, '')}`);
    await this.pool.query(`INSERT INTO ${SCHEMA}.balances (wallet_id, balance) SELECT unnest($1::text[]), $2`, [
      ids,
      FUNDING,
    ]);
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

  async transfer(walletId: string): Promise<void> {
    const quoteId = `qt_${randomUUID().replace(/-/g, '')}`;
    const transactionId = `txn_${randomUUID().replace(/-/g, '')}`;
    const customerId = 'cst_bench';
    await this.inTransaction(async (db) => {
      await db.query(
        `INSERT INTO ${SCHEMA}.events (stream_id, stream_version, type, data, metadata) VALUES ($1, 1, 'quote.created', $2, '{}')`,
        [`quote-${quoteId}`, this.quoteBody],
      );
      await db.query(
        `INSERT INTO ${SCHEMA}.quotes (id, project_id, customer_id, body, status, expires_at) VALUES ($1, 'bench', $2, $3, 'open', now() + interval '5 minutes')`,
        [quoteId, customerId, this.quoteBody],
      );
      await db.query(
        `INSERT INTO ${SCHEMA}.idempotency_keys (scope, key, request_hash, response_status, response_body) VALUES ('bench', $1, 'hash', 201, $2)`,
        [randomUUID(), this.quoteBody],
      );
    });
    await this.inTransaction(async (db) => {
      const accepted = await db.query(
        `UPDATE ${SCHEMA}.quotes SET status = 'accepted', transaction_id = $2, updated_at = now() WHERE id = $1 AND project_id = 'bench' AND status = 'open' AND expires_at > now()`,
        [quoteId, transactionId],
      );
      if (accepted.rowCount !== 1) throw new Error(`quote ${quoteId} not open`);
      await db.query(
        `INSERT INTO ${SCHEMA}.events (stream_id, stream_version, type, data, metadata) VALUES ($1, 2, 'quote.accepted', $2, '{}')`,
        [`quote-${quoteId}`, JSON.stringify({ quoteId, transactionId })],
      );
      const debited = await db.query(
        `UPDATE ${SCHEMA}.balances SET balance = balance - $1, updated_at = now() WHERE wallet_id = $2 AND balance >= $1`,
        [AMOUNT, walletId],
      );
      if (debited.rowCount !== 1) throw new Error(`wallet ${walletId} lacks ${AMOUNT}`);
      await db.query(
        `INSERT INTO ${SCHEMA}.events (stream_id, stream_version, type, data, metadata)
         SELECT $1, coalesce(max(stream_version), 0) + 1, 'wallet.debited', $2, '{}' FROM ${SCHEMA}.events WHERE stream_id = $1`,
        [`wallet-${walletId}`, JSON.stringify({ walletId, transactionId, amount: AMOUNT })],
      );
      await db.query(
        `INSERT INTO ${SCHEMA}.ledger_entries (transaction_id, account, amount) VALUES ($1, $2, -$3::numeric), ($1, 'in_transit', $3::numeric)`,
        [transactionId, walletId, AMOUNT],
      );
      // The transaction's events (created, funds pulled, payout initiated) and its two statusChanged events.
      await db.query(
        `INSERT INTO ${SCHEMA}.events (stream_id, stream_version, type, data, metadata) VALUES
           ($1, 1, 'transaction.created', $2, '{}'), ($1, 2, 'transaction.fundsPulled', '{}', '{}'), ($1, 3, 'transaction.legInitiated', '{}', '{}')`,
        [`transaction-${transactionId}`, this.transactionBody],
      );
      await db.query(
        `INSERT INTO ${SCHEMA}.transactions (id, project_id, customer_id, quote_id, body, status, sub_status) VALUES ($1, 'bench', $2, $3, $4, 'processing', 'processing.fundsPulled')`,
        [transactionId, customerId, quoteId, this.transactionBody],
      );
      await db.query(
        `INSERT INTO ${SCHEMA}.events (stream_id, stream_version, type, data, metadata) VALUES ($1, 1, 'partnerEvent.published', $2, '{}'), ($1, 2, 'partnerEvent.published', $2, '{}')`,
        [`partner-${transactionId}`, this.transactionBody],
      );
      await writeSubmission(db, SCHEMA, transactionId, `${transactionId}.1`, WIRE_PAYOUT_SUBMISSION);
      await db.query(
        `INSERT INTO ${SCHEMA}.idempotency_keys (scope, key, request_hash, response_status, response_body) VALUES ('bench', $1, 'hash', 201, $2)`,
        [randomUUID(), this.transactionBody],
      );
    });
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** Waits until no log reader's checkpoint has moved for a second (at most a minute); returns the seconds waited. */
export async function logReadersQuiet(databaseUrl: string): Promise<number> {
  const started = performance.now();
  const pool = new Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const positions = async () =>
      (
        await pool.query<{ p: string }>(
          `SELECT coalesce(sum(global_position), 0)::text AS p FROM platform.subscription_checkpoints`,
        )
      ).rows[0].p;
    let last = await positions();
    for (;;) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = await positions();
      if (now === last || performance.now() - started > 60_000) break;
      last = now;
    }
  } finally {
    await pool.end();
  }
  return (performance.now() - started) / 1000;
}

export async function benchTransfers(
  api: string,
  headers: Record<string, string>,
  databaseUrl: string,
  options: Options,
): Promise<void> {
  const fixed = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 100 ? 1 : 0) : '-');
  const line = (cells: string[]) =>
    process.stdout.write(cells.map((c, i) => (i === 0 ? c.padEnd(32) : c.padStart(i === 6 ? 12 : 10))).join('') + '\n');
  process.stdout.write(
    `\n${TRANSFERS_SCENARIO}: POST /quotes (walletOms to bankUs over ACH, ${AMOUNT}) then POST /transactions, one operation, a wallet and a bank account per client\n`,
  );
  process.stdout.write(roundsNote(options.durationSeconds));
  line(['scenario', 'clients', 'ops/s', 'p50 ms', 'p99 ms', 'errors', '1st/last s', 'ratio']);
  const platform = new Platform(api, headers.authorization, Math.max(...options.clients));
  await RawReference.create(databaseUrl);
  let bytes = { quote: 0, transaction: 0 };
  const settleTimes: string[] = [];
  try {
    // Every client count's clients first, each with one operation before anything is timed (every
    // pair works; the bodies the raw side stores), then a wait until those payouts settle.
    const groups: BenchClient[][] = [];
    for (const clients of options.clients) {
      const group: BenchClient[] = [];
      for (let i = 0; i < clients; i++) group.push(await platform.client(i));
      groups.push(group);
    }
    const samples = await Promise.all(groups.flat().map((c) => platform.transfer(c)));
    await platform.settled(groups.flat());
    // The sections before this one leave the platform's log readers a backlog (every customer the
    // POST /customers scenario made is an event each reader goes through): measure after it is read.
    settleTimes.push(`log readers quiet ${fixed(await logReadersQuiet(databaseUrl))} s after setup`);

    for (const [g, clients] of options.clients.entries()) {
      const benchClients = groups[g];
      const raw = new RawReference(databaseUrl, clients, samples[0]);
      try {
        bytes = raw.bodyBytes;
        const rawWallets = await raw.wallets(clients);
        const rawError: { message?: string } = {};
        const rawOp = (client: number) => raw.transfer(rawWallets[client]);

        const oursError: { message?: string } = {};
        const oursOp = async (client: number) => void (await platform.transfer(benchClients[client]));
        const comparison = await compareSides({
          clients,
          seconds: options.durationSeconds,
          warmupSeconds: options.warmupSeconds,
          databaseUrl,
          scenario: TRANSFERS_SCENARIO,
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
        row('POST /quotes + /transactions', ours, `${comparison.ratio.toFixed(2)} raw`);
        process.stdout.write(cpuLine(reference, ours));
        process.stdout.write(roundsLine(comparison));
        for (const [side, error] of [
          ['raw', rawError],
          ['platform', oursError],
        ] as const) {
          if (error.message) process.stdout.write(`  first ${side} error: ${error.message}\n`);
        }
        // Then the payouts settle (the clock moves past the ACH delay) and the ledger posts them: wait for
        // all of it, so the next client count (and the next section) starts on a quiet platform.
        const transfers = benchClients.reduce((n, c) => n + c.transfers, 0);
        settleTimes.push(
          `${clients} clients: ${transfers} payouts settled ${fixed(await platform.settled(benchClients))} s after the run`,
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
    `ops/s: operations (a quote and the transaction accepting it) finished per second over the measured runs, p50/p99 their\n` +
      `  latency, "1st/last s" how many finished in the first second of the\n` +
      `  first round and in the last of the last. "ratio" is the platform's ops/s divided\n` +
      `  by the raw reference's at the same client count: a pg Pool of as many connections as clients writing the rows the\n` +
      `  platform writes, two commits per operation (the quote's event, row and idempotency row; the quote accepted and its\n` +
      `  event, the balance debited where balance >= amount and its event, two ledger entries, the transaction's three\n` +
      `  events, row and two statusChanged events, the payout's timer, the idempotency row), with the platform's own quote\n` +
      `  (${bytes.quote} bytes) and transaction (${bytes.transaction} bytes) as jsonb, in schema ${SCHEMA} (dropped afterwards).\n` +
      `background: ${settleTimes.join('; ')}.\n`,
  );
}
