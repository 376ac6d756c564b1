// Read your writes across processes (issue 17): once an advance of a project's
// clock has been answered, every process reads the advanced clock, though each
// keeps offsets in memory. Two ProjectClocks with connections and feeds of their
// own stand for two processes on one database.
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { ProjectClock } from './project-clock';

describe('a project clock kept in memory by several processes', () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let here: ProjectClock;
  let there: ProjectClock;

  beforeAll(async () => {
    db = await createTestDatabase();
    other = await anotherProcess(db);
    here = new ProjectClock(db.uow);
    there = new ProjectClock(other.uow);
    await here.onApplicationBootstrap();
    await there.onApplicationBootstrap();
  });
  afterAll(async () => {
    await there.onApplicationShutdown();
    await here.onApplicationShutdown();
    await other.close();
    await db.close();
  });

  it('is read advanced by every process as soon as the advance is answered', async () => {
    // Many rounds: without acknowledgements the other process's notification often arrives after the answer.
    for (let round = 1; round <= 25; round++) {
      const project = `prj_round${round}`;
      // The other process has the offset in memory.
      const before = await there.offsetMs(project);
      expect(await there.offsetMs(project)).toBe(before);
      // The command that advances it, answered once it has committed.
      await db.uow.run(() => here.advance(project, 3600));
      expect({ round, offset: await there.offsetMs(project) }).toEqual({ round, offset: before + 3_600_000 });
    }
  });

  it('is read advanced by every process even when a change numbered after it was heard first', async () => {
    // An advance numbered first commits last: another advance, numbered after it, committed and was heard
    // meanwhile. Its author must still wait until every process has heard its own change.
    for (let round = 1; round <= 25; round++) {
      const slow = `prj_slow${round}`;
      const before = await there.offsetMs(slow);
      await db.uow.run(async () => {
        await here.advance(slow, 3600);
        await db.uow.runDetached(() => here.advance(`prj_fast${round}`, 60));
      });
      expect({ round, offset: await there.offsetMs(slow) }).toEqual({ round, offset: before + 3_600_000 });
    }
  });

  it('does not wait for a process that has gone without saying so', async () => {
    // A listener that stopped answering long ago (a crashed process) is not waited for.
    await db.uow.query(
      `INSERT INTO platform.cache_listeners (listener_id, channel, heard, alive_at) VALUES ('gone', 'mm_clock_changes', 0, now() - interval '1 hour')`,
    );
    const started = Date.now();
    await db.uow.run(() => here.advance('prj_gone', 60));
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(await there.offsetMs('prj_gone')).toBe(60_000);
  });
});
