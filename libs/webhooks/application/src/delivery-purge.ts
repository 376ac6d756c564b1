// The retention window of deliveries and of the Events API's events: the same
// window (ADR 0034), MM_WEBHOOK_RETENTION_DAYS on each project's clock, purged a
// batch at a time every ten minutes while the worker runs.
import type { Logger } from '@nestjs/common';
import type { PartnerEvents, WebhookDeliveries } from '@mm/webhooks/infrastructure';

const PURGE_EVERY_MS = 10 * 60_000;
/** The first purge after the start: soon, but not in the way of the start itself. */
const FIRST_PURGE_MS = 1000;

export class DeliveryPurge {
  private timer?: NodeJS.Timeout;
  private running = false;

  constructor(
    private readonly deliveries: WebhookDeliveries,
    private readonly events: PartnerEvents,
    private readonly retentionDays: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.running = true;
    const purge = () => {
      this.purge().finally(() => {
        if (this.running) this.timer = setTimeout(purge, PURGE_EVERY_MS);
      });
    };
    this.timer = setTimeout(purge, FIRST_PURGE_MS);
    this.timer.unref();
  }

  /** No purge starts from now on, and one under way stops after its batch. */
  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  private async purge(): Promise<void> {
    const days = this.retentionDays;
    for (const [what, purge] of [
      ['deliveries', () => this.deliveries.purge(days)],
      ['events', () => this.events.purge(days)],
    ] as const) {
      try {
        let purged = 0;
        for (let batch = await purge(); batch > 0 && this.running; batch = await purge()) purged += batch;
        if (purged > 0) this.logger.log(`purged ${purged} ${what} older than ${days} days`);
      } catch (error) {
        this.logger.error(`purging ${what} failed: ${String(error)}`);
      }
    }
  }
}
