// One database transaction per command (ARCHITECTURE: a command handler appends
// its events, updates its read models and records the idempotency result in the
// SAME transaction). The current transaction travels in AsyncLocalStorage, so
// repositories need no transaction parameter and a nested run() joins the outer one.
//
// Statements go straight to the pg pool that TypeORM opened (TypeORM keeps the
// migrations): a query runner per statement cost more CPU than the statement,
// and every query answers its rows, whatever the command (TypeORM answers
// [rows, count] for UPDATE and DELETE).
//
// A statement sent on its own is a named prepared statement: PostgreSQL parses and
// plans it once per connection rather than on every call (a command's appends and
// joins cost as much to plan as to run).
//
// Round trips are what a command costs most (ADR 0021): BEGIN travels with the
// transaction's first statement, a write whose answer nobody needs (defer) travels
// with the next statement or with COMMIT, in order, so every later read of the
// transaction still sees it, and batch() sends several statements in one. Each of those is one simple-protocol query of several statements, with
// the parameters written in as literals by pg's own escaping; in READ COMMITTED
// every statement of it still takes its own snapshot, so a lock taken by one is
// seen by the reads after it. A parameterised statement in such a query is prepared
// too, by SQL PREPARE the first time a connection meets it and EXECUTE with the
// literals after, so batched statements are not parsed and planned on every call either.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';
import { inlineParameters, literal } from './inline-parameters';

export interface Statement {
  sql: string;
  params?: unknown[];
}

interface Transaction {
  client: PoolClient;
  /** BEGIN has been sent (with the first statement). */
  begun: boolean;
  /** Deferred writes, sent ahead of the next statement or COMMIT. */
  pending: Statement[];
  /** Run once the transaction has committed, before run() returns (afterCommit). */
  committed: Array<() => Promise<void>>;
  /** Savepoints open now (savepoint()), for their names. */
  savepoints: number;
}

export class UnitOfWork {
  private readonly current = new AsyncLocalStorage<Transaction>();

  constructor(readonly dataSource: DataSource) {}

  private get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  get inTransaction(): boolean {
    return this.current.getStore() !== undefined;
  }

  /** Runs fn in a transaction, or inside the caller's transaction if there is one. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.current.getStore()) return fn();
    const client = await this.pool.connect();
    const tx: Transaction = { client, begun: false, pending: [], committed: [], savepoints: 0 };
    let broken: Error | undefined;
    // pg emits 'error' on a checked-out client whose connection dies (PostgreSQL stopping, a network
    // cut); unheard, that would end the process. The statement under way fails on its own.
    const onError = (error: Error) => (broken = error);
    client.on('error', onError);
    let result: T;
    try {
      result = await this.current.run(tx, fn);
      // A transaction that wrote nothing has nothing to commit.
      if (tx.begun || tx.pending.length > 0) await this.send(tx, [{ sql: 'COMMIT' }]);
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
   * Runs fn once the current transaction has committed (and not at all if it rolls back), before the
   * outermost run() returns: for what must follow the commit before the caller is answered. Outside a
   * transaction, at once.
   */
  async afterCommit(fn: () => Promise<void>): Promise<void> {
    const tx = this.current.getStore();
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
    const tx = this.current.getStore();
    if (!tx) return this.run(fn);
    const name = `mm_sp_${++tx.savepoints}`;
    const mark: Statement = { sql: `SAVEPOINT ${name}` };
    tx.pending.push(mark);
    const callbacks = tx.committed.length;
    try {
      const result = await fn();
      tx.pending.push({ sql: `RELEASE SAVEPOINT ${name}` });
      return result;
    } catch (error) {
      tx.committed.length = callbacks;
      const unsent = tx.pending.indexOf(mark);
      if (unsent >= 0) {
        // Nothing of fn reached the database: forget what it queued.
        tx.pending.length = unsent;
      } else {
        // The SAVEPOINT went out, so everything still queued was queued by fn. The rollback to it travels
        // with the next statement (PostgreSQL runs a ROLLBACK TO even in a transaction a failed statement
        // aborted, and what follows it in the same query after it), unless this connection must first
        // ask which statements a failed batch prepared, which an aborted transaction cannot answer.
        // One statement per entry: the answers of a batch are matched to its entries one for one.
        tx.pending = [];
        const rollback = [{ sql: `ROLLBACK TO SAVEPOINT ${name}` }, { sql: `RELEASE SAVEPOINT ${name}` }];
        if (batchSessions.get(tx.client)?.synced === false) await tx.client.query(rollback.map((r) => r.sql).join('; '));
        else tx.pending.push(...rollback);
      }
      throw error;
    } finally {
      tx.savepoints--;
    }
  }

  /** Runs fn outside any caller transaction, in a transaction of its own. */
  async runDetached<T>(fn: () => Promise<T>): Promise<T> {
    return this.current.exit(() => this.run(fn));
  }

  /** The statement's rows, in the current transaction when there is one. */
  async query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    const tx = this.current.getStore();
    if (!tx) return (await this.pool.query(prepared(sql, params))).rows as T[];
    if (!tx.begun || tx.pending.length > 0) return (await this.send(tx, [{ sql, params }]))[0] as T[];
    return (await tx.client.query(prepared(sql, params))).rows as T[];
  }

  /**
   * Several statements in one round trip, each one's rows in order. In a transaction they run in
   * it; outside one, together in a transaction of their own.
   */
  async batch(statements: Statement[]): Promise<Array<Array<Record<string, unknown>>>> {
    const tx = this.current.getStore();
    if (!tx) return this.run(() => this.batch(statements));
    if (statements.length === 1) return [await this.query(statements[0].sql, statements[0].params)];
    return this.send(tx, statements);
  }

  /**
   * A write whose answer nobody waits for (an idempotency record, a read-model row, a timer): sent
   * ahead of the transaction's next statement, or with its COMMIT, in the order written, so it
   * commits with the transaction or not at all and every later statement sees it. Its failure is
   * the failure of the statement it travels with. Outside a transaction it runs at once.
   */
  async defer(sql: string, params: unknown[] = []): Promise<void> {
    const tx = this.current.getStore();
    if (!tx) {
      await this.pool.query(sql, params);
      return;
    }
    tx.pending.push({ sql, params });
  }

  /** The deferred writes and these statements as one simple-protocol query, BEGIN first if the transaction has not begun. */
  private async send(tx: Transaction, statements: Statement[]): Promise<Array<Array<Record<string, unknown>>>> {
    const ahead = [...(tx.begun ? [] : [{ sql: 'BEGIN' }]), ...tx.pending];
    // Marked before sending: whatever happens to the query, the transaction may have begun.
    tx.begun = true;
    tx.pending = [];
    const session = await batchSession(tx.client);
    const parts: string[] = [];
    const preparing: string[] = [];
    for (const s of [...ahead, ...statements]) {
      const name = s.params && s.params.length > 0 ? batchStatementName(s.sql) : undefined;
      if (name === undefined) {
        parts.push(inlineParameters(s.sql, s.params ?? []));
        continue;
      }
      if (!session.prepared.has(name) && !preparing.includes(name)) {
        parts.push(`PREPARE ${name} AS ${s.sql.trim().replace(/;+$/, '')}`);
        preparing.push(name);
      }
      parts.push(`EXECUTE ${name}(${s.params!.map(literal).join(', ')})`);
    }
    let answer: QueryResult | QueryResult[];
    try {
      answer = (await tx.client.query(parts.join(';\n'))) as unknown as QueryResult | QueryResult[];
    } catch (error) {
      // Which PREPAREs ran before the failure is unknown: the next batch on this connection asks.
      if (preparing.length > 0) session.synced = false;
      throw error;
    }
    for (const name of preparing) session.prepared.add(name);
    const results = (Array.isArray(answer) ? answer : [answer]).filter((r) => r.command !== 'PREPARE');
    return results.slice(ahead.length).map((r) => r.rows ?? []);
  }
}

/** The batch statements a connection has prepared (SQL PREPARE lasts as long as the session). */
interface BatchSession {
  prepared: Set<string>;
  /** False after a batch failed part-way: the set is read back from the server before the next one. */
  synced: boolean;
}

const batchSessions = new WeakMap<PoolClient, BatchSession>();

async function batchSession(client: PoolClient): Promise<BatchSession> {
  let session = batchSessions.get(client);
  if (!session) {
    session = { prepared: new Set(), synced: true };
    batchSessions.set(client, session);
  }
  if (!session.synced) {
    const rows = (await client.query(`SELECT name FROM pg_prepared_statements WHERE name LIKE 'mm\\_b\\_%'`)).rows as Array<{ name: string }>;
    session.prepared = new Set(rows.map((r) => r.name));
    session.synced = true;
  }
  return session;
}

const batchNames = new Map<string, string>();

/** The name a batched statement text is prepared under, on every connection; beyond the cap, none (it is inlined). */
function batchStatementName(text: string): string | undefined {
  let name = batchNames.get(text);
  if (name === undefined && batchNames.size < MAX_PREPARED) {
    name = `mm_b_${batchNames.size}`;
    batchNames.set(text, name);
  }
  return name;
}

/** At most this many statement texts are prepared by name; any beyond (none are expected) run unnamed. */
const MAX_PREPARED = 2000;
const statementNames = new Map<string, string>();

function prepared(text: string, values: unknown[]): QueryConfig {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED) {
    name = `mm_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}
