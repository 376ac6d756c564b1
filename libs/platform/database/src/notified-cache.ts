// A cache of values read from (or verified against) the database that is only
// trusted while the database can tell it of every change: each process LISTENs
// on a channel that a trigger notifies, on commit, with the group (an API key, a
// project) whose values changed. So:
// - while the LISTEN connection is down (or not yet up) nothing is answered from
//   the cache, and it starts empty once the connection is back;
// - a change heard evicts its group, and a value that was being read when a change
//   was heard is not remembered (the generation check);
// - a process that is itself changing a group marks it first (beginChange), so
//   until its own change is heard back, after commit, that group is read afresh.
// Other processes see a change once its notification arrives (milliseconds). Where
// a change must be seen everywhere before its author is answered (read your
// writes across processes: the sandbox clock, project limits, webhook endpoints,
// API key revocations; ADR 0025), the feed acknowledges: once its change has
// committed, the author notifies the group again with a number taken from
// platform.cache_change_no only then, every live listener records the highest
// number it has heard (platform.cache_listeners), and the author waits until
// each has heard its number or a later one (changeHeardEverywhere). A listener
// hears notifications in the order their transactions committed, so one that has
// heard a number taken after the change committed has heard the change.
import { randomUUID } from 'node:crypto';
import type { LoggerService } from '@nestjs/common';
import type { ClientConfig } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { PgListener } from './pg-listener';
import type { UnitOfWork } from './unit-of-work';

export interface NotifiedCacheOptions<V> {
  maxEntries: number;
  /** Longest time a value is kept, whatever its own expiry. */
  maxAgeMs?: number;
  /** The group a value belongs to, as the channel's notifications name it. */
  groupOf: (key: string, value: V) => string;
  now?: () => number;
}

const CHANGE_MARK_MS = 30_000;

export class NotifiedCache<V> {
  private readonly entries = new Map<string, { value: V; group: string; expiresAtMs: number }>();
  /** Groups this process is changing, until when their mark holds. */
  private readonly changing = new Map<string, number>();
  private generation = 0;
  private live = false;
  private readonly now: () => number;

  constructor(private readonly options: NotifiedCacheOptions<V>) {
    this.now = options.now ?? Date.now;
  }

  lookup(key: string): V | undefined {
    if (!this.live) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAtMs <= this.now() || this.isChanging(entry.group)) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Taken before reading the value; remember() refuses it if a change was heard meanwhile. */
  mark(): number {
    return this.generation;
  }

  remember(key: string, value: V, mark: number, expiresAtMs = Number.POSITIVE_INFINITY): void {
    const group = this.options.groupOf(key, value);
    if (!this.live || mark !== this.generation || this.isChanging(group)) return;
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, {
      value,
      group,
      expiresAtMs: Math.min(expiresAtMs, this.now() + (this.options.maxAgeMs ?? Number.POSITIVE_INFINITY)),
    });
  }

  /** Drops a value known to be behind the database; reads under way when this is called are not remembered. */
  forget(key: string): void {
    this.generation++;
    this.entries.delete(key);
  }

  /** A committed change to the group, heard from the database. */
  changed(group: string): void {
    this.generation++;
    this.changing.delete(group);
    for (const [key, entry] of this.entries) if (entry.group === group) this.entries.delete(key);
  }

  /** This process is about to change the group (before its transaction commits). */
  beginChange(group: string): void {
    this.generation++;
    this.changing.set(group, this.now() + CHANGE_MARK_MS);
  }

  /** Whether changes are being heard; the cache is emptied whenever they may have been missed. */
  setLive(live: boolean): void {
    this.generation++;
    this.entries.clear();
    this.live = live;
  }

  private isChanging(group: string): boolean {
    if (this.changing.size === 0) return false;
    const until = this.changing.get(group);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.changing.delete(group);
    return false;
  }
}

/** How often a listener that acknowledges says it is alive; one silent for three times this is not waited for. */
const ALIVE_EVERY_MS = 5_000;

/** Keeps a NotifiedCache told of changes: LISTEN on the channel, retried until it is up. */
export class NotifiedCacheFeed {
  private readonly listener: PgListener;
  private retry?: NodeJS.Timeout;
  private alive?: NodeJS.Timeout;
  private stopped = false;
  private listenStarted = false;
  private readonly listenerId = randomUUID();

  constructor(
    config: ClientConfig,
    private readonly channel: string,
    private readonly cache: Pick<NotifiedCache<unknown>, 'changed' | 'setLive'>,
    private readonly logger: LoggerService,
    private readonly retryMs = 1000,
    /** A notification may carry a number after its group (`<group> <number>`: changeHeardEverywhere's), and each number heard is acknowledged. */
    private readonly acknowledge = false,
  ) {
    this.listener = new PgListener(
      config,
      [channel],
      {
        onNotification: (_channel, payload) => this.heard(payload),
        onLost: () => cache.setLive(false),
        // What was missed meanwhile is dropped with the cache: everything up to now is heard.
        onResumed: () => void this.resume(),
      },
      logger,
      retryMs,
    );
  }

  async start(): Promise<void> {
    try {
      if (!this.listenStarted) {
        await this.listener.start();
        this.listenStarted = true;
      }
      // Listed before it answers anything: an author may not wait for a listener it does not know of.
      if (!(await this.register())) throw new Error('not registered as a listener');
      this.cache.setLive(true);
      if (this.acknowledge && !this.alive) {
        this.alive = setInterval(
          () =>
            void this.ack(`UPDATE platform.cache_listeners SET alive_at = now() WHERE listener_id = $1`, [
              this.listenerId,
            ]),
          ALIVE_EVERY_MS,
        );
        this.alive.unref();
      }
    } catch (error) {
      // Without the feed every value is read afresh: slower, never wrong.
      if (this.stopped) return;
      this.logger.warn(
        `cache feed unavailable (${error instanceof Error ? error.message : String(error)}); reading through`,
      );
      this.retry = setTimeout(() => void this.start(), this.retryMs);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.alive);
    this.cache.setLive(false);
    await this.ack(`DELETE FROM platform.cache_listeners WHERE listener_id = $1`, [this.listenerId]);
    await this.listener.stop();
  }

  private heard(payload: string): void {
    if (!this.acknowledge) return this.cache.changed(payload);
    const space = payload.lastIndexOf(' ');
    this.cache.changed(space < 0 ? payload : payload.slice(0, space));
    if (space < 0) return;
    // Only once the cache has dropped the group: the author waits for this before it answers.
    void this.ack(
      `UPDATE platform.cache_listeners SET heard = greatest(heard, $2), alive_at = now() WHERE listener_id = $1`,
      [this.listenerId, payload.slice(space + 1)],
    );
  }

  /** LISTEN is back: listed again as having heard everything so far, then trusted (its cache starts empty). */
  private async resume(): Promise<void> {
    if (this.stopped || !this.listener.listening) return;
    if (await this.register()) return this.cache.setLive(true);
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.resume(), this.retryMs);
  }

  /**
   * Listed as a listener that has heard every change numbered so far. Done while nothing is answered from
   * the cache (it is emptied when it goes live), so whatever it remembers later was read after every
   * change numbered so far had committed. Whether it worked; always, for a feed that does not acknowledge.
   */
  private async register(): Promise<boolean> {
    if (!this.acknowledge) return true;
    try {
      return await this.listener.query(
        `INSERT INTO platform.cache_listeners (listener_id, channel, heard, alive_at)
         SELECT $1, $2, CASE WHEN is_called THEN last_value ELSE 0 END, now() FROM platform.cache_change_no
         ON CONFLICT (listener_id) DO UPDATE SET heard = greatest(platform.cache_listeners.heard, EXCLUDED.heard), alive_at = now()`,
        [this.listenerId, this.channel],
      );
    } catch (error) {
      this.logger.warn(
        `cache feed could not list itself as a listener (${error instanceof Error ? error.message : String(error)})`,
      );
      return false;
    }
  }

  private async ack(sql: string, params: unknown[]): Promise<void> {
    if (!this.acknowledge) return;
    try {
      await this.listener.query(sql, params);
    } catch (error) {
      // Unacknowledged, the author waits its limit, then goes on: slower, never wrong here.
      this.logger.warn(`cache feed acknowledgement failed (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

/**
 * The author's side of an acknowledged feed, once its change to `group` has committed: notifies the group
 * again with a number taken now, and resolves once every live listener of the channel has heard that number
 * or a later one, so has dropped the group (or after limitMs, with a warning: a listener that cannot answer
 * does not hold the author forever). A number taken before the commit would not do: a change numbered after
 * it could commit first and be heard first.
 */
export async function changeHeardEverywhere(
  query: <T>(sql: string, params: unknown[]) => Promise<T[]>,
  channel: string,
  group: string,
  logger: LoggerService,
  limitMs = 5_000,
): Promise<void> {
  const [{ change_no: changeNo }] = await query<{ change_no: string }>(
    `SELECT n::text AS change_no, pg_notify($1, $2 || ' ' || n) FROM nextval('platform.cache_change_no') AS n`,
    [channel, group],
  );
  const deadline = Date.now() + limitMs;
  for (;;) {
    const [row] = await query<{ behind: number }>(
      `SELECT count(*)::int AS behind FROM platform.cache_listeners
        WHERE channel = $1 AND heard < $2 AND alive_at > now() - make_interval(secs => $3)`,
      [channel, changeNo, (3 * ALIVE_EVERY_MS) / 1000],
    );
    if (row.behind === 0) return;
    if (Date.now() > deadline) {
      logger.warn(
        `${row.behind} listener(s) of ${channel} had not heard change ${changeNo} after ${limitMs / 1000} s; going on`,
      );
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * A change to `group` made by `write`, for caches told by an acknowledged feed: this process reads the group
 * afresh until its change is heard back, and once the change has committed (after the caller's transaction,
 * whose run() returns only then; at once outside one) every live listener has dropped the group: read your
 * writes across processes.
 */
export async function changeEverywhere<T>(
  uow: Pick<UnitOfWork, 'afterCommit' | 'query'>,
  feed: { channel: string; cache?: Pick<NotifiedCache<unknown>, 'beginChange'>; logger: LoggerService },
  group: string,
  write: () => Promise<T>,
): Promise<T> {
  feed.cache?.beginChange(group);
  const result = await write();
  await uow.afterCommit(() =>
    changeHeardEverywhere((sql, params) => uow.query(sql, params), feed.channel, group, feed.logger),
  );
  return result;
}

/** The listeners that acknowledge, and the numbers changes carry. */
export class CacheListeners1700000000220 implements MigrationInterface {
  name = 'CacheListeners1700000000220';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SEQUENCE platform.cache_change_no`);
    await runner.query(`
      CREATE TABLE platform.cache_listeners (
        listener_id  text        PRIMARY KEY,
        channel      text        NOT NULL,
        heard        bigint      NOT NULL,
        alive_at     timestamptz NOT NULL
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE platform.cache_listeners`);
    await runner.query(`DROP SEQUENCE platform.cache_change_no`);
  }
}

/**
 * The database side of a NotifiedCacheFeed: a trigger on `table` that notifies
 * `channel` with the row's `groupColumn` whenever a row changes as `events` says
 * (for example `AFTER UPDATE OF revoked_at`), so no code path can forget to.
 */
export async function createChangeNotifyTrigger(
  runner: { query(sql: string): Promise<unknown> },
  o: { name: string; table: string; events: string; channel: string; groupColumn: string; when?: string },
): Promise<void> {
  const schema = o.table.split('.')[0];
  await runner.query(`
    CREATE FUNCTION ${schema}.${o.name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('${o.channel}', NEW.${o.groupColumn});
      RETURN NULL;
    END $$`);
  await runner.query(
    `CREATE TRIGGER ${o.name} ${o.events} ON ${o.table} FOR EACH ROW ${o.when ? `WHEN (${o.when}) ` : ''}EXECUTE FUNCTION ${schema}.${o.name}()`,
  );
}

export async function dropChangeNotifyTrigger(
  runner: { query(sql: string): Promise<unknown> },
  o: { name: string; table: string },
): Promise<void> {
  await runner.query(`DROP TRIGGER ${o.name} ON ${o.table}`);
  await runner.query(`DROP FUNCTION ${o.table.split('.')[0]}.${o.name}()`);
}
