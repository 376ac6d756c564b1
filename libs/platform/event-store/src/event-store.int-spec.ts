import { Client } from 'pg';
import type { QueryRunner } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { checkpointOf, ConcurrencyError, EventStore, START } from './event-store';
import { createEventsTable } from './events-table.migration';
import { Subscription } from './subscription';
import { isRetryable, runCommand } from './command-runner';

describe('EventStore on PostgreSQL', () => {
  let db: TestDatabase;
  let store: EventStore;
  /** Other test files' transactions (a template clone is one) share the cluster's read horizon: wait for it rather than assume it. */
  /** Waits until the read horizon has passed the last event of `of` (by default the shared test log). */
  const settled = async (of: EventStore = store) => {
    const deadline = Date.now() + 60_000;
    while (!(await of.allVisible())) {
      if (Date.now() > deadline) throw new Error('the read horizon did not pass the last event within 60s');
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  /** readAll, repeated until it returns every committed event after the checkpoint (counted without the horizon). */
  const readSettled = async (after = START, limit = 10000) => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const events = await store.readAll(after, limit);
      const [{ n }] = await db.uow.query<{ n: string }>(
        `SELECT count(*) AS n FROM test_es.events WHERE (transaction_id, global_position) > ($1::xid8, $2::bigint)`,
        [after.transactionId, after.globalPosition],
      );
      if (events.length === Math.min(Number(n), limit)) return events;
      if (Date.now() > deadline) throw new Error('committed events stayed behind the read horizon for 60s');
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    const runner: QueryRunner = db.dataSource.createQueryRunner();
    await createEventsTable(runner, 'test_es');
    await runner.release();
    store = new EventStore(db.uow, 'test_es');
  });
  afterAll(() => db.close());

  it('appends to a new stream and reads it back in version order', async () => {
    await store.append('order-1', 'no_stream', [
      { type: 'order.placed', data: { amount: '10.50' }, metadata: { projectId: 'prj_1' } },
      { type: 'order.paid', data: {} },
    ]);
    const events = await store.readStream('order-1');
    expect(events.map((e) => [e.streamVersion, e.type])).toEqual([
      [1, 'order.placed'],
      [2, 'order.paid'],
    ]);
    expect(events[0].data).toEqual({ amount: '10.50' });
    expect(events[0].metadata.projectId).toBe('prj_1');
    expect(events[0].eventId).toMatch(/^evt_[0-9a-hjkmnp-tv-z]{26}$/);
  });

  it('tells whether a stream has events, a stream of an uncommitted transaction only inside it', async () => {
    expect(await store.streamExists('exists-1')).toBe(false);
    await db.uow.run(async () => {
      await store.append('exists-1', 'no_stream', [{ type: 'thing.made', data: {} }]);
      expect(await store.streamExists('exists-1')).toBe(true);
      expect(await db.uow.runDetached(() => store.streamExists('exists-1'))).toBe(false);
    });
    expect(await store.streamExists('exists-1')).toBe(true);
    expect(await store.streamExists('exists-')).toBe(false);
  });

  it('refuses an append at a stale expected version', async () => {
    await store.append('order-2', 'no_stream', [{ type: 'order.placed', data: {} }]);
    await expect(store.append('order-2', 'no_stream', [{ type: 'order.placed', data: {} }])).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await expect(store.append('order-2', 0, [{ type: 'order.paid', data: {} }])).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    await expect(store.append('order-2', 5, [{ type: 'order.paid', data: {} }])).rejects.toBeInstanceOf(
      ConcurrencyError,
    );
    expect(await store.readStream('order-2')).toHaveLength(1);
  });

  it("appends after whatever version the stream is at when expecting 'any'", async () => {
    await store.append('order-any', 'any', [{ type: 'order.placed', data: {} }]);
    await store.append('order-any', 'any', [
      { type: 'order.paid', data: {} },
      { type: 'order.shipped', data: {} },
    ]);
    expect((await store.readStream('order-any')).map((e) => e.streamVersion)).toEqual([1, 2, 3]);
  });

  it('appends at the end of a stream with the next statement, whatever its version', async () => {
    await db.uow.run(async () => {
      await store.appendDeferred('deferred-end-1', [
        { type: 'thing.made', data: { n: 1 }, metadata: { projectId: 'prj_1' } },
      ]);
      await store.appendDeferred('deferred-end-1', [
        { type: 'thing.changed', data: { n: 2 } },
        { type: 'thing.changed', data: { n: 3, nested: { amount: '1.00' } } },
      ]);
    });
    // Not inside a transaction: a statement of its own.
    await store.appendDeferred('deferred-end-1', [{ type: 'thing.ended', data: {} }]);
    const events = await store.readStream('deferred-end-1');
    expect(events.map((e) => [e.streamVersion, e.type, e.data])).toEqual([
      [1, 'thing.made', { n: 1 }],
      [2, 'thing.changed', { n: 2 }],
      [3, 'thing.changed', { n: 3, nested: { amount: '1.00' } }],
      [4, 'thing.ended', {}],
    ]);
    expect(events[0].metadata.projectId).toBe('prj_1');
    expect(new Set(events.map((e) => e.eventId)).size).toBe(4);
  });

  it('lets exactly one of many concurrent appends at the same version win', async () => {
    await store.append('race', 'no_stream', [{ type: 'race.started', data: {} }]);
    const attempts = Array.from({ length: 8 }, (_, i) =>
      db.uow.run(() => store.append('race', 1, [{ type: 'race.won', data: { by: i } }])),
    );
    const results = await Promise.allSettled(attempts);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r) => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(7);
    for (const r of lost) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(ConcurrencyError);
    expect(await store.readStream('race')).toHaveLength(2);
  });

  it('retries a command that lost a version race, so every concurrent command lands once', async () => {
    await store.append('counter', 'no_stream', [{ type: 'counter.started', data: {} }]);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        runCommand(
          db.uow,
          async () => {
            const history = await store.readStream('counter');
            await store.append('counter', history.length, [{ type: 'counter.incremented', data: { i } }]);
          },
          20,
        ),
      ),
    );
    const events = await store.readStream('counter');
    expect(events.map((e) => e.streamVersion)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('refuses to update or delete events', async () => {
    await expect(db.uow.query(`UPDATE test_es.events SET type = 'x'`)).rejects.toThrow(/append-only/);
    await expect(db.uow.query(`DELETE FROM test_es.events`)).rejects.toThrow(/append-only/);
  });

  it('rolls back the events of a transaction that fails', async () => {
    await expect(
      db.uow.run(async () => {
        await store.append('rolled-back', 'no_stream', [{ type: 'x.happened', data: {} }]);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.readStream('rolled-back')).toEqual([]);
  });

  it('reads all events in commit-safe global order from a checkpoint', async () => {
    const all = await readSettled(START, 1000);
    expect(all.length).toBeGreaterThan(5);
    const rest = await readSettled(
      { transactionId: all[2].transactionId, globalPosition: all[2].globalPosition },
      1000,
    );
    expect(rest.map((e) => e.eventId)).toEqual(all.slice(3).map((e) => e.eventId));
  });

  it('orders by transaction id as a number, across a change in its digit count', async () => {
    const runner = db.dataSource.createQueryRunner();
    await createEventsTable(runner, 'test_digits');
    await runner.release();
    const digits = new EventStore(db.uow, 'test_digits');
    // Rows as transactions 98..101 would have written them (all far below the horizon by now).
    await db.uow.query(
      `INSERT INTO test_digits.events (event_id, transaction_id, stream_id, stream_version, type, data)
       SELECT 'evt_digits_' || x, x::text::xid8, 'digits-' || x, 1, 'digits.written', '{}' FROM generate_series(98, 101) AS x`,
    );
    const first = await digits.readAll(START, 3);
    expect(first.map((e) => e.transactionId)).toEqual(['98', '99', '100']);
    const next = await digits.readAll(checkpointOf(first[1]), 2);
    expect(next.map((e) => e.transactionId)).toEqual(['100', '101']);
  });

  it('does not hand out an event while an earlier-started transaction may still commit before it', async () => {
    const before = await readSettled(START, 10000);
    const after = before[before.length - 1];
    const runner = db.dataSource.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    // The slow transaction takes its id first, then a later one commits.
    await runner.query(`SELECT pg_current_xact_id()`);
    await store.append('fast', 'no_stream', [{ type: 'fast.done', data: {} }]);
    expect(await store.readAll({ transactionId: after.transactionId, globalPosition: after.globalPosition })).toEqual(
      [],
    );
    await runner.query(
      `INSERT INTO test_es.events (event_id, stream_id, stream_version, type, data) VALUES ('evt_slow', 'slow', 1, 'slow.done', '{}')`,
    );
    await runner.commitTransaction();
    await runner.release();
    const seen = await readSettled({ transactionId: after.transactionId, globalPosition: after.globalPosition });
    expect(seen.map((e) => e.type)).toEqual(['slow.done', 'fast.done']);
  });

  describe('subscriptions', () => {
    it('handles each event once, in order, and resumes from its checkpoint', async () => {
      const seen: string[] = [];
      const sub = new Subscription(
        db.uow,
        'test-sub',
        [store],
        async (e) => {
          seen.push(e.eventId);
        },
        { batchSize: 3 },
      );
      await settled();
      await sub.drain();
      const all = await readSettled();
      expect(seen).toEqual(all.map((e) => e.eventId));

      await store.append('later', 'no_stream', [{ type: 'later.happened', data: {} }]);
      await settled();
      const resumed = new Subscription(db.uow, 'test-sub', [store], async (e) => {
        seen.push(e.eventId);
      });
      await resumed.drain();
      expect(seen).toHaveLength(all.length + 1);
      expect(seen[seen.length - 1]).toBe((await store.readStream('later'))[0].eventId);
    });

    it('rebuilds from the start when its checkpoint is reset or deleted by hand', async () => {
      const seen: string[] = [];
      const sub = new Subscription(db.uow, 'rebuildable', [store], async (e) => {
        seen.push(e.eventId);
      });
      await settled();
      await sub.drain();
      const total = seen.length;
      expect(total).toBeGreaterThan(0);
      await sub.reset();
      await sub.drain();
      expect(seen).toHaveLength(2 * total);
      await db.uow.query(`DELETE FROM platform.subscription_checkpoints WHERE subscription = 'rebuildable'`);
      expect(await sub.pollOnce()).toBe(0);
      await sub.drain();
      expect(seen).toHaveLength(3 * total);
    });

    it('reads the events of types it does not act on without their data or metadata, and moves its checkpoint past them', async () => {
      const runner: QueryRunner = db.dataSource.createQueryRunner();
      await createEventsTable(runner, 'test_es_typed');
      await runner.release();
      const typed = new EventStore(db.uow, 'test_es_typed');
      await typed.append('t-1', 'no_stream', [
        {
          type: 'kept.happened',
          data: { n: 1 },
          metadata: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        },
        {
          type: 'ignored.happened',
          data: { secret: 'x' },
          metadata: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
        },
        { type: 'kept.happened', data: { n: 2 } },
      ]);
      await settled(typed);
      const seen: Array<{ type: string; data: unknown; metadata: unknown }> = [];
      const sub = new Subscription(
        db.uow,
        'typed-sub',
        [typed],
        async (e) => {
          seen.push({ type: e.type, data: e.data, metadata: e.metadata });
        },
        { types: ['kept.happened'] },
      );
      await sub.drain();
      expect(seen).toEqual([
        {
          type: 'kept.happened',
          data: { n: 1 },
          metadata: expect.objectContaining({ traceparent: expect.any(String) }),
        },
        { type: 'ignored.happened', data: null, metadata: {} },
        { type: 'kept.happened', data: { n: 2 }, metadata: expect.any(Object) },
      ]);
      const [last] = (await typed.readStream('t-1')).slice(-1);
      expect(await sub.checkpoint(typed)).toEqual(checkpointOf(last));
    });

    it('keeps the checkpoint where it was when a handler fails, so the event is retried', async () => {
      let fail = true;
      const handled: string[] = [];
      const sub = new Subscription(db.uow, 'failing-sub', [store], async (e) => {
        if (fail && e.type === 'order.paid') throw new Error('handler down');
        handled.push(e.type);
      });
      await settled();
      await expect(sub.drain()).rejects.toThrow('handler down');
      expect(await sub.checkpoint(store)).toEqual(START);
      fail = false;
      handled.length = 0;
      await sub.drain();
      expect(handled[0]).toBe('order.placed');
      expect(handled).toContain('order.paid');
    });

    it('reads several logs in one transaction of two round trips, and a handler failing on one log holds back that log alone', async () => {
      const runner: QueryRunner = db.dataSource.createQueryRunner();
      await createEventsTable(runner, 'test_es_other');
      await runner.release();
      const other = new EventStore(db.uow, 'test_es_other');
      await other.append('other-1', 'no_stream', [
        { type: 'other.happened', data: {} },
        { type: 'other.happened', data: {} },
      ]);
      let fail = true;
      const handled: string[] = [];
      const sub = new Subscription(db.uow, 'two-logs', [store, other], async (e) => {
        if (fail && e.source === 'test_es') throw new Error('handler down');
        handled.push(`${e.source} ${e.type}`);
      });
      await settled();
      await settled(other);
      // The failing log's events roll back under their savepoint; the other log's are handled and checkpointed,
      // in two round trips: the locks and both logs' events (with BEGIN), then the checkpoint with the COMMIT
      // (after the one that makes the subscription's checkpoint rows, its first time).
      const queries: unknown[] = [];
      const query = Client.prototype.query;
      Client.prototype.query = function (this: Client, ...args: unknown[]) {
        queries.push(args[0]);
        return (query as (...a: unknown[]) => unknown).apply(this, args);
      } as typeof query;
      try {
        await expect(sub.pollOnce()).rejects.toThrow('handler down');
      } finally {
        Client.prototype.query = query;
      }
      expect(queries).toHaveLength(3);
      expect(handled).toEqual(['test_es_other other.happened', 'test_es_other other.happened']);
      expect(await sub.checkpoint(store)).toEqual(START);
      expect((await sub.checkpoint(other)).globalPosition).not.toBe(START.globalPosition);
      // Nothing of the other log again; the failed one once it mends.
      fail = false;
      handled.length = 0;
      await sub.drain();
      expect(handled.every((h) => h.startsWith('test_es '))).toBe(true);
      expect(handled.length).toBe((await readSettled()).length);
    });

    it("reads a log that does not exist yet as empty, and from its start once it does (another service's, before its first start)", async () => {
      const later = new EventStore(db.uow, 'test_es_later');
      const absent: string[][] = [];
      const handled: string[] = [];
      const errors: unknown[] = [];
      const sub = new Subscription(
        db.uow,
        'reads-a-later-log',
        [store, later],
        async (e) => void handled.push(e.source),
        {
          onAbsent: (schemas) => absent.push(schemas),
          onError: (error) => errors.push(error),
        },
      );
      await settled();
      await sub.drain();
      await sub.drain();
      // The log that exists is read; the other is told absent once, and fails nothing.
      expect(handled.length).toBeGreaterThan(0);
      expect(handled.every((source) => source === 'test_es')).toBe(true);
      expect(absent).toEqual([['test_es_later']]);
      expect(errors).toEqual([]);

      const runner: QueryRunner = db.dataSource.createQueryRunner();
      await createEventsTable(runner, 'test_es_later');
      await runner.release();
      await later.append('later-1', 'no_stream', [
        { type: 'later.happened', data: {} },
        { type: 'later.happened', data: {} },
      ]);
      await settled(later);
      handled.length = 0;
      await sub.drain();
      expect(handled).toEqual(['test_es_later', 'test_es_later']);
      expect(await sub.checkpoint(later)).toEqual(checkpointOf((await later.readStream('later-1'))[1]));
    });

    it('reads with a statement PostgreSQL plans once a connection, not at every poll', async () => {
      await settled();
      const sub = new Subscription(db.uow, 'planned-once', [store], async () => undefined, {
        types: ['order.placed'],
        batchSize: 2,
      });
      await sub.drain();
      const statement = store.readAfterCheckpointStatement('planned-once', 'planned-once\ntest_es', 2, [
        'order.placed',
      ]);
      // The same statement polled on one connection again and again: after PostgreSQL's five custom plans, its
      // generic plan (a limit given as a parameter made every plan a custom one).
      const plans = await db.uow.run(async () => {
        for (let i = 0; i < 10; i++) await db.uow.batch([statement]);
        return db.uow.query<{ generic_plans: string; custom_plans: string }>(
          `SELECT generic_plans::text, custom_plans::text FROM pg_prepared_statements WHERE statement = $1`,
          [statement.sql],
        );
      });
      expect(plans).toHaveLength(1);
      expect(Number(plans[0].custom_plans)).toBeLessThanOrEqual(5);
      expect(Number(plans[0].generic_plans)).toBeGreaterThanOrEqual(5);
    });

    describe("a stream's versions committed against transaction-id order", () => {
      let log: EventStore;
      let schema: string;
      let made = 0;
      beforeEach(async () => {
        schema = `test_es_order_${'abc'[made++]}`;
        const runner: QueryRunner = db.dataSource.createQueryRunner();
        await createEventsTable(runner, schema);
        await runner.release();
        log = new EventStore(db.uow, schema);
      });
      /** A connection of its own, in a transaction that has taken its id. */
      const early = async () => {
        const client = new Client({ connectionString: db.url });
        await client.connect();
        await client.query('BEGIN');
        await client.query('SELECT pg_current_xact_id()');
        return client;
      };
      const insert = (client: Client, id: string, stream: string, version: number) =>
        client.query(
          `INSERT INTO ${schema}.events (event_id, stream_id, stream_version, type, data) VALUES ($1, $2, $3, 'thing.happened', '{}')`,
          [id, stream, version],
        );
      const names = (events: Array<{ eventId: string }>) => events.map((e) => e.eventId);

      it('hands each stream over in version order when a later version has the earlier transaction id', async () => {
        // The first transaction takes its id, then a later one appends a-1 and commits; the first appends
        // a-2 after it (as under the stream's lock), then b-1.
        const first = await early();
        await log.append('a', 'no_stream', [{ type: 'thing.happened', data: {} }]);
        const [a1] = await log.readStream('a');
        await insert(first, 'evt_a2', 'a', 2);
        await insert(first, 'evt_b1', 'b', 1);
        await first.query('COMMIT');
        await first.end();
        await settled(log);
        const seen: string[] = [];
        await new Subscription(db.uow, `order-${made}`, [log], async (e) => {
          seen.push(e.eventId);
        }).drain();
        // Read order is a-2, b-1, a-1 (by transaction id); a-2 waits for a-1.
        expect(names(await log.readAll())).toEqual(['evt_a2', 'evt_b1', a1.eventId]);
        expect(seen).toEqual(['evt_b1', a1.eventId, 'evt_a2']);
      });

      it("stops before a version whose stream's previous one is still beyond the read horizon, and hands both over once it is not", async () => {
        const first = await early();
        // A transaction started between the two holds the horizon between their ids.
        const between = await early();
        await log.append('a', 'no_stream', [{ type: 'thing.happened', data: {} }]);
        const [a1] = await log.readStream('a');
        await insert(first, 'evt_c1', 'c', 1);
        await insert(first, 'evt_a2', 'a', 2);
        await first.query('COMMIT');
        await first.end();
        const seen: string[] = [];
        const sub = new Subscription(db.uow, `order-${made}`, [log], async (e) => {
          seen.push(e.eventId);
        });
        // c-1 and a-2 are readable (their id is below the horizon), a-1 is not: c-1 alone is handed over.
        expect(names(await log.readAll())).toEqual(['evt_c1', 'evt_a2']);
        await sub.drain();
        expect(seen).toEqual(['evt_c1']);
        await between.query('ROLLBACK');
        await between.end();
        await settled(log);
        await sub.drain();
        expect(seen).toEqual(['evt_c1', a1.eventId, 'evt_a2']);
        expect(await sub.checkpoint(log)).toEqual(checkpointOf((await log.readStream('a'))[0]));
      });

      it("reads more when a whole batch waits for its stream's previous version, read after the batch", async () => {
        const first = await early();
        const second = await early();
        await log.append('a', 'no_stream', [{ type: 'thing.happened', data: {} }]);
        const [a1] = await log.readStream('a');
        await insert(first, 'evt_a2', 'a', 2);
        await first.query('COMMIT');
        await first.end();
        for (const n of [1, 2, 3]) await insert(second, `evt_x${n}`, 'x', n);
        await second.query('COMMIT');
        await second.end();
        await settled(log);
        // Read order a-2, x-1, x-2, x-3, a-1: a batch of two, then of four, has nothing to hand over.
        expect(names(await log.readAll())).toEqual(['evt_a2', 'evt_x1', 'evt_x2', 'evt_x3', a1.eventId]);
        const seen: string[] = [];
        await new Subscription(
          db.uow,
          `order-${made}`,
          [log],
          async (e) => {
            seen.push(e.eventId);
          },
          { batchSize: 2 },
        ).drain();
        expect(seen).toEqual(['evt_x1', 'evt_x2', 'evt_x3', a1.eventId, 'evt_a2']);
      });
    });

    it('never lets two instances of one subscription handle the same event', async () => {
      const counts = new Map<string, number>();
      const handler = async (e: { eventId: string }) => {
        counts.set(e.eventId, (counts.get(e.eventId) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 1));
      };
      await settled();
      const a = new Subscription(db.uow, 'competing', [store], handler, { batchSize: 2 });
      const b = new Subscription(db.uow, 'competing', [store], handler, { batchSize: 2 });
      await Promise.all([a.drain(), b.drain()]);
      await a.drain();
      const total = (await readSettled()).length;
      expect(counts.size).toBe(total);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
    });
  });

  it('appends a new stream with the next statement: committed with it, versions from 1, a stream that exists refused as a retryable race', async () => {
    const answered = await db.uow.run(async () => {
      const events = await store.appendNewStreamDeferred('fresh-1', [
        { type: 'fresh.made', data: { n: 1 }, metadata: { projectId: 'prj_1' } },
        { type: 'fresh.noted', data: { n: 2 } },
      ]);
      // Not yet sent: the next statement carries it, so the transaction's own reads see it.
      expect((await store.readStream('fresh-1')).map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
      return events;
    });
    const stored = await store.readStream('fresh-1');
    expect(stored.map((e) => [e.streamVersion, e.type, e.data])).toEqual([
      [1, 'fresh.made', { n: 1 }],
      [2, 'fresh.noted', { n: 2 }],
    ]);
    expect(answered.map((e) => [e.eventId, e.streamVersion, e.metadata.projectId])).toEqual(
      stored.map((e) => [e.eventId, e.streamVersion, e.metadata.projectId]),
    );
    expect(stored[0].globalPosition).not.toBe('');
    // Rolled back with its transaction.
    await expect(
      db.uow.run(async () => {
        await store.appendNewStreamDeferred('fresh-2', [{ type: 'fresh.made', data: {} }]);
        throw new Error('the command fails');
      }),
    ).rejects.toThrow('the command fails');
    expect(await store.readStream('fresh-2')).toEqual([]);
    // A stream that exists after all: the unique (stream, version) constraint, which the command runner retries.
    const error = await db.uow
      .run(() => store.appendNewStreamDeferred('fresh-1', [{ type: 'fresh.made', data: {} }]))
      .catch((e: unknown) => e);
    expect(isRetryable(error)).toBe(true);
    expect((await store.readStream('fresh-1')).length).toBe(2);
  });

  it('appends after a stream read under its lock with the next statement, at the versions after it; a writer that moved it first is retried', async () => {
    await store.append('locked-1', 'no_stream', [{ type: 'locked.opened', data: {} }]);
    // Eight commands on the stream at once, each locking and reading it, then appending after what it read.
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        runCommand(db.uow, async () => {
          const history = await store.lockAndReadStream('locked-1');
          await store.appendAfterDeferred('locked-1', history.length, [{ type: 'locked.noted', data: { i } }]);
        }),
      ),
    );
    const stored = await store.readStream('locked-1');
    expect(stored.map((e) => e.streamVersion)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(
      stored
        .slice(1)
        .map((e) => (e.data as { i: number }).i)
        .sort(),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // A version read without the lock and overtaken: the unique (stream, version) constraint, which the command runner retries.
    const error = await db.uow
      .run(() => store.appendAfterDeferred('locked-1', 3, [{ type: 'locked.noted', data: {} }]))
      .catch((e: unknown) => e);
    expect(isRetryable(error)).toBe(true);
    expect(await store.readStream('locked-1')).toHaveLength(9);
  });
});
