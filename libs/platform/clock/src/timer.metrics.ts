// The durable timers this process fires (docs/metrics.md), in its /metrics:
//   mm_timers_due{kind}      pending timers whose time has come on their project's clock
//   mm_timers_overdue{kind}  those of them due for longer than a minute: the poller fires a due timer within
//                            about a second, so one waiting a minute means the poller is stuck or failing
// Only the kinds this process handles: in distributed mode every service reads the one timers table.
import { Gauge, type Registry } from 'prom-client';
import type { UnitOfWork } from '@mm/platform/database';

/** A due timer older than this is overdue. */
export const TIMER_OVERDUE_SECONDS = 60;

type Counts = Array<{ kind: string; due: number; overdue: number }>;

export function registerTimerMetrics(uow: UnitOfWork, registry: Registry, kinds: () => string[]): void {
  let last: { at: number; counts: Promise<Counts> } | undefined;
  const read = () => {
    if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), counts: count(uow, kinds()) };
    return last.counts;
  };
  for (const [name, help, field] of [
    ['mm_timers_due', "Pending timers whose time has come on their project's clock", 'due'],
    [
      'mm_timers_overdue',
      `Pending timers due for more than ${TIMER_OVERDUE_SECONDS} s: the poller is stuck or failing`,
      'overdue',
    ],
  ] as const)
    new Gauge({
      name,
      help,
      labelNames: ['kind'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        const counts = await read();
        // Every kind this process handles, at zero when none is due: an alert compares a present series.
        for (const kind of kinds()) this.set({ kind }, counts.find((c) => c.kind === kind)?.[field] ?? 0);
      },
    });
}

async function count(uow: UnitOfWork, kinds: string[]): Promise<Counts> {
  if (kinds.length === 0) return [];
  return uow
    .query<{ kind: string; due: number; overdue: number }>(
      `SELECT t.kind,
              count(*)::int AS due,
              (count(*) FILTER (WHERE t.due_at <= project_now - make_interval(secs => $2)))::int AS overdue
         FROM platform.timers t
         LEFT JOIN platform.sandbox_clocks c ON c.project_id = t.project_id
        CROSS JOIN LATERAL (SELECT clock_timestamp() + make_interval(secs => COALESCE(c.offset_ms, 0) / 1000.0)) AS n(project_now)
        WHERE t.fired_at IS NULL AND t.kind = ANY($1::text[]) AND t.due_at <= project_now
          -- The bound the poller's read has, for the index: no project's clock is ahead of the furthest.
          AND t.due_at <= statement_timestamp() + interval '1 second'
                          + make_interval(secs => (SELECT COALESCE(max(m.offset_ms), 0) FROM platform.sandbox_clocks m) / 1000.0)
        GROUP BY t.kind`,
      [kinds, TIMER_OVERDUE_SECONDS],
    )
    .catch(() => []);
}
