// The request log's writer (docs/request-logs.md). An entry is taken once its response has gone out, so a partner
// never waits on it: entries are written together, a batch per round trip, a moment after the first of them, and
// what is still waiting is written before the process stops. An entry the database refused is dropped and said in
// the process's log (the log is for finding one's own bugs, not the record of money: that is the event log).
// Entries older than MM_REQUEST_LOG_RETENTION_DAYS are purged every ten minutes.
import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { RequestLogs, type NewRequestLog } from '@mm/gateway/infrastructure';
import { PlatformConfig } from '@mm/platform/config';

/** How long the first entry of a batch waits for others. */
const BATCH_DELAY_MS = 50;
/** Entries written in one statement at most. */
const BATCH_SIZE = 500;
/** Entries held at most while the database is slow or away; more are dropped (and counted in the process's log). */
const MAX_WAITING = 20_000;
const PURGE_EVERY_MS = 10 * 60_000;
const DAY_MS = 86_400_000;

@Injectable()
export class RequestLogRecorder implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('request-log');
  private waiting: NewRequestLog[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private purgeTimer?: NodeJS.Timeout;
  private dropped = 0;

  constructor(
    private readonly logs: RequestLogs,
    private readonly config: PlatformConfig,
  ) {}

  onModuleInit(): void {
    const purge = () => {
      void this.purge().finally(() => {
        this.purgeTimer = setTimeout(purge, PURGE_EVERY_MS);
        this.purgeTimer.unref();
      });
    };
    this.purgeTimer = setTimeout(purge, 1000);
    this.purgeTimer.unref();
  }

  record(entry: NewRequestLog): void {
    if (this.waiting.length >= MAX_WAITING) {
      if (this.dropped++ === 0) this.logger.warn(`the request log is ${MAX_WAITING} entries behind: dropping entries`);
      return;
    }
    this.waiting.push(entry);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writing.then(() => this.write());
    }, BATCH_DELAY_MS);
  }

  /** Resolves once every entry recorded so far is written (or dropped). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writing.then(() => this.write());
    await this.writing;
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.purgeTimer);
    await this.flush();
  }

  private async write(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, BATCH_SIZE);
      try {
        await this.logs.insert(batch);
      } catch (error) {
        if (batch.length === 1) this.logger.error(`writing a request log entry failed: ${String(error)}`);
        // One entry the database refuses must not cost the others theirs: each again, on its own.
        else for (const entry of batch) await this.logs.insert([entry]).catch((e: unknown) => this.refused(entry, e));
      }
    }
    if (this.dropped > 0) {
      this.logger.warn(`${this.dropped} request log entries were dropped while the log was behind`);
      this.dropped = 0;
    }
  }

  private refused(entry: NewRequestLog, error: unknown): void {
    this.logger.error(`writing the request log entry of ${entry.request_id} failed: ${String(error)}`);
  }

  private async purge(): Promise<void> {
    try {
      const before = new Date(Date.now() - this.config.MM_REQUEST_LOG_RETENTION_DAYS * DAY_MS);
      let purged = 0;
      for (let batch = await this.logs.purge(before); batch > 0; batch = await this.logs.purge(before)) purged += batch;
      if (purged > 0) this.logger.log(`purged ${purged} request log entries older than ${before.toISOString()}`);
    } catch (error) {
      this.logger.error(`purging the request log failed: ${String(error)}`);
    }
  }
}
