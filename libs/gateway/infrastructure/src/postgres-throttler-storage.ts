// Rate-limit counters in PostgreSQL, so that every gateway replica on the
// database counts against the same limit (ADR 0013). A fixed window per key:
// one upsert per hit opens, counts or resets it under the row lock, so
// concurrent hits from any replica are never lost, and every time is the
// database's clock, so replicas with skewed clocks agree.
import { Logger, type OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { UnitOfWork } from '@mm/platform/database';

// Not exported by @nestjs/throttler's index.
type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

const TTL = `($3::float8 * interval '1 millisecond')`;
const LIMIT = `$4::integer`;
const BLOCK = `($5::float8 * interval '1 millisecond')`;

// In the update, r is the row as it was: these read nothing the same statement writes.
const BLOCKED = `(r.blocked_until > now())`;
// A window past its end, or a block that has run out, starts counting afresh.
const FRESH = `(r.window_ends_at <= now() OR r.blocked_until <= now())`;
const COUNTED = `CASE WHEN ${FRESH} THEN 1 ELSE r.hits + 1 END`;
const WINDOW_END = `CASE WHEN ${FRESH} THEN now() + ${TTL} ELSE r.window_ends_at END`;
// No block duration (@nestjs/throttler: blockDuration <= 0): refused until the window ends.
const blockedUntil = (window: string) => `CASE WHEN $5::float8 > 0 THEN now() + ${BLOCK} ELSE ${window} END`;

const INCREMENT = `
  INSERT INTO gateway.rate_limits AS r (key, throttler, hits, window_ends_at, blocked_until)
  VALUES ($1, $2, 1, now() + ${TTL}, CASE WHEN 1 > ${LIMIT} THEN ${blockedUntil(`now() + ${TTL}`)} END)
  ON CONFLICT (key, throttler) DO UPDATE SET
    hits           = CASE WHEN ${BLOCKED} THEN r.hits ELSE ${COUNTED} END,
    window_ends_at = CASE WHEN ${BLOCKED} THEN r.window_ends_at ELSE ${WINDOW_END} END,
    blocked_until  = CASE WHEN ${BLOCKED} THEN r.blocked_until
                          WHEN ${COUNTED} > ${LIMIT} THEN ${blockedUntil(WINDOW_END)} END
  RETURNING hits,
            ceil(extract(epoch FROM window_ends_at - now()))::integer AS time_to_expire,
            coalesce(blocked_until > now(), false) AS is_blocked,
            coalesce(ceil(extract(epoch FROM blocked_until - now()))::integer, 0) AS time_to_block_expire`;

// In batches, so no one statement locks a large part of the table while hits arrive.
// The outer condition is checked again on a row a hit has just renewed.
const EXPIRED = `window_ends_at < now() AND (blocked_until IS NULL OR blocked_until < now())`;
const SWEEP = `
  WITH gone AS (
    DELETE FROM gateway.rate_limits
     WHERE (key, throttler) IN (SELECT key, throttler FROM gateway.rate_limits WHERE ${EXPIRED} LIMIT $1) AND ${EXPIRED}
    RETURNING 1)
  SELECT count(*)::integer AS deleted FROM gone`;

export interface PostgresThrottlerStorageOptions {
  sweepIntervalMs?: number;
  sweepBatch?: number;
}

export class PostgresThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly logger = new Logger('rate-limits');
  private readonly sweepBatch: number;
  private readonly timer: NodeJS.Timeout;
  private sweeping = false;

  constructor(
    private readonly uow: UnitOfWork,
    options: PostgresThrottlerStorageOptions = {},
  ) {
    this.sweepBatch = options.sweepBatch ?? 10_000;
    // Off the request path; unref'd so that it never keeps a process alive.
    this.timer = setInterval(() => void this.sweepAll(), options.sweepIntervalMs ?? 60_000);
    this.timer.unref();
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<ThrottlerStorageRecord> {
    const [row] = await this.uow.query<{
      hits: number;
      time_to_expire: number;
      is_blocked: boolean;
      time_to_block_expire: number;
    }>(INCREMENT, [key, throttlerName, ttl, limit, blockDuration]);
    return {
      totalHits: row.hits,
      timeToExpire: row.time_to_expire,
      isBlocked: row.is_blocked,
      timeToBlockExpire: row.time_to_block_expire,
    };
  }

  /** Deletes up to one batch of rows whose window and block have both ended; answers how many. */
  async sweep(): Promise<number> {
    const [{ deleted }] = await this.uow.query<{ deleted: number }>(SWEEP, [this.sweepBatch]);
    return deleted;
  }

  private async sweepAll(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      while ((await this.sweep()) === this.sweepBatch);
    } catch (error) {
      this.logger.warn(`sweep of expired rate limits failed: ${(error as Error).message}`);
    } finally {
      this.sweeping = false;
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }
}
