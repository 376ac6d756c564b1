// Transactions by status and sub-status as an on-call engineer watches them (docs/metrics.md), in the
// transactions service's /metrics:
//   mm_transactions_open{status,sub_status}         transactions not ended yet (processing, awaitingAction), across
//                                                   every project, read at each scrape (at most once a second) from
//                                                   their own partial index: ended ones are never read
//   mm_transactions_ended_total{status,sub_status}  transactions this process saw end (completed, failed), counted
//                                                   when the command that ended them committed
// Both are bounded: the spec's statuses and sub-statuses, no project label. A database that cannot be read now shows
// no open figure rather than a wrong one.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { UnitOfWork } from '@mm/platform/database';
import { HttpMetrics } from '@mm/platform/http';
import { OPEN_PREDICATE } from './transactions.migration';

type Labels = 'status' | 'sub_status';

@Injectable()
export class TransactionStatusMetrics implements OnModuleInit {
  private endings?: Counter<Labels>;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly metrics: HttpMetrics,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    let last: { at: number; rows: Promise<OpenRow[] | undefined> } | undefined;
    const read = () => {
      if (!last || Date.now() - last.at > 1000) last = { at: Date.now(), rows: this.readOpen().catch(() => undefined) };
      return last.rows;
    };
    new Gauge<Labels>({
      name: 'mm_transactions_open',
      help: 'Transactions not ended yet (processing or awaitingAction) by status and sub-status, across every project',
      labelNames: ['status', 'sub_status'],
      registers,
      async collect() {
        this.reset();
        for (const row of (await read()) ?? []) this.set({ status: row.status, sub_status: row.sub_status }, row.n);
      },
    });
    this.endings = new Counter<Labels>({
      name: 'mm_transactions_ended_total',
      help: 'Transactions this process saw end (completed or failed), by status and sub-status',
      labelNames: ['status', 'sub_status'],
      registers,
    });
  }

  /** A transaction ended (completed or failed) in a command that has committed. */
  ended(status: string, subStatus: string | null): void {
    this.endings?.inc({ status, sub_status: subStatus ?? '' });
  }

  private readOpen(): Promise<OpenRow[]> {
    return this.uow.query<OpenRow>(
      `SELECT status, COALESCE(sub_status, '') AS sub_status, count(*)::int AS n
         FROM transactions.transactions WHERE ${OPEN_PREDICATE} GROUP BY status, sub_status`,
    );
  }
}

interface OpenRow {
  status: string;
  sub_status: string;
  n: number;
}
