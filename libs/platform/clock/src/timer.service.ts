// Durable timers on project time: quote and code expiry, attribution
// timeouts, webhook retries and sweepers all schedule here. A timer fires once:
// its handler and the fired mark commit in one transaction, and rows are
// claimed FOR UPDATE SKIP LOCKED so several processes can poll safely. A
// handler that schedules its own timer anew (a sweeper asking again later)
// leaves it pending at the new time: only the firing it ran for is marked.
import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { ProjectClock } from './project-clock';

export interface DueTimer {
  projectId: string;
  kind: string;
  key: string;
  payload: Record<string, unknown>;
  dueAt: Date;
}

export type TimerHandler = (timer: DueTimer) => Promise<void>;

interface TimerRow {
  id: string;
  project_id: string;
  kind: string;
  key: string;
  payload: Record<string, unknown>;
  due_at: Date;
  /** due_at as PostgreSQL writes it (microseconds), to mark exactly the firing that ran. */
  due_at_text: string;
  offset_ms: string;
}

@Injectable()
export class TimerService implements OnApplicationShutdown {
  private readonly logger = new Logger('timers');
  private readonly handlers = new Map<string, TimerHandler>();
  private poller?: NodeJS.Timeout;
  private polling?: Promise<unknown>;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: ProjectClock,
  ) {}

  on(kind: string, handler: TimerHandler): void {
    this.handlers.set(kind, handler);
  }

  /** The kinds this process fires. */
  kinds(): string[] {
    return [...this.handlers.keys()];
  }

  /** Schedules (or re-schedules, for the same kind and key) a timer, in the caller's transaction. */
  /** Written with the transaction's next statement (UnitOfWork.defer), as is a cancel, in order. */
  async schedule(
    projectId: string,
    kind: string,
    key: string,
    dueAt: Date,
    payload: Record<string, unknown> = {},
  ): Promise<void> {
    await this.uow.defer(
      `INSERT INTO platform.timers (project_id, kind, key, payload, due_at) VALUES ($1, $2, $3, $4::jsonb, $5)
       ON CONFLICT (kind, key) DO UPDATE SET due_at = EXCLUDED.due_at, payload = EXCLUDED.payload, fired_at = NULL`,
      [projectId, kind, key, JSON.stringify(payload), dueAt],
    );
  }

  async cancel(kind: string, key: string): Promise<void> {
    await this.uow.defer(`DELETE FROM platform.timers WHERE kind = $1 AND key = $2 AND fired_at IS NULL`, [kind, key]);
  }

  /**
   * Fires every timer due on its project's clock (only one project's when
   * given); returns how many fired. Inside a caller's transaction (a clock
   * advance) the timers fire in it and see its uncommitted offset; otherwise
   * each batch has a transaction of its own. With `budgetMs`, no batch starts
   * once that much time has gone: the timers still due are the background
   * poller's, which fires them within about a second of the caller's commit.
   */
  async fireDue(projectId?: string, budgetMs = Infinity): Promise<number> {
    const deadline = performance.now() + budgetMs;
    // Only the kinds this process handles: in distributed mode each service polls the same table
    // and must leave the others' timers to them.
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return 0;
    let fired = 0;
    for (;;) {
      const batch = await this.uow.run(async () => {
        const rows = await this.uow.query<TimerRow>(
          `SELECT t.id, t.project_id, t.kind, t.key, t.payload, t.due_at, t.due_at::text AS due_at_text,
                  COALESCE(c.offset_ms, 0) AS offset_ms
             FROM platform.timers t
             LEFT JOIN platform.sandbox_clocks c ON c.project_id = t.project_id
            WHERE t.fired_at IS NULL
              AND ($1::text IS NULL OR t.project_id = $1)
              AND t.kind = ANY($2::text[])
              AND t.due_at <= clock_timestamp() + make_interval(secs => COALESCE(c.offset_ms, 0) / 1000.0)
              -- The same bound for the index: no project's clock is further ahead than the furthest. Without it
              -- a poll that found nothing due read every pending timer (a timer's due time is only compared
              -- with its own project's clock); with 60,000 pending, 48 ms against 0.05. A bound must be stable
              -- to bound an index scan, so the statement's start and a second to spare stand for clock_timestamp().
              AND t.due_at <= statement_timestamp() + interval '1 second'
                              + make_interval(secs => (SELECT COALESCE(max(m.offset_ms), 0) FROM platform.sandbox_clocks m) / 1000.0)
            ORDER BY t.due_at
            LIMIT 50
            FOR UPDATE OF t SKIP LOCKED`,
          [projectId ?? null, kinds],
        );
        for (const row of rows) {
          // The timer is due on the clock this statement read; the process may not have heard that advance
          // yet (its notification is on its way), and its handler reads the clock the process remembers.
          this.clock.notBehind(row.project_id, Number(row.offset_ms));
          const handler = this.handlers.get(row.kind)!;
          await handler({
            projectId: row.project_id,
            kind: row.kind,
            key: row.key,
            payload: row.payload,
            dueAt: new Date(row.due_at),
          });
          // Unless the handler set it anew (another due time): that one is still to fire.
          await this.uow.query(
            `UPDATE platform.timers SET fired_at = clock_timestamp() WHERE id = $1 AND due_at = $2::timestamptz`,
            [row.id, row.due_at_text],
          );
        }
        return rows.length;
      });
      fired += batch;
      if (batch < 50 || performance.now() >= deadline) return fired;
    }
  }

  /** Background polling for timers that fall due in real time. */
  start(intervalMs = 1000): void {
    if (this.poller) return;
    const tick = () => {
      this.polling = this.fireDue()
        .catch((error: unknown) => this.logger.error(`timer poll failed: ${String(error)}`))
        .finally(() => {
          if (this.poller) this.poller = setTimeout(tick, intervalMs);
        });
    };
    this.poller = setTimeout(tick, intervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.poller) clearTimeout(this.poller);
    this.poller = undefined;
    await this.polling;
  }
}
