// One database transaction per command (ARCHITECTURE: a command handler appends
// its events, updates its read models and records the idempotency result in the
// SAME transaction). The current transaction travels in the async scope (async-scope.ts), so
// repositories need no transaction parameter and a nested run() joins the outer one.
//
// Statements go straight to the pg pool that TypeORM opened (TypeORM keeps the
// migrations): a query runner per statement cost more CPU than the statement,
// and every query answers its rows, whatever the command (TypeORM answers
// [rows, count] for UPDATE and DELETE).
//
// Every parameterised statement is a named prepared statement: PostgreSQL parses and
// plans it once per connection rather than on every call (a command's appends and
// joins cost as much to plan as to run).
//
// Round trips are what a command costs most (ADR 0021, 0041): BEGIN travels with the
// transaction's first statement, a write whose answer nobody needs (defer) travels
// with the next statement or with COMMIT, in order, so every later read of the
// transaction still sees it, statements issued in the same tick (Promise.all) travel
// together, and batch() sends several statements at once. Statements that travel
// together go in one round trip (statement-batch.ts): one write of their
// extended-protocol messages with a single Sync, their parameters bound, never written
// into the SQL. In READ COMMITTED every statement takes its own snapshot, so a lock
// taken by one is seen by the reads after it; a failed statement fails the rest.
// A step that knows what a later step of the same transaction will read sends it
// ahead (prefetch), so that it travels in a round trip already being made.
import type { Pool, PoolClient, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';
import { inScope, scopedTransaction } from './async-scope';
import { poolOf } from './pg-internals';
import { answeredBefore, sendStatements, type Statement } from './statement-batch';

export type { Statement } from './statement-batch';

type Rows = Array<Record<string, unknown>>;

/**
 * Names a value one step of a transaction prefetches for a later step to take, and the type of that value:
 * the later step gets it typed, by the same key. One name per type of value (a key per wallet, say, when the
 * value is a wallet's).
 */
export class PrefetchKey<T> {
  /** Only to carry T: a key of one type of value is not a key of another. */
  declare private readonly valueType?: T;

  constructor(readonly name: string) {}
}

/** A value being read ahead, in the current transaction, of the step that needs it. */
export interface Prefetch<T> {
  /**
   * The value, once the round trip that carries its statements has answered. A guard's (below) is its
   * judge's value; asked for while the guard has not been sent yet, it is sent now with whatever is queued,
   * for a caller about to act where the transaction cannot undo it (another service's port across
   * processes). A guard that travels with COMMIT is never judged, and its result never settles.
   */
  readonly result: Promise<T>;
  /**
   * Its statements have answered (a guard's: and been judged). Still false after a failure that left them
   * unanswered (their batch failed, or the transaction was refused before they were sent).
   */
  readonly answered: boolean;
}

/** What a prefetch sends, and the key (if any) under which a later step takes it (UnitOfWork.prefetched). */
export type PrefetchSource<T> =
  /** A read issued now, as any query: its statements join the round trip this tick sends. */
  | { key?: PrefetchKey<T>; read: () => Promise<T> }
  /**
   * A guard of the transaction (an idempotency claim): statements that travel ahead of its first statement
   * rather than in a round trip of their own, in this order, each with a snapshot taken after the one before
   * has run (a lock, then a read that must see what the lock's previous holder committed). `judge` is given
   * their rows as soon as their batch answers, before any statement that travelled with or after them
   * answers its caller. A judge that throws refuses the transaction: the statements that travelled with the
   * guard and every one after fail with the judge's error, and the transaction never commits. A guard still
   * unsent at COMMIT travels with it and is not judged: the caller's own record in the same commit must make
   * a commit the guard would have refused fail instead (the idempotency record's unique key), so that a
   * commit that succeeds proves the guard.
   */
  | { key?: PrefetchKey<T>; guard: Statement[]; judge: (rows: Rows[]) => T };

/** A read's prefetch: its result is the read's. */
function readAhead<T>(read: Promise<T>): Prefetch<T> {
  // Its failure is also the failure of the statements it travelled with: only a caller that asks is told.
  read.catch(() => undefined);
  const prefetch = { result: read, answered: false };
  void read.then(() => (prefetch.answered = true)).catch(() => undefined);
  return prefetch;
}

/** A prefetch kept under its key until a later step takes it. */
interface Kept {
  prefetch: Prefetch<unknown>;
  /** A guard is kept when a savepoint rolls back: it was sent, or is still queued, ahead of the savepoint. */
  guard: boolean;
}

/** A statement on its way to the database in the current transaction, in the order it was written. */
interface Outgoing extends Statement {
  /** Given the statement's rows: a query or batch waits on them; a deferred write has none. */
  answer?: (rows: Rows) => void;
  /** Told the error when the statement's batch fails or the transaction is refused. */
  fail?: (error: unknown) => void;
  /** A guard's check (PrefetchSource): given its rows before any other answer of its batch. */
  check?: (rows: Rows) => void;
  /** Told the error when the guard's batch fails before it is checked. */
  lost?: (error: unknown) => void;
}

interface Transaction {
  client: PoolClient;
  /** BEGIN has been sent (with the first statement). */
  begun: boolean;
  /** Statements not sent yet, in order: a guard, deferred writes and the queries of this tick. */
  outbox: Outgoing[];
  /** A send of the outbox is due once this tick's other statements have joined it. */
  flushDue: boolean;
  /** A guard's judge refused the transaction: every later statement fails with this, and it never commits. */
  refusal?: { error: unknown };
  /** A batch that carried a guard failed before the guard was judged: the transaction cannot commit. */
  guardLost?: { error: unknown };
  /** The last send, which a caller with nothing to send but an answer to wait for waits on. */
  lastSend?: Promise<void>;
  /** Run once the transaction has committed, before run() returns (afterCommit). */
  committed: Array<() => Promise<void>>;
  /** Savepoints open now (savepoint()), for their names. */
  savepoints: number;
  /** Notifications to send once the transaction has committed (notifyOnCommit): channel → payloads. */
  notifications?: Map<string, Set<string>>;
  /** Prefetches a later step of this transaction takes (prefetched()), by their key's name. */
  prefetches?: Map<string, Kept>;
}

/**
 * NOTIFY after the commit: one statement, in the implicit transaction the batch's Sync ends (committed, or
 * rolled back should it fail, leaving the connection idle either way), with that transaction's commit made
 * asynchronous (set_config(…, true) holds for this transaction only).
 */
const NOTIFY_SQL = `SELECT set_config('synchronous_commit', 'off', true), pg_notify(n.channel, n.payload) FROM unnest($1::text[], $2::text[]) AS n (channel, payload)`;

function notifyStatements(notifications: Map<string, Set<string>>): Statement[] {
  const channels: string[] = [];
  const payloads: string[] = [];
  for (const [channel, set] of notifications) {
    for (const payload of set) {
      channels.push(channel);
      payloads.push(payload);
    }
  }
  return [{ sql: NOTIFY_SQL, params: [channels, payloads] }];
}

/**
 * A transaction's first statements. Its statements then use their generic plans from their first run: commands,
 * log readers and timers find and write rows by key, where a plan made for the values is the same plan, made
 * again at every run (PostgreSQL keeps planning for the values when a skewed column, such as the stream of
 * a wallet with thousands of events among streams of three, makes the generic plan look costlier, and for the
 * first five runs of each statement on each connection). Reads outside a transaction (lists with optional
 * filters and limits, whose plans do depend on the values) keep PostgreSQL's choice. ADR 0051.
 */
const BEGIN: Statement[] = [
  { sql: 'BEGIN' },
  { sql: `SELECT set_config('plan_cache_mode', $1, true)`, params: ['force_generic_plan'] },
];

export class UnitOfWork {
  constructor(readonly dataSource: DataSource) {}

  private get pool(): Pool {
    const pool = poolOf(this.dataSource);
    if (!pool) throw new Error('the database is not open');
    return pool;
  }

  get inTransaction(): boolean {
    return scopedTransaction<Transaction>(this) !== undefined;
  }

  /** Runs fn in a transaction, or inside the caller's transaction if there is one. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (scopedTransaction<Transaction>(this)) return fn();
    const client = await this.pool.connect();
    const tx: Transaction = { client, begun: false, outbox: [], flushDue: false, committed: [], savepoints: 0 };
    let broken: Error | undefined;
    // pg emits 'error' on a checked-out client whose connection dies (PostgreSQL stopping, a network
    // cut): the connection is then not given back to the pool. The statement under way fails on its own.
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    let result: T;
    try {
      result = await inScope({ owner: this, transaction: tx }, fn);
      if (tx.refusal) throw tx.refusal.error;
      if (tx.guardLost) throw tx.guardLost.error;
      // A transaction that wrote nothing has nothing to commit. Its notifications follow the COMMIT in the
      // same round trip (notifyOnCommit).
      if (tx.begun || tx.outbox.length > 0) {
        await this.transmit(
          tx,
          [...tx.outbox.splice(0), { sql: 'COMMIT' }],
          tx.notifications ? notifyStatements(tx.notifications) : [],
        );
      }
    } catch (error) {
      // A connection that cannot even roll back is not given back to the pool.
      if (tx.begun) await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
    // Committed, the connection given back: what waits on the commit runs before the caller goes on.
    for (const then of tx.committed) await then();
    return result;
  }

  /**
   * Sends a value's statements ahead of the step that needs it, in the current transaction: a read
   * (`read`), or a guard of the transaction (`guard`, judged by `judge`: see PrefetchSource). With a key, a
   * later step of the transaction takes it (prefetched()). Its failure is the failure of the statements it
   * travels with, or of whoever awaits its result.
   */
  prefetch<T>(source: PrefetchSource<T>): Prefetch<T> {
    const tx = scopedTransaction<Transaction>(this);
    if (!tx) throw new Error('prefetch() needs a transaction');
    const guard = 'guard' in source;
    const prefetch = guard ? this.sendGuard(tx, source.guard, source.judge) : readAhead(source.read());
    if (source.key) (tx.prefetches ??= new Map()).set(source.key.name, { prefetch, guard });
    return prefetch;
  }

  /**
   * The prefetch left under this key in the current transaction, taken (a later ask finds none): undefined
   * when there is none, outside a transaction, and once a savepoint has rolled back (a read prefetched within
   * it may have lost the locks it was read under).
   */
  prefetched<T>(key: PrefetchKey<T>): Prefetch<T> | undefined {
    const prefetches = scopedTransaction<Transaction>(this)?.prefetches;
    const kept = prefetches?.get(key.name);
    if (!kept) return undefined;
    prefetches!.delete(key.name);
    // Left under this key by prefetch(), which took a source of the key's type.
    return kept.prefetch as Prefetch<T>;
  }

  /** A guard's statements, first in the outbox; its result settles once they are judged (PrefetchSource). */
  private sendGuard<T>(tx: Transaction, statements: Statement[], judge: (rows: Rows[]) => T): Prefetch<T> {
    let settle!: { resolve: (value: T) => void; reject: (error: unknown) => void };
    const result = new Promise<T>((resolve, reject) => (settle = { resolve, reject }));
    // Its failure is also the failure of what travels with it: only a caller that asks for it is told.
    result.catch(() => undefined);
    let answered = false;
    let asked = false;
    const answers: Rows[] = [];
    const last = statements.length - 1;
    tx.outbox.unshift(
      ...statements.map((statement, i) => ({
        sql: statement.sql,
        params: statement.params ?? [],
        check: (rows: Rows) => {
          answers[i] = rows;
          if (i < last) return;
          answered = true;
          try {
            settle.resolve(judge(answers));
          } catch (error) {
            settle.reject(error);
            throw error;
          }
        },
        lost: (error: unknown) => settle.reject(error),
      })),
    );
    const send = () => this.enqueue(tx, []);
    return {
      get answered() {
        return answered;
      },
      get result() {
        // Nothing of its own to send: what waits on the outbox sends it (enqueue), once.
        if (!answered && !asked) void send().catch(() => undefined);
        asked = true;
        return result;
      },
    };
  }

  /**
   * Wakes the LISTENers of `channel` once the current transaction has committed (outside one, at once).
   * A NOTIFY in the writing transaction itself would make PostgreSQL hold its cluster-wide notify lock
   * from the commit's start until its WAL flush has finished, so that every notifying transaction of the
   * cluster, from every process, would flush its commit alone, one after another, instead of sharing
   * flushes with the others (group commit): at 8 clients, half the commits a second. So the notifications
   * travel after the COMMIT, in the same round trip, in a transaction of their own whose commit does not
   * wait for its flush (it wrote nothing else). Listeners hear of the commit after it is visible, as before.
   * Should the process die between the two, the notification is lost: every listener of the platform
   * polls as well (the log readers once a second when idle, the webhook worker four times).
   * The same channel and payload twice in a transaction notify once, as PostgreSQL would.
   */
  async notifyOnCommit(channel: string, payload: string): Promise<void> {
    const tx = scopedTransaction<Transaction>(this);
    if (!tx) {
      await this.batch(notifyStatements(new Map([[channel, new Set([payload])]])));
      return;
    }
    tx.notifications ??= new Map();
    let payloads = tx.notifications.get(channel);
    if (!payloads) tx.notifications.set(channel, (payloads = new Set()));
    payloads.add(payload);
  }

  /**
   * Runs fn once the current transaction has committed (and not at all if it rolls back), before the
   * outermost run() returns: for what must follow the commit before the caller is answered. Outside a
   * transaction, at once.
   */
  async afterCommit(fn: () => Promise<void>): Promise<void> {
    const tx = scopedTransaction<Transaction>(this);
    if (!tx) return fn();
    tx.committed.push(fn);
  }

  /**
   * Runs fn so that its failure undoes only its own statements: the caller's transaction goes on, as
   * if fn had never run (a statement that failed in fn does not abort the rest). For a step whose
   * failure the caller expects and handles, such as creating a stream another transaction may be
   * creating at the same moment. SAVEPOINT, RELEASE and, when fn fails, ROLLBACK TO SAVEPOINT travel
   * with the next statements (defer), so the step costs no round trip of its own either way; a failed
   * step's deferred writes and afterCommit callbacks are dropped with it. Outside a transaction, fn
   * runs in one of its own.
   */
  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const tx = scopedTransaction<Transaction>(this);
    if (!tx) return this.run(fn);
    const name = `mm_sp_${++tx.savepoints}`;
    const mark: Outgoing = { sql: `SAVEPOINT ${name}` };
    tx.outbox.push(mark);
    const callbacks = tx.committed.length;
    try {
      const result = await fn();
      tx.outbox.push({ sql: `RELEASE SAVEPOINT ${name}` });
      return result;
    } catch (error) {
      tx.committed.length = callbacks;
      // A read prefetched within fn may have lost the locks it was read under with the savepoint.
      for (const [name, kept] of tx.prefetches ?? []) if (!kept.guard) tx.prefetches!.delete(name);
      // A refused transaction is not resumed: it only rolls back.
      if (tx.refusal) throw error;
      const unsent = tx.outbox.indexOf(mark);
      if (unsent >= 0) {
        // Nothing of fn reached the database: forget what it queued.
        for (const dropped of tx.outbox.splice(unsent)) dropped.fail?.(error);
      } else {
        // The SAVEPOINT went out, so everything still queued was queued by fn. The rollback to it travels
        // with the next statement (PostgreSQL runs a ROLLBACK TO even in a transaction a failed statement
        // aborted, and the statements pipelined after it then run as usual).
        for (const dropped of tx.outbox.splice(0)) dropped.fail?.(error);
        tx.outbox.push({ sql: `ROLLBACK TO SAVEPOINT ${name}` }, { sql: `RELEASE SAVEPOINT ${name}` });
      }
      throw error;
    } finally {
      tx.savepoints--;
    }
  }

  /** Runs fn outside any caller transaction, in a transaction of its own. */
  async runDetached<T>(fn: () => Promise<T>): Promise<T> {
    return inScope({ owner: this, transaction: undefined }, () => this.run(fn));
  }

  /**
   * The statement's rows, in the current transaction when there is one. Statements a transaction's code
   * issues in the same tick (Promise.all of several reads) travel in one round trip, in the order issued.
   */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const tx = scopedTransaction<Transaction>(this);
    if (!tx) return (await this.batch([{ sql, params }]))[0] as T[];
    return (await this.enqueue(tx, [{ sql, params }]))[0] as T[];
  }

  /**
   * Several statements in one round trip, each one's rows in order. In a transaction they run in
   * it; outside one, as one implicit transaction of their own (a multi-statement query), all or nothing.
   */
  async batch(statements: Statement[]): Promise<Rows[]> {
    const tx = scopedTransaction<Transaction>(this);
    if (tx) return this.enqueue(tx, statements);
    // One statement too: pg's own query path copies its config and makes an event emitter per query, which
    // cost a read of one row about a tenth of the process's CPU.
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // As in run(): a connection that dies while checked out emits 'error' on the client.
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    try {
      return (await sendStatements(client, statements)).map((r) => r.rows ?? []);
    } catch (error) {
      // A statement that failed leaves the connection idle (its implicit transaction ended at the Sync),
      // unless the connection itself is gone.
      if (!(error instanceof Error && 'code' in error)) broken ??= error as Error;
      throw error;
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /**
   * A write whose answer nobody waits for (an idempotency record, a read-model row, a timer): sent
   * ahead of the transaction's next statement, or with its COMMIT, in the order written, so it
   * commits with the transaction or not at all and every later statement sees it. Its failure is
   * the failure of the statement it travels with. Outside a transaction it runs at once.
   */
  async defer(sql: string, params: unknown[] = []): Promise<void> {
    const tx = scopedTransaction<Transaction>(this);
    if (!tx) {
      await this.pool.query(sql, params);
      return;
    }
    if (tx.refusal) throw tx.refusal.error;
    tx.outbox.push({ sql, params });
  }

  /** Queues statements whose rows a caller waits for; the outbox goes out once this tick has queued its others. */
  private enqueue(tx: Transaction, statements: Statement[]): Promise<Rows[]> {
    if (tx.refusal) return Promise.reject(tx.refusal.error);
    return new Promise<Rows[]>((resolve, reject) => {
      const rows: Rows[] = new Array(statements.length);
      let left = statements.length;
      if (left === 0) {
        // Nothing of its own to send: it waits for the outbox (a guard) to be answered.
        tx.outbox.push({ sql: '', answer: () => resolve(rows), fail: reject });
      }
      statements.forEach((statement, i) =>
        tx.outbox.push({
          ...statement,
          answer: (r) => {
            rows[i] = r;
            if (--left === 0) resolve(rows);
          },
          fail: reject,
        }),
      );
      if (!tx.flushDue) {
        tx.flushDue = true;
        // After the microtasks of this tick: the other branches of a Promise.all have queued theirs by then.
        process.nextTick(() => {
          tx.flushDue = false;
          // Only when someone waits on an answer: deferred writes wait for the next statement or COMMIT.
          if (tx.outbox.some((o) => o.answer)) void this.transmit(tx, tx.outbox.splice(0)).catch(() => undefined);
        });
      }
    });
  }

  /**
   * Sends these statements (BEGIN first if the transaction has not begun) in one round trip, runs the
   * guards' checks on their rows in order, then answers each statement's caller. However many they are, they
   * go as one extended-protocol batch (statement-batch.ts).
   * A caller with nothing to send (a guard's result asked for) is answered once the sends before it have been.
   */
  private transmit(tx: Transaction, entries: Outgoing[], trailing: Statement[] = []): Promise<void> {
    const before = tx.lastSend;
    const send = this.send(tx, entries, before, trailing);
    tx.lastSend = send.catch(() => undefined);
    return send;
  }

  /** `trailing`: statements after the entries in the same round trip (after a COMMIT), whose answers nobody needs. */
  private async send(
    tx: Transaction,
    entries: Outgoing[],
    before: Promise<void> | undefined,
    trailing: Statement[],
  ): Promise<void> {
    const sent = entries.filter((e) => e.sql !== '');
    try {
      if (tx.refusal) throw tx.refusal.error;
      let results: QueryResult[] = [];
      if (sent.length === 0) {
        await before;
      } else {
        const ahead = tx.begun ? [] : BEGIN;
        // Marked before sending: whatever happens to the query, the transaction may have begun.
        tx.begun = true;
        const count = ahead.length + sent.length;
        try {
          results = (await sendStatements(tx.client, [...ahead, ...sent, ...trailing])).slice(ahead.length, count);
        } catch (error) {
          // Only a trailing statement failed: everything before it, the COMMIT included, went through. The
          // notifications are lost, which the listeners' polling covers.
          const answered = answeredBefore(error);
          if (trailing.length > 0 && answered && answered.length >= count) {
            results = answered.slice(ahead.length, count);
          } else {
            if (sent.some((e) => e.check)) tx.guardLost ??= { error };
            for (const e of sent) e.lost?.(error);
            throw error;
          }
        }
      }
      // The guards first: a refusal answers nobody's statement, and refuses the rest of the transaction. (A
      // commit that succeeded proved its guard: see PrefetchSource.)
      const committing = sent[sent.length - 1]?.sql === 'COMMIT';
      for (const [i, e] of sent.entries()) {
        if (!e.check || committing) continue;
        try {
          e.check(results[i].rows ?? []);
        } catch (error) {
          tx.refusal = { error };
          throw error;
        }
      }
      // (Refused by the check of a batch sent before this one.)
      if (tx.refusal) throw (tx.refusal as { error: unknown }).error;
      // PostgreSQL answers COMMIT of a transaction a failed statement aborted with ROLLBACK, and no error.
      if (committing && results[results.length - 1]?.command === 'ROLLBACK') {
        throw new Error('the transaction was rolled back: one of its statements had failed');
      }
      sent.forEach((e, i) => e.answer?.(results[i].rows ?? []));
      for (const e of entries) if (e.sql === '') e.answer?.([]);
    } catch (error) {
      for (const e of entries) e.fail?.(error);
      throw error;
    }
  }
}
