// A read model's rebuild from the log (read-model-rebuild.ts) on PostgreSQL: every aggregate of its kind, past
// one page of the log's listing, written again by the commands' own projection; corrupted, deleted and orphan
// rows put right; rows that refer to a rebuilt row kept; other kinds of streams and other tables left alone;
// commands running meanwhile.
import type { QueryRunner } from 'typeorm';
import type { Decider } from '@mm/platform/decider';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { CommandHandler, type AfterDecision } from './command-handler';
import { runCommand } from './command-runner';
import { EventStore } from './event-store';
import { createEventsTable, deferrableReferencesTo } from './events-table.migration';
import { ReadModels, rebuildReadModel } from './read-model-rebuild';

type CounterEvent = { type: 'counter.added'; data: { by: number } };
type Counter = { total: number; adds: number };
const counterDecider: Decider<{ add: number }, CounterEvent, Counter> = {
  initialState: () => ({ total: 0, adds: 0 }),
  evolve: (s, e) => ({ total: s.total + e.data.by, adds: s.adds + 1 }),
  decide: (c) => [{ type: 'counter.added', data: { by: c.add } }],
};

describe('rebuilding a read model from the log', () => {
  let db: TestDatabase;
  let store: EventStore;
  let commands: CommandHandler<{ add: number }, CounterEvent, Counter>;
  const project: AfterDecision<CounterEvent, Counter> = async ({ state, version }, { projectId, id }) => {
    await store.uow.query(
      `INSERT INTO test_rm.counters (id, project_id, total, adds, version) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (id) DO UPDATE SET total = EXCLUDED.total, adds = EXCLUDED.adds, version = EXCLUDED.version
       WHERE test_rm.counters.version < EXCLUDED.version`,
      [id, projectId, state.total, state.adds, version],
    );
  };
  const rows = () => db.uow.query(`SELECT * FROM test_rm.counters ORDER BY id`);
  const add = (id: string, by: number) => runCommand(db.uow, () => commands.handle('prj_1', id, { add: by }));

  beforeAll(async () => {
    db = await createTestDatabase();
    const runner: QueryRunner = db.dataSource.createQueryRunner();
    await createEventsTable(runner, 'test_rm');
    await runner.query(`CREATE TABLE test_rm.counters (id text PRIMARY KEY, project_id text NOT NULL,
      total integer NOT NULL, adds integer NOT NULL, version integer NOT NULL)`);
    await runner.query(
      `CREATE TABLE test_rm.notes (id serial PRIMARY KEY, counter_id text NOT NULL REFERENCES test_rm.counters (id))`,
    );
    await deferrableReferencesTo(runner, 'test_rm.counters');
    await runner.release();
    store = new EventStore(db.uow, 'test_rm');
    commands = new CommandHandler(store, {
      decider: counterDecider,
      streamId: (id) => `counter-${id}`,
      then: [project],
    });
    // More aggregates than one page of the listing (500), some with several events; a stream of another kind.
    await db.uow.run(async () => {
      for (let i = 0; i < 1_100; i++) await commands.handle('prj_1', `c${String(i).padStart(4, '0')}`, { add: i });
    });
    for (let i = 0; i < 1_100; i += 100) await add(`c${String(i).padStart(4, '0')}`, 1);
    await store.append('counterLog-1', 'no_stream', [{ type: 'other', data: {}, metadata: { projectId: 'prj_1' } }]);
    await db.uow.query(`INSERT INTO test_rm.notes (counter_id) VALUES ('c0100')`);
  }, 120_000);
  afterAll(() => db.close());

  it('writes every aggregate again as its commands did, putting right what was changed, deleted or made up', async () => {
    const original = await rows();
    expect(original).toHaveLength(1_100);
    await db.uow.query(`UPDATE test_rm.counters SET total = -1, version = 99 WHERE id IN ('c0100', 'c1099')`);
    await db.uow.query(`DELETE FROM test_rm.counters WHERE id = 'c0007'`);
    await db.uow.query(`INSERT INTO test_rm.counters VALUES ('c9999', 'prj_1', 5, 1, 1)`);
    const readModel = commands.readModel({ name: 'counters', table: 'test_rm.counters', step: project });

    const rebuilt = await rebuildReadModel(store, readModel);

    expect(rebuilt).toEqual({ readModel: 'counters', streams: 1_100, orphansRemoved: 1, tookMs: expect.any(Number) });
    expect(await rows()).toEqual(original);
    // The row that refers to a rebuilt one is still there.
    expect(await db.uow.query(`SELECT counter_id FROM test_rm.notes`)).toEqual([{ counter_id: 'c0100' }]);
  }, 60_000);

  it('lets commands run while it rebuilds, and ends with what they wrote', async () => {
    const readModel = commands.readModel({ name: 'counters', table: 'test_rm.counters', step: project });
    const [rebuilt] = await Promise.all([
      rebuildReadModel(store, readModel),
      (async () => {
        for (let i = 0; i < 20; i++) await add(`c${String(i * 50).padStart(4, '0')}`, 1_000);
      })(),
    ]);
    expect(rebuilt.streams).toBe(1_100);
    const after = await rows();
    expect(after.find((r) => r.id === 'c0050')).toMatchObject({ total: 1_050, adds: 2 });
    // As a rebuild from nothing but the log would write them.
    await db.uow.query(`DELETE FROM test_rm.counters WHERE id <> 'c0100'`);
    await rebuildReadModel(store, readModel);
    expect(await rows()).toEqual(after);
  }, 60_000);

  it('lists the read models of the services a process runs, and rebuilds by service and name', async () => {
    const readModels = new ReadModels(['counting', 'idle']);
    readModels.register({
      service: 'counting',
      store,
      readModels: [commands.readModel({ name: 'counters', table: 'test_rm.counters', step: project })],
    });
    expect(readModels.of('counting')?.map((m) => [m.name, m.tables])).toEqual([['counters', ['test_rm.counters']]]);
    expect(readModels.of('idle')).toEqual([]);
    expect(readModels.of('elsewhere')).toBeUndefined();
    expect((await readModels.rebuild('counting', 'counters')).map((r) => r.readModel)).toEqual(['counters']);
    expect(await readModels.rebuild('counting', 'nothing')).toEqual([]);
    expect(() => commands.readModel({ name: 'x', table: 'test_rm.counters; DROP TABLE x' })).toThrow('invalid table');
  }, 60_000);
});
