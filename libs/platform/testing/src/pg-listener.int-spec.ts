// PgListener (libs/platform/database) on a real PostgreSQL: the listeners of one process share one LISTEN
// connection per database (ADR 0052), each hearing its own channels, and come back together after a loss.
import { PgListener, type PgListenerHandlers } from '@mm/platform/database';
import { createTestDatabase, type TestDatabase } from './test-database';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

/** What one listener heard and was told, with a way to wait until something has arrived. */
class Ear implements PgListenerHandlers {
  readonly heard: Array<[string, string]> = [];
  losses = 0;
  resumptions = 0;
  private waiters: Array<() => void> = [];
  onNotification(channel: string, payload: string): void {
    this.heard.push([channel, payload]);
    this.settle();
  }
  onLost(): void {
    this.losses++;
    this.settle();
  }
  onResumed(): void {
    this.resumptions++;
    this.settle();
  }
  /** Resolves once `done` holds (checked at each arrival). */
  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => (done() ? resolve() : this.waiters.push(check));
      this.waiters.push(check);
    });
  }
  private settle(): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const check of waiting) check();
  }
}

describe('PgListener', () => {
  let db: TestDatabase;
  const application = `pg_listener_${process.pid}`;
  let config: { connectionString: string; application_name: string };
  const started: PgListener[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(2);
    config = { connectionString: db.url, application_name: application };
  });
  afterEach(async () => {
    await Promise.all(started.splice(0).map((listener) => listener.stop()));
  });
  afterAll(() => db.close());

  const listen = async (channels: string[], ear: Ear, reconnectMs = 50) => {
    const listener = new PgListener(config, channels, ear, quiet, reconnectMs);
    started.push(listener);
    await listener.start();
    return listener;
  };
  const backends = async () =>
    (
      await db.uow.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 ORDER BY pid`, [
        application,
      ])
    ).map((r) => r.pid);
  const notify = (channel: string, payload: string) => db.uow.query(`SELECT pg_notify($1, $2)`, [channel, payload]);

  it('gives the listeners of one database one connection, each hearing its own channels only', async () => {
    const [a, b, c] = [new Ear(), new Ear(), new Ear()];
    await listen(['pgl_one'], a);
    await listen(['pgl_two', 'pgl_shared'], b);
    await listen(['pgl_shared'], c);
    expect(await backends()).toHaveLength(1);

    await notify('pgl_one', '1');
    await notify('pgl_two', '2');
    await notify('pgl_shared', '3');
    await Promise.all([
      a.until(() => a.heard.length >= 1),
      b.until(() => b.heard.length >= 2),
      c.until(() => c.heard.length >= 1),
    ]);
    // A notification after the others, heard by all three: nothing else can still be on its way.
    await notify('pgl_one', 'end');
    await notify('pgl_shared', 'end');
    await Promise.all([
      a.until(() => a.heard.length >= 2),
      b.until(() => b.heard.length >= 3),
      c.until(() => c.heard.length >= 2),
    ]);
    expect(a.heard).toEqual([
      ['pgl_one', '1'],
      ['pgl_one', 'end'],
    ]);
    expect(b.heard).toEqual([
      ['pgl_two', '2'],
      ['pgl_shared', '3'],
      ['pgl_shared', 'end'],
    ]);
    expect(c.heard).toEqual([
      ['pgl_shared', '3'],
      ['pgl_shared', 'end'],
    ]);
  });

  it('keeps the connection for those still listening when one stops, and closes it with the last', async () => {
    const [a, b] = [new Ear(), new Ear()];
    const first = await listen(['pgl_first'], a);
    const second = await listen(['pgl_second'], b);
    const [pid] = await backends();
    await first.stop();
    expect(first.listening).toBe(false);
    expect(second.listening).toBe(true);
    expect(await backends()).toEqual([pid]);
    await notify('pgl_first', 'after');
    await notify('pgl_second', 'after');
    await b.until(() => b.heard.length >= 1);
    expect(b.heard).toEqual([['pgl_second', 'after']]);
    expect(a.heard).toEqual([]);
    await second.stop();
    expect(await backends()).toEqual([]);
  });

  it('tells every listener of a lost connection, then of its return, and they hear again', async () => {
    const [a, b] = [new Ear(), new Ear()];
    await listen(['pgl_lost_a'], a);
    const second = await listen(['pgl_lost_b'], b);
    const [pid] = await backends();
    await db.uow.query(`SELECT pg_terminate_backend($1)`, [pid]);
    await Promise.all([a.until(() => a.resumptions === 1), b.until(() => b.resumptions === 1)]);
    expect([a.losses, b.losses]).toEqual([1, 1]);
    expect(second.listening).toBe(true);
    const [again] = await backends();
    expect(again).not.toBe(pid);
    await notify('pgl_lost_a', 'back');
    await notify('pgl_lost_b', 'back');
    await Promise.all([a.until(() => a.heard.length >= 1), b.until(() => b.heard.length >= 1)]);
    expect(a.heard).toEqual([['pgl_lost_a', 'back']]);
    expect(b.heard).toEqual([['pgl_lost_b', 'back']]);
  });

  it('runs the statements of its listeners on the LISTEN connection, one after another in the order asked', async () => {
    const [a, b] = [new Ear(), new Ear()];
    const first = await listen(['pgl_query_a'], a);
    const second = await listen(['pgl_query_b'], b);
    const [pid] = await backends();
    const pids: number[] = [];
    const asked = Array.from({ length: 6 }, (_, i) =>
      (i % 2 === 0 ? first : second)
        .query(`SELECT pg_notify('pgl_query_a', $1 || ' ' || pg_backend_pid())`, [String(i)])
        .then((ran) => expect(ran).toBe(true)),
    );
    await Promise.all(asked);
    await a.until(() => a.heard.length >= 6);
    for (const [, payload] of a.heard) pids.push(Number(payload.split(' ')[1]));
    expect(a.heard.map(([, payload]) => payload.split(' ')[0])).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(new Set(pids)).toEqual(new Set([pid]));
  });

  it('refuses a channel name that is not plain lower-case letters', () => {
    expect(() => new PgListener(config, ['bad; DROP TABLE x'], new Ear(), quiet)).toThrow(/invalid channel name/);
  });

  it('rejects start when the database cannot be reached, leaving nothing behind', async () => {
    const unreachable = new PgListener(
      { ...config, connectionString: db.url.replace(/:(\d+)\//, ':1/') },
      ['pgl_unreachable'],
      new Ear(),
      quiet,
    );
    await expect(unreachable.start()).rejects.toThrow();
    expect(unreachable.listening).toBe(false);
    await unreachable.stop();
    // The database's own listeners are not disturbed by it.
    const ear = new Ear();
    await listen(['pgl_reachable'], ear);
    await notify('pgl_reachable', 'here');
    await ear.until(() => ear.heard.length >= 1);
    expect(ear.heard).toEqual([['pgl_reachable', 'here']]);
  });
});
