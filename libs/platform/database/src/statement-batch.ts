// Several statements in one round trip on one pg connection (UnitOfWork, ADR 0041):
// each statement's Parse (the first time this connection meets its text), Bind,
// Describe and Execute, then a single Sync, written in one write. PostgreSQL runs
// them in order and answers all of them in one flush, as it does a multi-statement
// query; but every value is bound as an extended-protocol parameter (never written
// into the SQL text) and every parameterised statement is prepared once per
// connection, so neither side parses or plans a statement again or lexes its values
// as literals. A prepared statement's columns are asked for (Describe) only until the
// connection has answered them once: PostgreSQL then sends its rows without a
// RowDescription, and they are read with the columns kept. Inside a transaction a
// failed statement aborts it; outside one, the statements up to the Sync are one
// implicit transaction: all or nothing.
//
// It is a pg "submittable", the extension point pg-cursor and pg-query-stream use:
// the client sends it when the connection is free and hands it the messages of its
// answer, in order. Every part of pg it uses beyond the public API comes from
// pg-internals.ts, whose contract test names what an upgrade of pg broke.
import type { PoolClient, QueryResult } from 'pg';
import {
  columnsOf,
  newResult,
  prepareValue,
  resultWithColumns,
  submit,
  typeParsersOf,
  type PgColumns,
  type PgConnection,
  type PgResult,
  type Submittable,
} from './pg-internals';

export interface Statement {
  sql: string;
  params?: unknown[];
}

/** The named statements a connection has prepared, as far as this process knows. */
interface Prepared {
  names: Set<string>;
  /**
   * Names a failed batch was parsing from its failed statement on: PostgreSQL may or may not have prepared
   * them. The next batch that needs one closes it first (closing a statement that does not exist is no
   * error), then parses it again.
   */
  uncertain: Set<string>;
  /**
   * The columns of a prepared statement's rows, as its first Describe answered them (null: it returns no
   * rows), with what reading them needs: kept while the statement stays prepared on the connection.
   */
  columns: Map<string, PgColumns | null>;
}

const preparedOn = new WeakMap<PoolClient, Prepared>();

/** A failed batch's error → the results of the statements that answered before it failed, in order. */
const answeredBeforeFailure = new WeakMap<object, QueryResult[]>();

/**
 * The results of the statements of a failed batch that answered before its failure (those ran; in a
 * transaction, a COMMIT among them committed), or undefined for an error that is not a batch's.
 */
export function answeredBefore(error: unknown): QueryResult[] | undefined {
  return typeof error === 'object' && error !== null ? answeredBeforeFailure.get(error) : undefined;
}

/** At most this many statement texts get a name; any beyond (none are expected) are parsed each time. */
const MAX_NAMED = 2000;
const names = new Map<string, string>();

/**
 * Connections to a pooler in transaction mode (PgBouncer before 1.21): each transaction may run on another
 * server connection, where a statement this one prepared does not exist. Every statement on them is parsed
 * unnamed, each time (docs/kubernetes.md, PgBouncer).
 */
const unnamedOnly = new WeakSet<object>();

/** From now on, `client` prepares no named statement (see unnamedOnly). */
export function prepareNothingOn(client: object): void {
  unnamedOnly.add(client);
}

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `mm_s_${names.size}`;
    names.set(text, name);
  }
  return name ?? '';
}

class StatementBatch implements Submittable {
  private readonly results: QueryResult[] = [];
  private current?: PgResult;
  /** By statement: its name, and whether this batch asked for its columns (else they are kept). */
  private plan: Array<{ name: string; describe: boolean }> = [];
  private rowError?: unknown;
  /** What this batch parses, by the index of its statement: prepared once that statement has answered. */
  private readonly parsing: Array<{ index: number; name: string }> = [];
  readonly done: Promise<QueryResult[]>;
  private resolve!: (results: QueryResult[]) => void;
  private reject!: (error: unknown) => void;

  constructor(
    private readonly statements: Statement[],
    private readonly prepared: Prepared,
    private readonly types: unknown,
    private readonly named: boolean,
  ) {
    this.done = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** pg: send the batch. An error returned here is answered before anything was written. */
  submit(connection: PgConnection): Error | null {
    let plan: Array<{ name: string; text: string; values: unknown[]; parse: boolean; describe: boolean }>;
    try {
      // Every value mapped first, as pg maps a bound parameter: a value that cannot be sent fails the
      // batch before any of it is written.
      plan = this.statements.map((s, index) => {
        const values = (s.params ?? []).map((v) => prepareValue(v));
        const name = this.named && values.length > 0 ? nameOf(s.sql) : '';
        const parse = name === '' || (!this.prepared.names.has(name) && !this.parsing.some((p) => p.name === name));
        if (parse && name !== '') this.parsing.push({ index, name });
        const describe = parse || !this.prepared.names.has(name) || !this.prepared.columns.has(name);
        return { name, text: s.sql, values, parse, describe };
      });
      this.plan = plan;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
    connection.stream.cork?.();
    try {
      for (const p of plan) {
        if (p.parse && this.prepared.uncertain.has(p.name)) connection.close({ type: 'S', name: p.name });
        if (p.parse) connection.parse({ name: p.name, text: p.text, types: [] });
        connection.bind({ portal: '', statement: p.name, values: p.values });
        if (p.describe) connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      }
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: unknown[] }): void {
    this.current = newResult(this.types);
    this.current.addFields(message.fields);
  }

  handleDataRow(message: { fields: unknown[] }): void {
    if (this.rowError) return;
    try {
      this.current ??= this.keptResult()!;
      this.current.addRow(this.current.parseRow(message.fields));
    } catch (error) {
      this.rowError = error;
    }
  }

  handleCommandComplete(message: unknown): void {
    const statement = this.plan[this.results.length];
    // A statement described here answered its columns (a RowDescription before its rows) or none (NoData).
    if (statement?.describe && statement.name !== '')
      this.prepared.columns.set(statement.name, this.current ? columnsOf(this.current) : null);
    const result = this.current ?? this.keptResult() ?? newResult(this.types);
    result.addCommandComplete(message);
    this.results.push(result);
    this.current = undefined;
  }

  /** The result of the statement now answering, with the columns kept for it, when this batch did not ask. */
  private keptResult(): PgResult | undefined {
    const statement = this.plan[this.results.length];
    if (!statement || statement.describe) return undefined;
    const columns = this.prepared.columns.get(statement.name);
    if (!columns) return undefined;
    return resultWithColumns(this.types, columns);
  }

  handleEmptyQuery(): void {
    this.results.push(newResult(this.types));
  }

  /** pg: an ErrorResponse (or the connection lost); nothing more of this batch arrives. */
  handleError(error: unknown): void {
    // The statements that answered were parsed; the failed one may have been; the rest were not (PostgreSQL
    // skips everything after an error up to the Sync).
    const failed = this.results.length;
    for (const { index, name } of this.parsing) this.settle(name, index < failed ? 'prepared' : 'uncertain');
    if (typeof error === 'object' && error !== null) answeredBeforeFailure.set(error, this.results);
    this.reject(error);
  }

  handleReadyForQuery(): void {
    for (const { name } of this.parsing) this.settle(name, 'prepared');
    if (this.rowError) return this.reject(this.rowError);
    this.resolve(this.results);
  }

  private settle(name: string, state: 'prepared' | 'uncertain'): void {
    if (state === 'prepared') {
      this.prepared.names.add(name);
      this.prepared.uncertain.delete(name);
    } else {
      this.prepared.names.delete(name);
      this.prepared.columns.delete(name);
      this.prepared.uncertain.add(name);
    }
  }

  handlePortalSuspended(): void {
    // Every Execute asks for all rows: never suspended.
  }

  handleCopyInResponse(): void {
    // No statement here copies.
  }

  handleCopyData(): void {
    // No statement here copies.
  }
}

/**
 * Sends the statements in one round trip on the client and answers each one's result, in order. Fails with
 * the first statement's failure; in a transaction that aborts it, outside one nothing of the batch stays.
 */
export function sendStatements(client: PoolClient, statements: Statement[]): Promise<QueryResult[]> {
  let prepared = preparedOn.get(client);
  if (!prepared) {
    prepared = { names: new Set(), uncertain: new Set(), columns: new Map() };
    preparedOn.set(client, prepared);
  }
  const batch = new StatementBatch(statements, prepared, typeParsersOf(client), !unnamedOnly.has(client));
  submit(client, batch);
  return batch.done;
}
