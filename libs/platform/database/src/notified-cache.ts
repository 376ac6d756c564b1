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
// Other processes see a change once its notification arrives (milliseconds).
import type { LoggerService } from '@nestjs/common';
import type { ClientConfig } from 'pg';
import { PgListener } from './pg-listener';

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
    this.entries.set(key, { value, group, expiresAtMs: Math.min(expiresAtMs, this.now() + (this.options.maxAgeMs ?? Number.POSITIVE_INFINITY)) });
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

/** Keeps a NotifiedCache told of changes: LISTEN on the channel, retried until it is up. */
export class NotifiedCacheFeed {
  private readonly listener: PgListener;
  private retry?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    config: ClientConfig,
    channel: string,
    private readonly cache: Pick<NotifiedCache<unknown>, 'changed' | 'setLive'>,
    private readonly logger: LoggerService,
    private readonly retryMs = 1000,
  ) {
    this.listener = new PgListener(
      config,
      [channel],
      { onNotification: (_channel, group) => cache.changed(group), onLost: () => cache.setLive(false), onResumed: () => cache.setLive(true) },
      logger,
      retryMs,
    );
  }

  async start(): Promise<void> {
    try {
      await this.listener.start();
      this.cache.setLive(true);
    } catch (error) {
      // Without the feed every value is read afresh: slower, never wrong.
      if (this.stopped) return;
      this.logger.warn(`cache feed unavailable (${error instanceof Error ? error.message : String(error)}); reading through`);
      this.retry = setTimeout(() => void this.start(), this.retryMs);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    this.cache.setLive(false);
    await this.listener.stop();
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
  await runner.query(`CREATE TRIGGER ${o.name} ${o.events} ON ${o.table} FOR EACH ROW ${o.when ? `WHEN (${o.when}) ` : ''}EXECUTE FUNCTION ${schema}.${o.name}()`);
}

export async function dropChangeNotifyTrigger(runner: { query(sql: string): Promise<unknown> }, o: { name: string; table: string }): Promise<void> {
  await runner.query(`DROP TRIGGER ${o.name} ON ${o.table}`);
  await runner.query(`DROP FUNCTION ${o.table.split('.')[0]}.${o.name}()`);
}
