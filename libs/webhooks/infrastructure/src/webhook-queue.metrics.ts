// The webhook delivery queue as an on-call engineer watches it (docs/metrics.md), in the webhooks service's
// /metrics:
//   mm_webhook_deliveries_queued       deliveries waiting for their next attempt (retries included)
//   mm_webhook_oldest_queued_seconds   how long the oldest of them has waited since it was made, on its project's
//                                      clock; 0 when none waits
//   mm_webhook_endpoints_suspended     endpoints suspended after a delivery failed for good, waiting for their
//                                      partner to enable them
// Read at each scrape; a database that cannot be read now shows no figure rather than a wrong one.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { HttpMetrics } from '@mm/platform/http';

@Injectable()
export class WebhookQueueMetrics implements OnModuleInit {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly metrics: HttpMetrics,
  ) {}

  onModuleInit(): void {
    this.metrics.readGauges(
      () => this.read(),
      [
        {
          name: 'mm_webhook_deliveries_queued',
          help: 'Webhook deliveries waiting for their next attempt',
          field: 'queued',
        },
        {
          name: 'mm_webhook_oldest_queued_seconds',
          help: "Seconds the oldest queued webhook delivery has waited since it was made, on its project's clock",
          field: 'oldestSeconds',
        },
        {
          name: 'mm_webhook_endpoints_suspended',
          help: 'Webhook endpoints suspended after a delivery failed for good, waiting for their partner to enable them',
          field: 'suspended',
        },
      ],
    );
  }

  private async read(): Promise<{ queued: number; oldestSeconds: number; suspended: number }> {
    const [row] = await this.uow.query<{ queued: number; oldest: number | null; suspended: number }>(
      `SELECT count(*)::int AS queued,
              extract(epoch FROM max(clock_timestamp() + make_interval(secs => COALESCE(c.offset_ms, 0) / 1000.0)
                                     - d.created_at))::float8 AS oldest,
              (SELECT count(*)::int FROM webhooks.endpoints e
                WHERE e.status = 'suspended' AND e.deleted_at IS NULL) AS suspended
         FROM webhooks.deliveries d
         LEFT JOIN platform.sandbox_clocks c ON c.project_id = d.project_id
        WHERE d.status = 'queued'`,
    );
    return { queued: row.queued, oldestSeconds: Math.max(0, row.oldest ?? 0), suspended: row.suspended };
  }
}
