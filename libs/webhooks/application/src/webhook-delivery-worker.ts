// The delivery worker (spec: Events / Delivery and verification; States/Webhook;
// ADR 0018). It claims due deliveries from the PostgreSQL queue (SKIP LOCKED,
// leased for one attempt), posts each signed afresh, and records the attempt, the
// delivery's next state and the endpoint's health in one transaction. Due times
// are project time, so advancing a sandbox clock runs the three-day schedule in
// seconds. Processes of the webhooks service share the queue; a process that dies
// mid-attempt leaves a lease that runs out, and the delivery is tried again.
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { signWebhookPayload } from '@mm/contracts';
import { isDelivered, MAX_ATTEMPTS, retryDelaySecs, shouldSuspend } from '@mm/webhooks/domain';
import { DELIVERIES_CHANNEL, WebhookDeliveries, WebhookSender, WebhookSigningKeys, type ClaimedDelivery, type DeliveryStatus, type SendResult } from '@mm/webhooks/infrastructure';
import { CLOCK_CHANGES_CHANNEL, ProjectClock, TimerService, type DueTimer } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { listenConnectionConfig, PgListener, UnitOfWork } from '@mm/platform/database';
import { DOWN_NOTICE_TIMER, WebhookEndpointsService } from './webhook-endpoints.service';

/** Wall time a claimed delivery stays leased beyond its endpoint's timeout, to record the outcome. */
const LEASE_MARGIN_MS = 5_000;
const IDLE_POLL_MS = 250;
const PURGE_EVERY_MS = 10 * 60_000;

@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('webhook-deliveries');
  private readonly sender: WebhookSender;
  private readonly concurrency: number;
  private listener?: PgListener;
  private poller?: NodeJS.Timeout;
  private purger?: NodeJS.Timeout;
  private running = false;
  private pumping?: Promise<void>;
  private pumpAgain = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly uow: UnitOfWork,
    private readonly deliveries: WebhookDeliveries,
    private readonly signingKeys: WebhookSigningKeys,
    private readonly endpoints: WebhookEndpointsService,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
    private readonly config: PlatformConfig,
  ) {
    this.sender = new WebhookSender({ production: config.MM_ENVIRONMENT === 'production' });
    this.concurrency = config.MM_WEBHOOK_CONCURRENCY;
    this.timers.on(DOWN_NOTICE_TIMER, (timer) => this.onDownNotice(timer));
  }

  async onApplicationBootstrap(): Promise<void> {
    this.running = true;
    // New queued deliveries and clock advances wake the worker; polling covers what a lost notification misses.
    this.listener = new PgListener(listenConnectionConfig(this.uow.dataSource), [DELIVERIES_CHANNEL, CLOCK_CHANGES_CHANNEL], { onNotification: () => this.wake(), onResumed: () => this.wake() }, this.logger);
    await this.listener.start();
    const poll = () => {
      this.wake();
      if (this.running) this.poller = setTimeout(poll, IDLE_POLL_MS);
    };
    poll();
    const purge = () => {
      this.purge().finally(() => {
        if (this.running) this.purger = setTimeout(purge, PURGE_EVERY_MS);
      });
    };
    this.purger = setTimeout(purge, 1000);
    this.purger.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.poller);
    clearTimeout(this.purger);
    await this.listener?.stop();
    await this.pumping;
    // Attempts under way finish and are recorded (each is bounded by its endpoint's timeout).
    await Promise.allSettled([...this.inFlight]);
    await this.sender.close();
  }

  /** Looks for due deliveries now. */
  wake(): void {
    if (!this.running) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump()
      .catch((error: unknown) => this.logger.error(`claiming deliveries failed: ${String(error)}`))
      .finally(() => {
        this.pumping = undefined;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.wake();
        }
      });
  }

  private async pump(): Promise<void> {
    while (this.running && this.inFlight.size < this.concurrency) {
      const claimed = await this.uow.run(() => this.deliveries.claimDue(this.concurrency - this.inFlight.size, LEASE_MARGIN_MS));
      for (const delivery of claimed) {
        const attempt: Promise<void> = this.attempt(delivery)
          .catch((error: unknown) => this.logger.error(`delivery ${delivery.id} could not be recorded: ${String(error)}`))
          .finally(() => {
            this.inFlight.delete(attempt);
            this.wake();
          });
        this.inFlight.add(attempt);
      }
      if (claimed.length === 0) return;
    }
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const attemptedAt = (await this.clock.now(delivery.project_id)).toISOString();
    let result: SendResult;
    if (!delivery.key_sealed || !delivery.encryption_key_id) {
      result = { statusCode: null, error: 'the endpoint has no signing key', responseBody: null, durationMs: 0 };
    } else {
      const key = this.signingKeys.open(delivery.webhook_id, delivery.encryption_key_id, delivery.key_sealed);
      // The signature's timestamp is wall time: receivers check it against their own clocks.
      const signature = signWebhookPayload(key, delivery.body, Math.floor(Date.now() / 1000));
      result = await this.sender.send(delivery.url, delivery.body, { 'webhook-signature': signature, 'webhook-id': delivery.id }, delivery.timeout_ms);
    }
    await this.record(delivery, attemptedAt, result);
  }

  private async record(delivery: ClaimedDelivery, attemptedAt: string, result: SendResult): Promise<void> {
    const delivered = isDelivered(result.statusCode ?? undefined);
    await this.uow.run(async () => {
      const now = await this.clock.now(delivery.project_id);
      const attempts = delivery.attempt_count + 1;
      const delay = retryDelaySecs(attempts);
      const next: { status: DeliveryStatus; nextAttemptAt: string | null } = delivered
        ? { status: 'delivered', nextAttemptAt: null }
        : delay === undefined || attempts >= MAX_ATTEMPTS
          ? { status: 'failed', nextAttemptAt: null }
          : { status: 'queued', nextAttemptAt: new Date(now.getTime() + delay * 1000).toISOString() };
      const current = await this.deliveries.recordAttempt(delivery, { attemptedAt, ...result }, { ...next, at: now.toISOString() });
      if (delivered) {
        if (await this.deliveries.markSuccess(delivery.webhook_id, attemptedAt)) await this.timers.cancel(DOWN_NOTICE_TIMER, delivery.webhook_id);
        return;
      }
      if (current && next.status === 'failed') this.logger.warn(`webhook delivery ${delivery.id} to endpoint ${delivery.webhook_id} (project ${delivery.project_id}) failed after ${MAX_ATTEMPTS} attempts`);
      const { downSince, started } = await this.deliveries.markFailure(delivery.webhook_id, attemptedAt);
      if (started) {
        const dueAt = new Date(downSince.getTime() + delivery.notify_threshold_secs * 1000);
        await this.timers.schedule(delivery.project_id, DOWN_NOTICE_TIMER, delivery.webhook_id, dueAt, { downSince: downSince.toISOString() });
      }
      if (shouldSuspend(downSince, new Date(attemptedAt))) {
        const suspended = await this.endpoints.suspend(delivery.project_id, delivery.webhook_id, downSince.toISOString());
        if (suspended) {
          this.logger.warn(
            `webhook endpoint ${delivery.webhook_id} (project ${delivery.project_id}) suspended: every attempt has failed since ${downSince.toISOString()}; matching events are recorded as skipped until it is enabled`,
          );
        }
      }
    });
  }

  /** Down for longer than notifyThresholdSecs: one notification per episode (an event and a log line). */
  private async onDownNotice(timer: DueTimer): Promise<void> {
    const downSince = await this.deliveries.downSince(timer.key);
    if (!downSince || downSince.toISOString() !== timer.payload.downSince) return; // recovered, or another episode
    const at = (await this.clock.now(timer.projectId)).toISOString();
    if (await this.endpoints.notifyDown(timer.projectId, timer.key, downSince.toISOString())) {
      await this.deliveries.markNotified(timer.key, at);
      this.logger.warn(`webhook endpoint ${timer.key} (project ${timer.projectId}) down: every attempt has failed since ${downSince.toISOString()}`);
    }
  }

  private async purge(): Promise<void> {
    try {
      let purged = 0;
      for (let batch = await this.deliveries.purge(this.config.MM_WEBHOOK_RETENTION_DAYS); batch > 0 && this.running; batch = await this.deliveries.purge(this.config.MM_WEBHOOK_RETENTION_DAYS)) purged += batch;
      if (purged > 0) this.logger.log(`purged ${purged} deliveries older than ${this.config.MM_WEBHOOK_RETENTION_DAYS} days`);
    } catch (error) {
      this.logger.error(`purging delivery history failed: ${String(error)}`);
    }
  }
}
