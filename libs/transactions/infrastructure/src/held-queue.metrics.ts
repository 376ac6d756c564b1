// The operator's held queue (GET /admin/transactions/held) as an on-call engineer watches it (docs/metrics.md),
// in the transactions service's /metrics:
//   mm_held_transactions     transactions waiting on an operator: under review, a payout unconfirmed, or
//                            awaiting action, across every project
//   mm_held_oldest_seconds   how long the one waiting longest has been where it is, on its project's clock;
//                            0 when none waits
// Read at each scrape (the queue's partial index keeps it to the queue's rows: its predicate, spelled alike); a database that cannot be read now shows
// no figure rather than a wrong one.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { HttpMetrics } from '@mm/platform/http';
import { HELD_PREDICATE } from './transactions.migration';

@Injectable()
export class HeldQueueMetrics implements OnModuleInit {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly metrics: HttpMetrics,
  ) {}

  onModuleInit(): void {
    this.metrics.readGauges(
      () => this.read(),
      [
        {
          name: 'mm_held_transactions',
          help: 'Transactions waiting on an operator (the held queue), across every project',
          field: 'held',
        },
        {
          name: 'mm_held_oldest_seconds',
          help: "Seconds the transaction waiting longest on an operator has been where it is, on its project's clock",
          field: 'oldestSeconds',
        },
      ],
    );
  }

  private async read(): Promise<{ held: number; oldestSeconds: number }> {
    const [row] = await this.uow.query<{ held: number; oldest: number | null }>(
      `SELECT count(*)::int AS held,
              extract(epoch FROM max(clock_timestamp() + make_interval(secs => COALESCE(c.offset_ms, 0) / 1000.0)
                                     - t.updated_at))::float8 AS oldest
         FROM transactions.transactions t
         LEFT JOIN platform.sandbox_clocks c ON c.project_id = t.project_id
        WHERE ${HELD_PREDICATE}`,
    );
    return { held: row.held, oldestSeconds: Math.max(0, row.oldest ?? 0) };
  }
}
