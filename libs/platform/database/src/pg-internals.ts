// Everything of `pg` (and of TypeORM's hold on it) that its public API does not
// offer and the UnitOfWork relies on, in one place: statement-batch.ts sends a
// transaction's statements as one extended-protocol batch (ADR 0041), which pg's
// own query path cannot. Each item below is exercised by name in
// libs/platform/testing/src/pg-internals.int-spec.ts, so an upgrade of `pg` or
// TypeORM that changes one fails there first, saying which.
//
//   submittable      client.query(object with submit()), the extension point
//                    pg-cursor and pg-query-stream use: the client hands it the
//                    connection to write on, then the messages of its answer
//   PgConnection     the message writers of pg/lib/connection the batch calls
//   PgResult         pg/lib/result, which reads a statement's rows as pg does
//   prepareValue     pg/lib/utils: a bound parameter mapped as pg maps it
//   typeParsersOf    a client's type parsers (its `types` option): Client#_types
//   poolOf           the pg Pool TypeORM's postgres driver opened: driver.master
import type { Pool, PoolClient, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';

/** What pg's Result is given and answers (pg/lib/result); @types/pg declares only its fields. */
export interface PgResult extends QueryResult {
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): Record<string, unknown>;
  addRow(row: Record<string, unknown>): void;
  addCommandComplete(message: unknown): void;
}

/** What a PgResult holds after addFields(): the columns, their type parsers and an empty row of them. */
export type PgColumns = Pick<PgResult, 'fields'> & { _parsers: unknown; _prebuiltEmptyResultObject: unknown };

/* eslint-disable @typescript-eslint/no-require-imports */
const Result = require('pg/lib/result') as new (rowMode?: string, types?: unknown) => PgResult;
const utils = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };
/* eslint-enable @typescript-eslint/no-require-imports */

/** A result that reads rows with the client's type parsers (typeParsersOf), or pg's defaults. */
export function newResult(types: unknown): PgResult {
  return new Result(undefined, types);
}

/** The columns a result was given (addFields), to read a later answer of the same statement with. */
export function columnsOf(result: PgResult): PgColumns {
  const { fields, _parsers, _prebuiltEmptyResultObject } = result as PgResult & PgColumns;
  return { fields, _parsers, _prebuiltEmptyResultObject };
}

/** A result that reads rows with columns kept from an earlier answer (columnsOf), asking for none again. */
export function resultWithColumns(types: unknown, columns: PgColumns): PgResult {
  return Object.assign(new Result(undefined, types), columns);
}

/** A parameter as pg binds it: Dates, Buffers, arrays, objects (JSON) and toPostgres() mapped. */
export function prepareValue(value: unknown): unknown {
  return utils.prepareValue(value);
}

/** The pg connection calls a submittable makes (pg/lib/connection). */
export interface PgConnection {
  parse(message: { name: string; text: string; types: unknown[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[] }): void;
  describe(message: { type: 'P'; name: string }): void;
  close(message: { type: 'S'; name: string }): void;
  execute(message: { portal: string; rows: number }): void;
  sync(): void;
  stream: { cork?: () => void; uncork?: () => void };
}

/**
 * What the client calls on a submittable: submit() once the connection is free (an error returned is its
 * answer, nothing having been written), then each message of its answer, in order, ending with
 * handleReadyForQuery (or handleError, after which nothing more of it arrives).
 */
export interface Submittable {
  submit(connection: PgConnection): Error | null;
  handleRowDescription(message: { fields: unknown[] }): void;
  handleDataRow(message: { fields: unknown[] }): void;
  handleCommandComplete(message: unknown): void;
  handleEmptyQuery(): void;
  handleError(error: unknown): void;
  handleReadyForQuery(): void;
  handlePortalSuspended(): void;
  handleCopyInResponse(): void;
  handleCopyData(): void;
}

/** Queues the submittable on the client, behind any query already queued there. */
export function submit(client: PoolClient, submittable: Submittable): void {
  client.query(submittable as never);
}

/** The client's type parsers (its `types` option, else pg's defaults), for the results a submittable makes. */
export function typeParsersOf(client: PoolClient): unknown {
  return (client as unknown as { _types?: unknown })._types;
}

/**
 * The pg Pool TypeORM's postgres driver opened for the data source (no replication configured): undefined
 * before the data source is initialised and once it is destroyed.
 */
export function poolOf(dataSource: DataSource): Pool | undefined {
  return (dataSource.driver as unknown as { master?: Pool }).master;
}
