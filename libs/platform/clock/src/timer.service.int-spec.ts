import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { ProjectClock } from './project-clock';
import { TimerService, type DueTimer } from './timer.service';

describe('project clock and timers on PostgreSQL', () => {
  let db: TestDatabase;
  let clock: ProjectClock;
  let timers: TimerService;
  const fired: DueTimer[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    clock = new ProjectClock(db.uow);
    timers = new TimerService(db.uow, clock);
    timers.on('test.expire', async (timer) => {
      fired.push(timer);
    });
  });
  afterAll(async () => {
    await timers.onApplicationShutdown();
    await db.close();
  });
  beforeEach(() => {
    fired.length = 0;
  });

  it('runs each project on its own clock, which only moves forward', async () => {
    const before = await clock.now('prj_a');
    await clock.advance('prj_a', 3600);
    const a = await clock.now('prj_a');
    const b = await clock.now('prj_b');
    expect(a.getTime() - before.getTime()).toBeGreaterThanOrEqual(3600_000);
    expect(Math.abs(b.getTime() - Date.now())).toBeLessThan(5_000);
    await expect(clock.advance('prj_a', -10)).rejects.toThrow();
  });

  it('leaves due timers of kinds it has no handler for to the process that has one', async () => {
    const now = await clock.now('prj_k');
    await timers.schedule('prj_k', 'other.service', 'k-1', new Date(now.getTime() - 1000));
    expect(await timers.fireDue('prj_k')).toBe(0);
    const other = new TimerService(db.uow, clock);
    const seen: string[] = [];
    other.on('other.service', async (timer) => {
      seen.push(timer.key);
    });
    expect(await other.fireDue('prj_k')).toBe(1);
    expect(seen).toEqual(['k-1']);
  });

  it('fires a timer once its project clock passes the due time, and only once', async () => {
    const now = await clock.now('prj_c');
    await timers.schedule('prj_c', 'test.expire', 'code-1', new Date(now.getTime() + 3600_000), { code: '123 456' });
    expect(await timers.fireDue('prj_c')).toBe(0);
    await db.uow.run(async () => {
      await clock.advance('prj_c', 3599);
      expect(await timers.fireDue('prj_c')).toBe(0);
    });
    await db.uow.run(async () => {
      await clock.advance('prj_c', 2);
      expect(await timers.fireDue('prj_c')).toBe(1);
    });
    expect(fired).toEqual([
      expect.objectContaining({ projectId: 'prj_c', key: 'code-1', payload: { code: '123 456' } }),
    ]);
    expect(await timers.fireDue('prj_c')).toBe(0);
  });

  it('stops starting batches once its time budget is spent, leaving the timers still due to the next poll', async () => {
    const now = await clock.now('prj_b1');
    await db.uow.run(async () => {
      for (let i = 0; i < 120; i++)
        await timers.schedule('prj_b1', 'test.expire', `budget-${i}`, new Date(now.getTime() - 1000));
    });
    // A budget already spent: the first batch (50) fires, no other starts.
    expect(await timers.fireDue('prj_b1', 0)).toBe(50);
    expect(await timers.fireDue('prj_b1')).toBe(70);
    expect(new Set(fired.map((t) => t.key)).size).toBe(120);
  });

  it("leaves other projects' timers alone", async () => {
    const now = await clock.now('prj_d');
    await timers.schedule('prj_d', 'test.expire', 'code-d', new Date(now.getTime() + 60_000));
    await timers.schedule('prj_e', 'test.expire', 'code-e', new Date(now.getTime() + 60_000));
    await clock.advance('prj_d', 120);
    expect(await timers.fireDue('prj_d')).toBe(1);
    expect(fired.map((t) => t.key)).toEqual(['code-d']);
  });

  it("fires the timers due on each project's own clock, the one furthest ahead included, and none due later on slower clocks", async () => {
    const near = await clock.now('prj_near');
    await db.uow.run(async () => {
      for (let i = 0; i < 200; i++)
        await timers.schedule('prj_near', 'test.expire', `near-${i}`, new Date(near.getTime() + 86_400_000 + i * 1000));
    });
    await clock.advance('prj_far', 10 * 86_400);
    const far = await clock.now('prj_far');
    await timers.schedule('prj_far', 'test.expire', 'far-due', new Date(far.getTime() - 1000));
    await timers.schedule('prj_far', 'test.expire', 'far-later', new Date(far.getTime() + 3600_000));
    // Every project's timers at once, as the background poller fires them.
    await timers.fireDue();
    expect(fired.map((t) => t.key)).toEqual(['far-due']);
    await clock.advance('prj_near', 86_400 + 60);
    await timers.fireDue('prj_near');
    expect(fired.filter((t) => t.key.startsWith('near-')).map((t) => t.key)).toEqual(
      Array.from({ length: 61 }, (_, i) => `near-${i}`),
    );
  });

  it('re-scheduling the same key moves the timer instead of adding one', async () => {
    const now = await clock.now('prj_f');
    await timers.schedule('prj_f', 'test.expire', 'code-f', new Date(now.getTime() + 60_000));
    await timers.schedule('prj_f', 'test.expire', 'code-f', new Date(now.getTime() + 7200_000));
    await clock.advance('prj_f', 120);
    expect(await timers.fireDue('prj_f')).toBe(0);
    await timers.cancel('test.expire', 'code-f');
    await clock.advance('prj_f', 7200);
    expect(await timers.fireDue('prj_f')).toBe(0);
  });

  it('keeps a timer its own handler set anew pending at the new time (a sweeper that asks again later)', async () => {
    const runs: Date[] = [];
    timers.on('test.again', async (timer) => {
      runs.push(timer.dueAt);
      if (runs.length < 3)
        await timers.schedule(timer.projectId, 'test.again', timer.key, new Date(timer.dueAt.getTime() + 600_000));
    });
    const now = await clock.now('prj_h');
    await timers.schedule('prj_h', 'test.again', 'sweep', new Date(now.getTime() - 1000));
    expect(await timers.fireDue('prj_h')).toBe(1);
    expect(await timers.fireDue('prj_h')).toBe(0);
    await clock.advance('prj_h', 601);
    expect(await timers.fireDue('prj_h')).toBe(1);
    await clock.advance('prj_h', 601);
    expect(await timers.fireDue('prj_h')).toBe(1);
    // The third run set nothing anew: the timer is done.
    await clock.advance('prj_h', 3600);
    expect(await timers.fireDue('prj_h')).toBe(0);
    expect(runs.map((d) => d.getTime() - runs[0].getTime())).toEqual([0, 600_000, 1_200_000]);
  });

  it('rolls back a timer whose handler fails, so it fires again later', async () => {
    let failing = true;
    timers.on('test.flaky', async () => {
      if (failing) throw new Error('handler down');
    });
    const now = await clock.now('prj_g');
    await timers.schedule('prj_g', 'test.flaky', 'flaky', new Date(now.getTime() - 1000));
    await expect(timers.fireDue('prj_g')).rejects.toThrow('handler down');
    failing = false;
    expect(await timers.fireDue('prj_g')).toBe(1);
  });

  it('runs a due timer on a clock that has reached it, though its process has not yet heard the advance', async () => {
    // Another process (its own connections, its clock's offsets kept in memory and told of changes) polls
    // for timers. The database finds a timer due as soon as an advance commits; the process hears of the
    // advance a moment later. A poll in between must not run the handler on the clock it remembers, or an
    // expiry would find nothing expired and the timer would be spent for nothing.
    const process2 = await anotherProcess(db);
    const clock2 = new ProjectClock(process2.uow);
    await clock2.onApplicationBootstrap();
    const timers2 = new TimerService(process2.uow, clock2);
    const seen: { dueAt: Date; now: Date }[] = [];
    timers2.on('test.lapse', async (timer) => {
      seen.push({ dueAt: timer.dueAt, now: await clock2.now(timer.projectId) });
    });
    try {
      const start = await clock2.now('prj_unheard');
      await clock.advance('prj_unheard', 60);
      // Answered once every process has heard it: the other process remembers the new offset.
      expect((await clock2.now('prj_unheard')).getTime() - start.getTime()).toBeGreaterThanOrEqual(60_000);
      const dueAt = new Date((await clock2.now('prj_unheard')).getTime() + 3600_000);
      await timers.schedule('prj_unheard', 'test.lapse', 'lapse-1', dueAt);
      // The advance's notification held back, as if still on its way (its trigger does not run for this session).
      await db.uow.run(async () => {
        await db.uow.query(`SET LOCAL session_replication_role = replica`);
        await db.uow.query(
          `UPDATE platform.sandbox_clocks SET offset_ms = offset_ms + 7200000 WHERE project_id = 'prj_unheard'`,
        );
      });
      expect((await clock2.now('prj_unheard')).getTime()).toBeLessThan(dueAt.getTime());
      expect(await timers2.fireDue('prj_unheard')).toBe(1);
      expect(seen).toHaveLength(1);
      expect(seen[0].now.getTime()).toBeGreaterThanOrEqual(dueAt.getTime());
      // And the process goes on reading the advanced clock.
      expect((await clock2.now('prj_unheard')).getTime()).toBeGreaterThanOrEqual(dueAt.getTime());
    } finally {
      await clock2.onApplicationShutdown();
      await process2.close();
    }
  });
});
