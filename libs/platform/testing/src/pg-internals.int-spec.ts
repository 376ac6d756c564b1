// The contract of the parts of `pg` (and of TypeORM's hold on it) outside their public API that the
// UnitOfWork's statement batches rely on (libs/platform/database/src/pg-internals.ts), each exercised by name
// on a real PostgreSQL: an upgrade that changes one of them fails here first, saying which. Here rather than
// beside it: the database lib cannot import this testing lib, which builds on it.
import { Client, Pool, types, type PoolClient } from 'pg';
import { pgInternals } from '@mm/platform/database';
import { createTestDatabase, type TestDatabase } from './test-database';

const { columnsOf, newResult, poolOf, prepareValue, resultWithColumns, submit, typeParsersOf } = pgInternals;

/** What a submittable was told, in order: the client's calls of each handler. */
type Heard = Array<{ call: string; message?: unknown }>;

/**
 * A submittable that writes what `write` writes on the connection, then Sync, and reads each answer's rows
 * with a PgResult: the columns described, or (a statement not described) the columns given.
 */
function submittable(
  client: PoolClient | Client,
  write: (connection: pgInternals.PgConnection) => void,
  columns?: pgInternals.PgColumns,
) {
  const heard: Heard = [];
  const results: pgInternals.PgResult[] = [];
  let current: pgInternals.PgResult | undefined;
  let settle!: { resolve: () => void; reject: (error: unknown) => void };
  const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  const types = typeParsersOf(client as PoolClient);
  const batch: pgInternals.Submittable = {
    submit(connection) {
      heard.push({ call: 'submit' });
      connection.stream.cork?.();
      write(connection);
      connection.sync();
      connection.stream.uncork?.();
      return null;
    },
    handleRowDescription(message) {
      heard.push({ call: 'handleRowDescription' });
      current = newResult(types);
      current.addFields(message.fields);
    },
    handleDataRow(message) {
      heard.push({ call: 'handleDataRow' });
      current ??= resultWithColumns(types, columns!);
      current.addRow(current.parseRow(message.fields));
    },
    handleCommandComplete(message) {
      heard.push({ call: 'handleCommandComplete' });
      const result = current ?? newResult(types);
      result.addCommandComplete(message);
      results.push(result);
      current = undefined;
    },
    handleEmptyQuery() {
      heard.push({ call: 'handleEmptyQuery' });
    },
    handleError(error) {
      heard.push({ call: 'handleError', message: error });
      settle.reject(error);
    },
    handleReadyForQuery() {
      heard.push({ call: 'handleReadyForQuery' });
      settle.resolve();
    },
    handlePortalSuspended() {
      heard.push({ call: 'handlePortalSuspended' });
    },
    handleCopyInResponse() {
      heard.push({ call: 'handleCopyInResponse' });
    },
    handleCopyData() {
      heard.push({ call: 'handleCopyData' });
    },
  };
  submit(client as PoolClient, batch);
  return { heard, results, done };
}

describe('pg internals the UnitOfWork relies on (pg-internals.ts)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(2);
  });
  afterAll(() => db.close());

  it("poolOf: the pg Pool TypeORM's postgres driver keeps as driver.master, with its counts", async () => {
    const pool = poolOf(db.dataSource);
    expect(pool).toBeInstanceOf(Pool);
    const client = await pool!.connect();
    try {
      expect((await client.query('SELECT current_database() AS name')).rows).toEqual([
        { name: new URL(db.url).pathname.slice(1) },
      ]);
      expect(pool!.totalCount - pool!.idleCount).toBeGreaterThanOrEqual(1);
      expect(pool!.waitingCount).toBe(0);
    } finally {
      client.release();
    }
  });

  it('prepareValue (pg/lib/utils): a parameter mapped as pg binds it', () => {
    expect(prepareValue(null)).toBeNull();
    expect(prepareValue(undefined)).toBeNull();
    expect(prepareValue(42)).toBe('42');
    expect(prepareValue(true)).toBe('true');
    expect(prepareValue(['p', 'q"r', null])).toBe('{"p","q\\"r",NULL}');
    expect(prepareValue({ k: [1, 'v'] })).toBe('{"k":[1,"v"]}');
    expect(prepareValue(Buffer.from([0, 255]))).toEqual(Buffer.from([0, 255]));
    expect(prepareValue({ toPostgres: () => 'custom' })).toBe('custom');
  });

  it('submit (client.query of a submittable) with the writers of pg/lib/connection: one Sync, every answer handed over in order', async () => {
    const client = await poolOf(db.dataSource)!.connect();
    try {
      const batch = submittable(client, (connection) => {
        for (const writer of ['parse', 'bind', 'describe', 'execute', 'close', 'sync'] as const)
          expect(typeof connection[writer]).toBe('function');
        connection.parse({ name: 'pg_internals_s', text: 'SELECT $1::int + 1 AS n, $2::text AS t', types: [] });
        connection.bind({ portal: '', statement: 'pg_internals_s', values: [prepareValue(41), prepareValue('x')] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
        connection.parse({ name: '', text: 'SELECT 2 AS two WHERE false', types: [] });
        connection.bind({ portal: '', statement: '', values: [] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      await batch.done;
      expect(batch.heard.map((h) => h.call)).toEqual([
        'submit',
        'handleRowDescription',
        'handleDataRow',
        'handleCommandComplete',
        'handleRowDescription',
        'handleCommandComplete',
        'handleReadyForQuery',
      ]);
      expect(batch.results.map((r) => ({ command: r.command, rowCount: r.rowCount, rows: r.rows }))).toEqual([
        { command: 'SELECT', rowCount: 1, rows: [{ n: 42, t: 'x' }] },
        { command: 'SELECT', rowCount: 0, rows: [] },
      ]);
      // The client serves on, and the named statement stays prepared on its connection.
      expect(
        (await client.query(`SELECT name FROM pg_prepared_statements WHERE name = 'pg_internals_s'`)).rows,
      ).toEqual([{ name: 'pg_internals_s' }]);
    } finally {
      client.release();
    }
  });

  it('PgResult (pg/lib/result): the columns described once read the rows of a later run that asked for none (columnsOf, resultWithColumns)', async () => {
    const client = await poolOf(db.dataSource)!.connect();
    try {
      const text = `SELECT $1::int AS id, '2026-01-02T03:04:05Z'::timestamptz AS at, '{"k":1}'::jsonb AS doc, 1.5::numeric AS amount`;
      const described = submittable(client, (connection) => {
        connection.parse({ name: 'pg_internals_kept', text, types: [] });
        connection.bind({ portal: '', statement: 'pg_internals_kept', values: ['7'] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      await described.done;
      const row = { id: 7, at: new Date('2026-01-02T03:04:05Z'), doc: { k: 1 }, amount: '1.5' };
      expect(described.results[0].rows).toEqual([row]);
      const kept = submittable(
        client,
        (connection) => {
          connection.bind({ portal: '', statement: 'pg_internals_kept', values: ['8'] });
          connection.execute({ portal: '', rows: 0 });
        },
        columnsOf(described.results[0]),
      );
      await kept.done;
      // No RowDescription: the rows arrive bare and are read with the columns kept.
      expect(kept.heard.map((h) => h.call)).toEqual([
        'submit',
        'handleDataRow',
        'handleCommandComplete',
        'handleReadyForQuery',
      ]);
      expect(kept.results[0].rows).toEqual([{ ...row, id: 8 }]);
      expect(kept.results[0].command).toBe('SELECT');
    } finally {
      client.release();
    }
  });

  it("typeParsersOf: a client's own type parsers read the rows of the results made with them", async () => {
    const client = new Client({
      connectionString: db.url,
      types: {
        getTypeParser: (oid: number, format?: string) =>
          oid === types.builtins.INT4 ? (v: string) => `int ${v}` : types.getTypeParser(oid, format as 'text'),
      } as never,
    });
    await client.connect();
    try {
      const batch = submittable(client, (connection) => {
        connection.parse({ name: '', text: 'SELECT 1::int AS n', types: [] });
        connection.bind({ portal: '', statement: '', values: [] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      await batch.done;
      expect(batch.results[0].rows).toEqual([{ n: 'int 1' }]);
    } finally {
      await client.end();
    }
  });

  it('handleError: a failed statement hands over the server error (with its SQLSTATE) and nothing more of the batch; the client serves on', async () => {
    const client = await poolOf(db.dataSource)!.connect();
    try {
      const batch = submittable(client, (connection) => {
        connection.parse({ name: '', text: 'SELECT 1 AS one', types: [] });
        connection.bind({ portal: '', statement: '', values: [] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
        connection.parse({ name: '', text: 'SELECT 1 / $1::int', types: [] });
        connection.bind({ portal: '', statement: '', values: ['0'] });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      await expect(batch.done).rejects.toMatchObject({ code: '22012' });
      expect(batch.heard.map((h) => h.call)).toEqual([
        'submit',
        'handleRowDescription',
        'handleDataRow',
        'handleCommandComplete',
        'handleError',
      ]);
      expect((await client.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    } finally {
      client.release();
    }
  });
});
