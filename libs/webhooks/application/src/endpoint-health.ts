// An endpoint's health as its delivery attempts tell it (spec: Events / Delivery
// and verification 4; States / Webhook): a failure after its last success starts
// a down episode, notified once it has lasted notifyThresholdSecs, and the
// endpoint is suspended once it has been down for about three days; a success
// ends the episode.
import type { Logger } from '@nestjs/common';
import { isDelivered, shouldSuspend } from '@mm/webhooks/domain';
import type { WebhookDeliveries } from '@mm/webhooks/infrastructure';
import type { DueTimer, TimerService } from '@mm/platform/clock';
import type { AttemptOutcome } from './delivery-attempt-recorder';
import { DOWN_NOTICE_TIMER, type WebhookEndpointsService } from './webhook-endpoints.service';

export class EndpointHealth {
  constructor(
    private readonly deliveries: WebhookDeliveries,
    private readonly endpoints: WebhookEndpointsService,
    private readonly timers: TimerService,
    private readonly logger: Logger,
  ) {
    this.timers.on(DOWN_NOTICE_TIMER, (timer) => this.onDownNotice(timer));
  }

  /**
   * Per endpoint, in the order of the attempts: a success ends its down episode; a failure after
   * its last success starts one (or continues it), schedules the down notice, and suspends it once
   * it has been down for about three days.
   */
  async update(outcomes: AttemptOutcome[]): Promise<void> {
    const byEndpoint = new Map<string, AttemptOutcome[]>();
    for (const o of [...outcomes].sort((a, b) => a.attemptedAt.localeCompare(b.attemptedAt))) {
      byEndpoint.set(o.delivery.webhook_id, [...(byEndpoint.get(o.delivery.webhook_id) ?? []), o]);
    }
    const succeeded = new Map<string, string>();
    const failedSince = new Map<string, AttemptOutcome[]>();
    for (const [webhookId, list] of byEndpoint) {
      const lastSuccess = list.map((o) => isDelivered(o.result.statusCode ?? undefined)).lastIndexOf(true);
      if (lastSuccess >= 0) succeeded.set(webhookId, list[lastSuccess].attemptedAt);
      const failures = list.slice(lastSuccess + 1);
      if (failures.length > 0) failedSince.set(webhookId, failures);
    }
    for (const recovered of await this.deliveries.markSuccesses(succeeded))
      await this.timers.cancel(DOWN_NOTICE_TIMER, recovered);
    for (const [webhookId, failures] of failedSince) {
      const { delivery } = failures[0];
      const { downSince, started } = await this.deliveries.markFailure(webhookId, failures[0].attemptedAt);
      if (started) {
        const dueAt = new Date(downSince.getTime() + delivery.notify_threshold_secs * 1000);
        await this.timers.schedule(delivery.project_id, DOWN_NOTICE_TIMER, webhookId, dueAt, {
          downSince: downSince.toISOString(),
        });
      }
      if (shouldSuspend(downSince, new Date(failures[failures.length - 1].attemptedAt))) {
        if (await this.endpoints.suspend(delivery.project_id, webhookId, downSince.toISOString())) {
          this.logger.warn(
            `webhook endpoint ${webhookId} (project ${delivery.project_id}) suspended: every attempt has failed since ${downSince.toISOString()}; matching events are recorded as skipped until it is enabled`,
          );
        }
      }
    }
  }

  /** Down for longer than notifyThresholdSecs: one notification per episode (an event and a log line). */
  private async onDownNotice(timer: DueTimer): Promise<void> {
    const downSince = await this.deliveries.downSince(timer.key);
    if (!downSince || downSince.toISOString() !== timer.payload.downSince) return; // recovered, or another episode
    if (await this.endpoints.notifyDown(timer.projectId, timer.key, downSince.toISOString())) {
      await this.deliveries.markNotified(timer.projectId, timer.key);
      this.logger.warn(
        `webhook endpoint ${timer.key} (project ${timer.projectId}) down: every attempt has failed since ${downSince.toISOString()}`,
      );
    }
  }
}
