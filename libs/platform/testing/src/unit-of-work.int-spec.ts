// UnitOfWork (libs/platform/database) on a real PostgreSQL. Here rather than beside it: the
// database lib cannot import this testing lib, which builds on it.
import { createServer, connect, type Server, Socket } from 'node:net';
import { Client } from 'pg';
import { createDataSource, PrefetchKey, UnitOfWork } from '@mm/platform/database';
import { createTestDatabase, type TestDatabase } from './test-database';

/** What a transaction sends after BEGIN: its statements' generic plans from their first run (ADR 0051). */
const PLANS = "SELECT set_config('plan_cache_mode', $1, true)";

/**
 * The round trips fn makes, each the statements that went out in one write to PostgreSQL (pipelined ones
 * together): the texts of the queries issued since the previous write, at each write to a socket.
 */
async function roundTrips<T>(fn: () => Promise<T>): Promise<{ result: T; trips: string[][] }> {
  const trips: string[][] = [];
  let issued: string[] = [];
  const original = Client.prototype.query;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    // A text, a query config, or a batch of statements (the UnitOfWork's own).
    const config = args[0] as string | { text?: string; statements?: Array<{ sql: string }> };
    issued.push(
      ...(typeof config === 'string'
        ? [config]
        : config.text !== undefined
          ? [config.text]
          : (config.statements ?? []).map((s) => s.sql)),
    );
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  const written = (write: (...a: unknown[]) => unknown) =>
    function (this: Socket, ...args: unknown[]) {
      if (issued.length > 0) trips.push(issued);
      issued = [];
      return write.apply(this, args);
    };
  const { _write: write, _writev: writev } = Socket.prototype as unknown as Record<
    '_write' | '_writev',
    (...a: unknown[]) => unknown
  >;
  Object.assign(Socket.prototype, { _write: written(write), _writev: written(writev) });
  try {
    return { result: await fn(), trips };
  } finally {
    Client.prototype.query = original;
    Object.assign(Socket.prototype, { _write: write, _writev: writev });
  }
}

/**
 * A TCP proxy to PostgreSQL that, for the connection opened after holdNext(), holds PostgreSQL's answer from
 * BackendKeyData (its start-up's last part but ReadyForQuery) until flush(), which then passes everything
 * PostgreSQL sent up to the end of its session to the client in one write.
 */
class StartupHoldingProxy {
  private readonly server: Server;
  private port = 0;
  private next?: (held: { pid: number; flush(): Promise<void> }) => void;

  constructor(private readonly target: URL) {
    this.server = createServer((client) => this.accept(client));
  }

  get url(): string {
    const url = new URL(this.target);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  listen(): Promise<void> {
    return new Promise((resolve) =>
      this.server.listen(0, '127.0.0.1', () => {
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      }),
    );
  }

  holdNext(): Promise<{ pid: number; flush(): Promise<void> }> {
    return new Promise((resolve) => (this.next = resolve));
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const upstream = connect(Number(this.target.port || 5432), this.target.hostname);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream);
    const told = this.next;
    this.next = undefined;
    if (!told) {
      upstream.pipe(client);
      return;
    }
    // Messages are a type byte and a length that counts itself; the held part starts at BackendKeyData ('K').
    let pending = Buffer.alloc(0);
    const held: Buffer[] = [];
    let holding = false;
    const ended = new Promise<void>((resolve) => upstream.once('end', resolve));
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
        const message = pending.subarray(0, 1 + pending.readInt32BE(1));
        pending = pending.subarray(message.length);
        const type = String.fromCharCode(message[0]);
        if (type === 'K') holding = true;
        if (!holding) {
          client.write(message);
          continue;
        }
        held.push(message);
        if (type === 'Z' && held.length === 2) {
          const pid = held[0].readInt32BE(5);
          told({
            pid,
            flush: async () => {
              await ended;
              client.end(Buffer.concat(held));
            },
          });
        }
      }
    });
  }
}

describe('UnitOfWork', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(4);
  });
  afterAll(() => db.close());

  it('answers rows for every kind of statement', async () => {
    await db.uow.query(`CREATE TABLE uow_rows (id int PRIMARY KEY, v text)`);
    expect(await db.uow.query(`INSERT INTO uow_rows VALUES (1, 'a') RETURNING *`)).toEqual([{ id: 1, v: 'a' }]);
    expect(await db.uow.query(`UPDATE uow_rows SET v = 'b' WHERE id = 1 RETURNING v`)).toEqual([{ v: 'b' }]);
    expect(await db.uow.query(`DELETE FROM uow_rows WHERE id = 1 RETURNING id`)).toEqual([{ id: 1 }]);
  });

  it('commits together or not at all', async () => {
    await db.uow.query(`CREATE TABLE uow_atomic (id int PRIMARY KEY)`);
    await expect(
      db.uow.run(async () => {
        await db.uow.query(`INSERT INTO uow_atomic VALUES (1)`);
        await db.uow.query(`INSERT INTO uow_atomic VALUES (1)`);
      }),
    ).rejects.toThrow();
    expect(await db.uow.query(`SELECT * FROM uow_atomic`)).toEqual([]);
  });

  it('survives its connection dying mid-transaction: the command fails, the process and the pool go on', async () => {
    await expect(
      db.uow.run(async () => {
        const [{ pid }] = await db.uow.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`);
        // Another session ends this one while it sits idle in its transaction, as a PostgreSQL shutdown would.
        await db.uow.runDetached(() => db.uow.query(`SELECT pg_terminate_backend($1)`, [pid]));
        await new Promise((r) => setTimeout(r, 200));
        await db.uow.query(`SELECT 1`);
      }),
    ).rejects.toThrow();
    expect(await db.uow.run(() => db.uow.query(`SELECT 1 AS ok`))).toEqual([{ ok: 1 }]);
  });

  it('survives a new connection that PostgreSQL ends in the same answer that completes its start-up', async () => {
    // A PostgreSQL shutting down (or a backend terminated) just as it admits a connection: the ReadyForQuery
    // that completes the start-up and the FATAL that ends the session reach the client in one read. pg hands
    // the client over at the ReadyForQuery and emits the FATAL in the same tick, before any caller could
    // listen; unheard, that 'error' event ended the process (a replica died so in the fault run).
    const startup = new StartupHoldingProxy(new URL(db.url));
    await startup.listen();
    const proxied = createDataSource({ url: startup.url, migrations: [], poolSize: 2 });
    await proxied.initialize();
    const uow = new UnitOfWork(proxied);
    try {
      // The pool's one connection stays busy, so the next transaction opens a new one, whose start-up is held.
      let finish!: () => void;
      const busy = uow.run(async () => {
        await uow.query(`SELECT 1`);
        await new Promise<void>((resolve) => (finish = resolve));
      });
      const held = startup.holdNext();
      const fresh = uow.run(() => uow.query(`SELECT 1`));
      const { pid, flush } = await held;
      await db.uow.query(`SELECT pg_terminate_backend($1)`, [pid]);
      await flush();
      await expect(fresh).rejects.toThrow();
      finish();
      await busy;
      // The process and the pool go on: the dead connection is not given out again.
      expect(await uow.run(() => uow.query(`SELECT 1 AS ok`))).toEqual([{ ok: 1 }]);
    } finally {
      await proxied.destroy();
      await startup.close();
    }
  });

  it('reads a parameter written into a batch exactly as the same parameter bound', async () => {
    const values = [
      "it's",
      'back\\slash \\x00 $1 -- not a comment',
      '"quoted"',
      'emoji 💸 and ünïcödé',
      '',
      " E'x' ",
      '{"a":[1,"b\\\\"]}',
    ];
    for (const value of values) {
      const bound = await db.uow.query<{ v: string }>(`SELECT $1::text AS v, $1::text = $2::text AS same`, [
        value,
        value,
      ]);
      const [[inlined]] = await db.uow.batch([
        { sql: `SELECT $1::text AS v, $1::text = $2::text AS same`, params: [value, value] },
      ]);
      expect(inlined).toEqual(bound[0]);
      expect(inlined.v).toBe(value);
    }
    const [[json]] = await db.uow.batch([
      {
        sql: `SELECT $1::jsonb AS j, $2::int + 1 AS n, $3::text[] AS a, $4::bytea AS b`,
        params: [JSON.stringify({ k: "v'\\" }), 41, ['x', 'y"z'], Buffer.from([0, 1, 255])],
      },
    ]);
    expect(json).toEqual({ j: { k: "v'\\" }, n: 42, a: ['x', 'y"z'], b: Buffer.from([0, 1, 255]) });
  });

  it('sends deferred writes in order ahead of the next statement or with COMMIT, all or nothing', async () => {
    await db.uow.query(`CREATE TABLE uow_deferred (id int PRIMARY KEY, v text)`);
    await db.uow.run(async () => {
      await db.uow.defer(`INSERT INTO uow_deferred VALUES ($1, $2)`, [1, 'first']);
      await db.uow.defer(`UPDATE uow_deferred SET v = $2 WHERE id = $1`, [1, 'then']);
      // The next statement sees them: they travel ahead of it.
      expect(await db.uow.query(`SELECT * FROM uow_deferred`)).toEqual([{ id: 1, v: 'then' }]);
      await db.uow.defer(`UPDATE uow_deferred SET v = $2 WHERE id = $1`, [1, 'later']);
    });
    expect(await db.uow.query(`SELECT * FROM uow_deferred`)).toEqual([{ id: 1, v: 'later' }]);
    // A deferred write that fails fails the transaction, and the statements before it roll back.
    await expect(
      db.uow.run(async () => {
        await db.uow.query(`INSERT INTO uow_deferred VALUES (2, 'first')`);
        await db.uow.defer(`INSERT INTO uow_deferred VALUES ($1, $2)`, [1, 'duplicate']);
      }),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.uow.query(`SELECT id FROM uow_deferred ORDER BY id`)).toEqual([{ id: 1 }]);
    // A transaction with only a deferred write still commits it.
    await db.uow.run(() => db.uow.defer(`INSERT INTO uow_deferred VALUES ($1, $2)`, [3, 'alone']));
    expect(await db.uow.query(`SELECT id FROM uow_deferred ORDER BY id`)).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('runs a batch statement by statement: a lock taken by one is seen by the reads after it', async () => {
    await db.uow.query(`CREATE TABLE uow_batch (id int PRIMARY KEY, n int)`);
    await db.uow.query(`INSERT INTO uow_batch VALUES (1, 0)`);
    const lock = `SELECT pg_advisory_xact_lock(42)`;
    const bump = () =>
      db.uow.run(async () => {
        const [, [row]] = await db.uow.batch([
          { sql: lock },
          { sql: `SELECT n FROM uow_batch WHERE id = $1`, params: [1] },
        ]);
        await new Promise((r) => setTimeout(r, 20));
        await db.uow.query(`UPDATE uow_batch SET n = $1 WHERE id = 1`, [Number(row.n) + 1]);
      });
    // Read-then-write under the lock: every increment counts, none is lost to a stale read.
    await Promise.all(Array.from({ length: 8 }, bump));
    expect(await db.uow.query(`SELECT n FROM uow_batch`)).toEqual([{ n: 8 }]);
  });

  it('prepares a statement once per connection, and runs it on every connection after a batch that failed part-way', async () => {
    await db.uow.query(`CREATE TABLE uow_prepared (id int PRIMARY KEY, note text)`);
    const insert = `INSERT INTO uow_prepared (id, note) VALUES ($1, $2) RETURNING id, note`;
    const count = `SELECT count(*)::int AS n FROM uow_prepared WHERE note = $1`;
    const prepared = () =>
      db.uow.query<{ name: string; statement: string }>(`SELECT name, statement FROM pg_prepared_statements`);
    const first = await db.uow.run(() =>
      db.uow.batch([
        { sql: insert, params: [1, "o'k"] },
        { sql: count, params: ["o'k"] },
      ]),
    );
    expect(first).toEqual([[{ id: 1, note: "o'k" }], [{ n: 1 }]]);
    await db.uow.run(async () => {
      expect(
        await db.uow.batch([
          { sql: insert, params: [2, 'x'] },
          { sql: count, params: ["o'k"] },
        ]),
      ).toEqual([[{ id: 2, note: 'x' }], [{ n: 1 }]]);
      // Once each on this connection, whatever the number of runs.
      const names = await prepared();
      expect(names.filter((p) => /^(INSERT|SELECT).*uow_prepared/.test(p.statement))).toHaveLength(2);
    });
    // A batch that prepares a new statement, runs it, then fails (a duplicate key) and one whose new statement
    // comes after the failure, so is never prepared...
    const update = `UPDATE uow_prepared SET note = $2 WHERE id = $1 RETURNING note`;
    const other = `SELECT note FROM uow_prepared WHERE id = $1`;
    await expect(
      db.uow.run(() =>
        db.uow.batch([
          { sql: update, params: [2, 'y'] },
          { sql: insert, params: [1, 'dup'] },
          { sql: other, params: [1] },
        ]),
      ),
    ).rejects.toThrow(/duplicate key/);
    // ...leave every connection able to run both: the ones that did prepare them and the ones that did not.
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.uow.run(() =>
          db.uow.batch([
            { sql: update, params: [2, `y${i}`] },
            { sql: other, params: [1] },
          ]),
        ),
      ),
    );
    expect(runs.map(([[row]]) => row.note)).toEqual(Array.from({ length: 8 }, (_, i) => `y${i}`));
    // A new statement that is parsed, then fails as it runs: prepared or not, it runs everywhere after.
    const failing = `INSERT INTO uow_prepared (id, note) VALUES ($1, $2)`;
    await expect(
      db.uow.run(() =>
        db.uow.batch([
          { sql: failing, params: [1, 'dup'] },
          { sql: count, params: ['x'] },
        ]),
      ),
    ).rejects.toThrow(/duplicate key/);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        db.uow.run(() =>
          db.uow.batch([
            { sql: failing, params: [100 + i, 'n'] },
            { sql: count, params: ['n'] },
          ]),
        ),
      ),
    );
    await db.uow.query(`DELETE FROM uow_prepared WHERE id >= 100`);
    // Values are bound, never written into the text: NULL, arrays, json and text that looks like SQL.
    const [[row]] = await db.uow.batch([
      {
        sql: `SELECT $1::text IS NULL AS nil, $2::text[] AS a, $3::jsonb AS j, $4::text AS t`,
        params: [null, ['p', 'q"r'], JSON.stringify({ k: 1 }), "'); DROP TABLE uow_prepared; --"],
      },
      { sql: `SELECT 1 AS one` },
    ]);
    expect(row).toEqual({ nil: true, a: ['p', 'q"r'], j: { k: 1 }, t: "'); DROP TABLE uow_prepared; --" });
    expect(await db.uow.query(`SELECT count(*)::int AS n FROM uow_prepared`)).toEqual([{ n: 2 }]);
  });

  it("asks for a prepared statement's columns once per connection, then reads its rows with the columns kept", async () => {
    await db.uow.query(
      `CREATE TABLE uow_columns (id int PRIMARY KEY, at timestamptz NOT NULL, doc jsonb, amount numeric)`,
    );
    const insert = `INSERT INTO uow_columns (id, at, doc, amount) VALUES ($1, $2, $3, $4)`;
    const select = `SELECT id, at, doc, amount FROM uow_columns WHERE id = ANY($1::int[]) ORDER BY id`;
    const at = new Date('2026-01-02T03:04:05.678Z');
    // The Describes pg writes, by the statement each follows the Bind of, on the one connection of a transaction.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Connection = require('pg/lib/connection') as {
      prototype: Record<'bind' | 'describe', (...a: unknown[]) => unknown>;
    };
    const { bind, describe } = Connection.prototype;
    const described = new Map<string, number>();
    let bound = '';
    Connection.prototype.bind = function (this: unknown, ...args: unknown[]) {
      bound = (args[0] as { statement: string }).statement;
      return bind.apply(this, args);
    };
    Connection.prototype.describe = function (this: unknown, ...args: unknown[]) {
      described.set(bound, (described.get(bound) ?? 0) + 1);
      return describe.apply(this, args);
    };
    try {
      const runs = await db.uow.run(async () => {
        const answers = [];
        for (let i = 1; i <= 3; i++) {
          answers.push(
            await db.uow.batch([
              { sql: insert, params: [i, at, JSON.stringify({ n: i }), `${i}.10`] },
              { sql: select, params: [[1, 2, 3]] },
              { sql: select, params: [[-1]] },
            ]),
          );
        }
        return answers;
      });
      const row = (i: number) => ({ id: i, at, doc: { n: i }, amount: `${i}.10` });
      expect(runs).toEqual([
        [[], [row(1)], []],
        [[], [row(1), row(2)], []],
        [[], [row(1), row(2), row(3)], []],
      ]);
      // Named statements (those with parameters) were described in the first batch only: the insert once (it
      // has no columns), the select twice there (both before the first answer), then never.
      const named = [...described].filter(([name]) => name !== '');
      expect(named.map(([, n]) => n).sort()).toEqual([1, 2]);
    } finally {
      Object.assign(Connection.prototype, { bind, describe });
    }
  });

  it('undoes only a failed savepoint step: the transaction goes on with what came before it, and without what the step queued', async () => {
    await db.uow.query(`CREATE TABLE uow_savepoint (id int PRIMARY KEY, v text)`);
    const afterCommit: string[] = [];
    await db.uow.run(async () => {
      await db.uow.query(`INSERT INTO uow_savepoint VALUES (1, 'before')`);
      await db.uow.defer(`UPDATE uow_savepoint SET v = 'deferred before' WHERE id = 1`);
      // A step that fails in the database: a duplicate key, which would abort the whole transaction.
      await expect(
        db.uow.savepoint(async () => {
          await db.uow.defer(`INSERT INTO uow_savepoint VALUES (2, 'step')`);
          await db.uow.afterCommit(async () => void afterCommit.push('step'));
          await db.uow.query(`INSERT INTO uow_savepoint VALUES (1, 'duplicate')`);
        }),
      ).rejects.toThrow(/duplicate key/);
      // The next statement answers its own rows, whatever travelled ahead of it.
      expect(await db.uow.query(`SELECT v FROM uow_savepoint WHERE id = 1`)).toEqual([{ v: 'deferred before' }]);
      // A step whose failed batch prepared a statement: the connection asks which after the rollback.
      await expect(
        db.uow.savepoint(() =>
          db.uow.batch([
            { sql: `INSERT INTO uow_savepoint VALUES ($1, $2)`, params: [6, 'new text'] },
            { sql: `INSERT INTO uow_savepoint VALUES ($1, 'dup')`, params: [1] },
          ]),
        ),
      ).rejects.toThrow(/duplicate key/);
      // A step that fails before reaching the database: what it queued is forgotten.
      await expect(
        db.uow.savepoint(async () => {
          await db.uow.defer(`INSERT INTO uow_savepoint VALUES (3, 'never')`);
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      // A step that succeeds stays.
      expect(
        await db.uow.savepoint(() => db.uow.query(`INSERT INTO uow_savepoint VALUES (4, 'kept') RETURNING id`)),
      ).toEqual([{ id: 4 }]);
      await db.uow.afterCommit(async () => void afterCommit.push('transaction'));
      await db.uow.query(`INSERT INTO uow_savepoint VALUES (5, 'after')`);
    });
    expect(await db.uow.query(`SELECT id, v FROM uow_savepoint ORDER BY id`)).toEqual([
      { id: 1, v: 'deferred before' },
      { id: 4, v: 'kept' },
      { id: 5, v: 'after' },
    ]);
    expect(afterCommit).toEqual(['transaction']);
  });

  it("runs a transaction's statements on their generic plans from their first run, and reads outside one on PostgreSQL's choice", async () => {
    const mode = async () =>
      (await db.uow.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`))[0].mode;
    expect(await db.uow.run(mode)).toBe('force_generic_plan');
    expect(await mode()).toBe('auto');
    // Set for the transaction only: the connection, back in the pool, plans as PostgreSQL chooses again.
    expect(await db.uow.run(async () => (await db.uow.runDetached(mode)) + ' ' + (await mode()))).toBe(
      'force_generic_plan force_generic_plan',
    );
    expect(await mode()).toBe('auto');
  });

  it('sends the statements a transaction issues in the same tick in one round trip, each caller answered its own rows', async () => {
    await db.uow.query(`CREATE TABLE uow_together (id int PRIMARY KEY, v text)`);
    await db.uow.query(`INSERT INTO uow_together VALUES (1, 'a'), (2, 'b')`);
    const { result, trips } = await roundTrips(() =>
      db.uow.run(async () => {
        await db.uow.defer(`UPDATE uow_together SET v = 'deferred' WHERE id = 2`);
        return Promise.all([
          db.uow.query(`SELECT v FROM uow_together WHERE id = $1`, [1]),
          db.uow.batch([
            { sql: `SELECT v FROM uow_together WHERE id = $1`, params: [2] },
            { sql: `SELECT count(*)::int AS n FROM uow_together` },
          ]),
          db.uow.query(`SELECT $1::text AS echo`, ['third']),
        ]);
      }),
    );
    // The deferred write went first, so the reads after it see it.
    expect(result).toEqual([[{ v: 'a' }], [[{ v: 'deferred' }], [{ n: 2 }]], [{ echo: 'third' }]]);
    // BEGIN (and its plan setting) with the deferred write and the three callers' four statements; then COMMIT.
    expect(trips).toHaveLength(2);
    expect(trips[0]).toHaveLength(7);
    expect(trips[1]).toEqual(['COMMIT']);
  });

  it('fails every statement that travelled together when one of them fails, and commits nothing', async () => {
    await db.uow.query(`CREATE TABLE uow_together_fail (id int PRIMARY KEY)`);
    let outcomes: string[] = [];
    await expect(
      db.uow.run(async () => {
        const all = await Promise.allSettled([
          db.uow.query(`INSERT INTO uow_together_fail VALUES (1)`),
          db.uow.query(`INSERT INTO uow_together_fail VALUES (1)`),
        ]);
        outcomes = all.map((o) => (o.status === 'rejected' ? String(o.reason) : 'answered'));
      }),
    ).rejects.toThrow(/rolled back/);
    expect(outcomes).toEqual([expect.stringMatching(/duplicate key/), expect.stringMatching(/duplicate key/)]);
    expect(await db.uow.query(`SELECT * FROM uow_together_fail`)).toEqual([]);
    // A caller that swallowed its statement's failure does not commit what came before it either.
    await expect(
      db.uow.run(async () => {
        await db.uow.query(`INSERT INTO uow_together_fail VALUES (2)`);
        await db.uow.query(`INSERT INTO uow_together_fail VALUES (2)`).catch(() => undefined);
      }),
    ).rejects.toThrow(/rolled back/);
    expect(await db.uow.query(`SELECT * FROM uow_together_fail`)).toEqual([]);
  });

  it('sends a guard with the first statement and judges it before that statement answers: a refusal fails the statement and the commit', async () => {
    await db.uow.query(`CREATE TABLE uow_lead (id int PRIMARY KEY)`);
    const seen: unknown[] = [];
    const refused = new Error('claimed already');
    const { trips } = await roundTrips(() =>
      expect(
        db.uow.run(async () => {
          db.uow.prefetch({
            guard: [{ sql: `SELECT $1::int AS claim`, params: [7] }],
            judge: ([rows]) => {
              seen.push(rows);
              throw refused;
            },
          });
          const inserted = db.uow.query(`INSERT INTO uow_lead VALUES (1) RETURNING id`);
          await expect(inserted).rejects.toBe(refused);
          // Swallowed by a careless caller: every later statement fails alike, and nothing commits.
          await expect(db.uow.query(`SELECT 1`)).rejects.toBe(refused);
        }),
      ).rejects.toBe(refused),
    );
    expect(seen).toEqual([[{ claim: 7 }]]);
    // BEGIN, the guard and the insert together; then the rollback.
    expect(trips).toEqual([
      ['BEGIN', PLANS, 'SELECT $1::int AS claim', 'INSERT INTO uow_lead VALUES (1) RETURNING id'],
      ['ROLLBACK'],
    ]);
    expect(await db.uow.query(`SELECT * FROM uow_lead`)).toEqual([]);
  });

  it('commits with a guard that passed, in no more round trips than without it', async () => {
    await db.uow.query(`CREATE TABLE uow_lead_ok (id int PRIMARY KEY)`);
    const { result: state, trips } = await roundTrips(() =>
      db.uow.run(async () => {
        const guard = db.uow.prefetch({
          guard: [{ sql: `SELECT 1 AS ok` }],
          judge: ([[row]]) => expect(row).toEqual({ ok: 1 }),
        });
        expect(guard.answered).toBe(false);
        await db.uow.query(`INSERT INTO uow_lead_ok VALUES (1)`);
        expect(guard.answered).toBe(true);
        return guard;
      }),
    );
    expect(state.answered).toBe(true);
    expect(trips).toHaveLength(2);
    expect(await db.uow.query(`SELECT * FROM uow_lead_ok`)).toEqual([{ id: 1 }]);
  });

  it('sends a guard still unsent at COMMIT with it, unjudged: the commit itself must refuse what the guard would', async () => {
    await db.uow.query(`CREATE TABLE uow_lead_commit (key text PRIMARY KEY)`);
    await db.uow.query(`INSERT INTO uow_lead_commit VALUES ('taken')`);
    const checks: unknown[] = [];
    // The caller's own unique record makes the second commit fail: nothing is written twice.
    const write = (key: string) =>
      roundTrips(() =>
        db.uow.run(async () => {
          db.uow.prefetch({ guard: [{ sql: `SELECT 1` }], judge: ([rows]) => void checks.push(rows) });
          await db.uow.defer(`INSERT INTO uow_lead_commit VALUES ($1)`, [key]);
        }),
      );
    const { trips } = await write('fresh');
    expect(trips).toHaveLength(1);
    await expect(write('taken')).rejects.toThrow(/duplicate key/);
    expect(checks).toEqual([]);
    expect(await db.uow.query(`SELECT key FROM uow_lead_commit ORDER BY key`)).toEqual([
      { key: 'fresh' },
      { key: 'taken' },
    ]);
  });

  it('sends and judges a guard whose result is asked for, before the caller acts outside the database', async () => {
    const order: string[] = [];
    await db.uow.run(async () => {
      const guard = db.uow.prefetch({ guard: [{ sql: `SELECT 1` }], judge: () => void order.push('judged') });
      await guard.result;
      order.push('acted');
      await guard.result;
    });
    expect(order).toEqual(['judged', 'acted']);
    const refused = new Error('no');
    await expect(
      db.uow.run(async () => {
        const guard = db.uow.prefetch({
          guard: [{ sql: `SELECT 1` }],
          judge: () => {
            throw refused;
          },
        });
        await guard.result;
        order.push('acted anyway');
      }),
    ).rejects.toBe(refused);
    expect(order).toEqual(['judged', 'acted']);
  });

  it('hands a read prefetched by one step to a later step of the transaction, typed, once, from the round trip it travelled in', async () => {
    await db.uow.query(`CREATE TABLE uow_prefetch (id int PRIMARY KEY, v text)`);
    await db.uow.query(`INSERT INTO uow_prefetch VALUES (1, 'one')`);
    const key = (id: number) => new PrefetchKey<{ id: number; v: string }>(`uow_prefetch/${id}`);
    const read = (id: number) => async () =>
      (await db.uow.query<{ id: number; v: string }>(`SELECT id, v FROM uow_prefetch WHERE id = $1`, [id]))[0];
    const { result, trips } = await roundTrips(() =>
      db.uow.run(async () => {
        db.uow.prefetch({ key: key(1), read: read(1) });
        await db.uow.query(`SELECT 'the step that prefetched' AS step`);
        const taken = db.uow.prefetched(key(1));
        const value = await taken?.result;
        expect(taken?.answered).toBe(true);
        return { value, again: db.uow.prefetched(key(1)), other: db.uow.prefetched(key(2)) };
      }),
    );
    expect(result).toEqual({ value: { id: 1, v: 'one' }, again: undefined, other: undefined });
    expect(trips).toEqual([
      ['BEGIN', PLANS, 'SELECT id, v FROM uow_prefetch WHERE id = $1', "SELECT 'the step that prefetched' AS step"],
      ['COMMIT'],
    ]);
    // Outside a transaction there is nothing to take; a savepoint that rolls back drops what was prefetched.
    expect(db.uow.prefetched(key(1))).toBeUndefined();
    await db.uow.run(async () => {
      db.uow.prefetch({ key: key(1), read: read(1) });
      await expect(
        db.uow.savepoint(() => db.uow.query(`INSERT INTO uow_prefetch VALUES (1, 'duplicate')`)),
      ).rejects.toThrow(/duplicate key/);
      expect(db.uow.prefetched(key(1))).toBeUndefined();
    });
  });

  it('runs a batch outside a transaction as one implicit transaction: one round trip, all or nothing', async () => {
    await db.uow.query(`CREATE TABLE uow_implicit (id int PRIMARY KEY)`);
    const { result, trips } = await roundTrips(() =>
      db.uow.batch([
        { sql: `INSERT INTO uow_implicit VALUES ($1) RETURNING id`, params: [1] },
        { sql: `SELECT count(*)::int AS n FROM uow_implicit` },
      ]),
    );
    expect(result).toEqual([[{ id: 1 }], [{ n: 1 }]]);
    expect(trips).toEqual([
      ['INSERT INTO uow_implicit VALUES ($1) RETURNING id', 'SELECT count(*)::int AS n FROM uow_implicit'],
    ]);
    await expect(
      db.uow.batch([
        { sql: `INSERT INTO uow_implicit VALUES ($1)`, params: [2] },
        { sql: `INSERT INTO uow_implicit VALUES ($1)`, params: [1] },
      ]),
    ).rejects.toThrow(/duplicate key/);
    expect(await db.uow.query(`SELECT id FROM uow_implicit`)).toEqual([{ id: 1 }]);
  });

  describe('notifyOnCommit', () => {
    let listener: Client;
    const heard: string[] = [];
    const waiters: Array<{ payload: string; resolve: () => void }> = [];
    /** Resolves once `payload` has been heard on uow_chan (at once if it was). */
    const hear = (payload: string) =>
      new Promise<void>((resolve) => {
        if (heard.includes(payload)) resolve();
        else waiters.push({ payload, resolve });
      });
    beforeAll(async () => {
      await db.uow.query(`CREATE TABLE uow_notify (id int PRIMARY KEY)`);
      listener = new Client({ connectionString: db.url });
      await listener.connect();
      listener.on('notification', (n) => {
        heard.push(n.payload ?? '');
        for (const w of waiters.filter((w) => w.payload === n.payload)) w.resolve();
      });
      await listener.query('LISTEN uow_chan');
    });
    afterAll(() => listener.end());

    it('notifies after the COMMIT, in its round trip, once per channel and payload; the listener then sees the write', async () => {
      const { trips } = await roundTrips(() =>
        db.uow.run(async () => {
          await db.uow.query(`INSERT INTO uow_notify VALUES (1) RETURNING id`);
          await db.uow.notifyOnCommit('uow_chan', 'one');
          await db.uow.notifyOnCommit('uow_chan', 'one');
          await db.uow.notifyOnCommit('uow_chan', 'two');
        }),
      );
      expect(trips).toHaveLength(2);
      expect(trips[0]).toEqual(['BEGIN', PLANS, 'INSERT INTO uow_notify VALUES (1) RETURNING id']);
      // The writing transaction notifies nothing itself: its COMMIT first, then a transaction of the notifications.
      expect(trips[1][0]).toBe('COMMIT');
      expect(trips[1].slice(1)).toEqual([expect.stringContaining('pg_notify')]);
      await Promise.all([hear('one'), hear('two')]);
      expect(heard.filter((p) => p === 'one')).toHaveLength(1);
      const other = new Client({ connectionString: db.url });
      await other.connect();
      try {
        expect((await other.query(`SELECT id FROM uow_notify`)).rows).toEqual([{ id: 1 }]);
      } finally {
        await other.end();
      }
    });

    it('notifies nothing for a transaction that rolls back', async () => {
      await expect(
        db.uow.run(async () => {
          await db.uow.query(`INSERT INTO uow_notify VALUES (2) RETURNING id`);
          await db.uow.notifyOnCommit('uow_chan', 'rolled-back');
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      // Outside a transaction it notifies at once; heard after the rolled-back one would have been.
      await db.uow.notifyOnCommit('uow_chan', 'marker');
      await hear('marker');
      expect(heard).not.toContain('rolled-back');
    });

    it('keeps the commit when the notification after it fails (a payload PostgreSQL refuses), and the connection serves on', async () => {
      await db.uow.run(async () => {
        await db.uow.query(`INSERT INTO uow_notify VALUES (3) RETURNING id`);
        await db.uow.notifyOnCommit('uow_chan', 'x'.repeat(9000));
      });
      expect(await db.uow.query(`SELECT id FROM uow_notify WHERE id = 3`)).toEqual([{ id: 3 }]);
      await db.uow.run(async () => {
        await db.uow.query(`INSERT INTO uow_notify VALUES (4) RETURNING id`);
        await db.uow.notifyOnCommit('uow_chan', 'after');
      });
      await hear('after');
    });
  });
});
