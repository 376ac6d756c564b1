// Per-project time (API-CONTRACT: Sandbox simulations). A project's clock is
// the wall clock plus an offset that only moves forward; every timestamp a
// service writes and every timer it schedules reads it, so a test can advance
// a project by hours without waiting and without touching other projects.
// Offsets are read once and then kept in memory, told of every change by the
// database (NotifiedCache): every command reads the clock, and it rarely moves.
// An advance is answered only once every process has heard it (the feed's
// acknowledgements), so the next request, to whichever service, runs on the
// advanced clock: read your writes, however far apart the processes.
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  changeEverywhere,
  listenConnectionConfig,
  NotifiedCache,
  NotifiedCacheFeed,
  UnitOfWork,
} from '@mm/platform/database';

export const CLOCK_CHANGES_CHANNEL = 'mm_clock_changes';

@Injectable()
export class ProjectClock implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly offsets = new NotifiedCache<number>({ maxEntries: 10_000, groupOf: (projectId) => projectId });
  private readonly feed: NotifiedCacheFeed;
  private readonly logger = new Logger('clock');

  constructor(private readonly uow: UnitOfWork) {
    this.feed = new NotifiedCacheFeed(
      listenConnectionConfig(uow.dataSource),
      CLOCK_CHANGES_CHANNEL,
      this.offsets,
      this.logger,
      1000,
      true,
    );
  }

  onApplicationBootstrap(): Promise<void> {
    return this.feed.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.feed.stop();
  }

  async offsetMs(projectId: string): Promise<number> {
    const cached = this.offsets.lookup(projectId);
    if (cached !== undefined) return cached;
    const mark = this.offsets.mark();
    const [row] = await this.uow.query<{ offset_ms: string }>(
      `SELECT offset_ms FROM platform.sandbox_clocks WHERE project_id = $1`,
      [projectId],
    );
    const offset = row ? Number(row.offset_ms) : 0;
    this.offsets.remember(projectId, offset, mark);
    return offset;
  }

  /**
   * The offset a statement has just found in the database (committed, or this transaction's own). An offset
   * in memory behind it is a change this process has not heard yet: dropped, so the next read goes to the
   * database. A timer the database found due then runs on a clock that has reached it.
   */
  notBehind(projectId: string, offsetMs: number): void {
    const cached = this.offsets.lookup(projectId);
    if (cached !== undefined && cached < offsetMs) this.offsets.forget(projectId);
  }

  async now(projectId: string): Promise<Date> {
    return new Date(Date.now() + (await this.offsetMs(projectId)));
  }

  /**
   * Moves the project's clock forward and returns the new time. The command that calls it returns once
   * every process has heard the change (after its commit).
   */
  async advance(projectId: string, seconds: number): Promise<Date> {
    // Until this commits and the change is heard back, this project's offset is read afresh. The number the
    // row's notification carries (change_no) is acknowledged like any; the answer waits for a later one.
    const [row] = await changeEverywhere(
      this.uow,
      { channel: CLOCK_CHANGES_CHANNEL, cache: this.offsets, logger: this.logger },
      projectId,
      () =>
        this.uow.query<{ offset_ms: string }>(
          `INSERT INTO platform.sandbox_clocks (project_id, offset_ms, change_no) VALUES ($1, $2, nextval('platform.cache_change_no'))
         ON CONFLICT (project_id) DO UPDATE SET offset_ms = platform.sandbox_clocks.offset_ms + EXCLUDED.offset_ms, change_no = EXCLUDED.change_no
         RETURNING offset_ms`,
          [projectId, Math.round(seconds * 1000)],
        ),
    );
    return new Date(Date.now() + Number(row.offset_ms));
  }
}
