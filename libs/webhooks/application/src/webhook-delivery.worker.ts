// The delivery worker (spec: Events / Delivery and verification; States/Webhook;
// ADR 0018). It claims due deliveries from the PostgreSQL queue (SKIP LOCKED,
// leased for one attempt), or takes those its own process queued from the local
// queue, leased by their insert (ADR 0055), posts each signed afresh, and records
// the attempt, the delivery's next state and the endpoint's health in one
// transaction. Due times are project time, so advancing a sandbox clock runs the
// three-day schedule in seconds. Processes of the webhooks service share the
// queue; a process that dies mid-attempt leaves a lease that runs out, and the
// delivery is tried again. A delivery has one attempt in flight at a time: a
// retry asked meanwhile follows it (ADR 0059).
//
// Its parts: when to look (DeliveryWakeUps), the slots and the claim batching
// (DeliverySlots), the order of a resource's sends (SendOrder), the record
// (DeliveryAttemptRecorder, EndpointHealth) and the retention (DeliveryPurge).
import { Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { Counter } from 'prom-client';
import { signWebhookPayload } from '@mm/contracts';
import {
  PartnerEvents,
  WebhookDeliveries,
  WebhookSender,
  WebhookSigningKeys,
  type ClaimedDelivery,
  type SendResult,
} from '@mm/webhooks/infrastructure';
import { TimerService } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { HttpMetrics } from '@mm/platform/http';
import { DeliveryAttemptRecorder } from './delivery-attempt-recorder';
import { DeliveryPurge } from './delivery-purge';
import { DeliverySlots } from './delivery-slots';
import { DeliveryWakeUps } from './delivery-wake-ups';
import { EndpointHealth } from './endpoint-health';
import { LEASE_MARGIN_MS, LocalDeliveryQueue } from './local-delivery-queue';
import { SendOrder } from './send-order';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/**
 * Longest wait (for a slot, or for the send before it of the same endpoint and resource) that still leaves an
 * attempt its endpoint's whole timeout within the lease; a delivery that waited longer has its lease renewed in
 * its turn, so it is still sent in its place.
 */
export const MAX_ORDER_WAIT_MS = LEASE_MARGIN_MS - 2_000;

@Injectable()
export class WebhookDeliveryWorker implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('webhook-deliveries');
  private readonly sender: WebhookSender;
  private readonly wakeUps = new DeliveryWakeUps(() => this.claim(), this.logger);
  private readonly slots: DeliverySlots;
  private readonly order = new SendOrder();
  private readonly recorder: DeliveryAttemptRecorder;
  private readonly purge: DeliveryPurge;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly deliveries: WebhookDeliveries,
    events: PartnerEvents,
    private readonly signingKeys: WebhookSigningKeys,
    endpoints: WebhookEndpointsService,
    timers: TimerService,
    config: PlatformConfig,
    private readonly queue: LocalDeliveryQueue,
    // The process's /metrics (docs/metrics.md): absent where a test builds the worker by hand.
    @Optional() metrics?: HttpMetrics,
  ) {
    this.sender = new WebhookSender({ production: config.MM_ENVIRONMENT === 'production' });
    this.slots = new DeliverySlots(config.MM_WEBHOOK_CONCURRENCY);
    const health = new EndpointHealth(deliveries, endpoints, timers, this.logger);
    const attempts =
      metrics &&
      new Counter({
        name: 'mm_webhook_attempts_total',
        help: 'Webhook delivery attempts recorded, by what they left the delivery: delivered, queued for a retry, or failed for good',
        labelNames: ['outcome'] as const,
        registers: [metrics.registry],
      });
    this.recorder = new DeliveryAttemptRecorder(
      uow,
      deliveries,
      health,
      this.logger,
      () => this.wake(),
      (outcome) => attempts?.inc({ outcome }),
    );
    this.purge = new DeliveryPurge(deliveries, events, config.MM_WEBHOOK_RETENTION_DAYS, this.logger);
  }

  async onApplicationBootstrap(): Promise<void> {
    // What this process queues is offered to this worker, or wakes it, in memory (ADR 0053, ADR 0055).
    this.queue.open({
      // A free slot for it, counting what was offered and waits for one.
      hasRoom: (waiting) => this.wakeUps.running && this.slots.hasRoom(waiting),
      offered: () => this.startOffered(),
      wake: () => this.wake(),
    });
    await this.wakeUps.start(this.uow);
    this.purge.start();
  }

  async onApplicationShutdown(): Promise<void> {
    // From now on what this process queues notifies, for the processes still running.
    const offered = this.queue.close();
    this.purge.stop();
    await this.wakeUps.stop();
    // Offered but not started: given back, due at once, for the processes still running.
    await this.release(offered);
    // Attempts under way finish and are recorded (each is bounded by its endpoint's timeout).
    await this.slots.settled();
    await this.recorder.flushed();
    await this.sender.close();
  }

  /** Looks for due deliveries now. */
  wake(): void {
    this.wakeUps.wake();
  }

  private async claim(): Promise<void> {
    this.slots.wokenWhileFull();
    while (this.wakeUps.running && this.slots.free > 0) {
      const asked = this.slots.free;
      // Before the claim: the lease runs from a moment after it.
      const claimStarted = performance.now();
      const mark = this.queue.claimAsked();
      // One statement, its own transaction: no BEGIN and COMMIT round trips around it.
      const claimed = await this.deliveries.claimDue(asked, LEASE_MARGIN_MS);
      // In the claim's order, which is the order the deliveries were made in.
      for (const delivery of claimed) this.start(delivery, claimStarted);
      // Fewer than asked: nothing else is due now. What is queued later notifies (a wake during this
      // claim claims again), and the poll covers retries coming due and a lost notification.
      if (!this.slots.claimed(asked, claimed.length)) {
        this.queue.claimFoundLess(mark);
        return;
      }
    }
  }

  /** One attempt under way, in a slot of its own. */
  private start(delivery: ClaimedDelivery, leasedAt: number): void {
    const attempt = this.attempt(delivery, leasedAt).catch((error: unknown) =>
      this.logger.error(`delivery ${delivery.id} failed unexpectedly: ${String(error)}`),
    );
    this.slots.occupy(attempt, () => {
      this.startOffered();
      if (this.slots.worthClaiming()) this.wake();
    });
  }

  /**
   * Starts what this process's transactions offered (leased to this worker by their insert, and committed) while
   * slots are free, in the order offered, as a claim of it would have started it. One that waited long for a slot
   * has its lease renewed in its turn (attempt): giving it back instead would let a later delivery of its resource,
   * offered after it and waiting less, go first.
   */
  private startOffered(): void {
    while (this.wakeUps.running && this.queue.size > 0 && this.slots.free > 0) {
      const { delivery, since } = this.queue.take()!;
      // The attempt's time: the project's time at the insert, and the wall time since.
      delivery.claimed_at = new Date(delivery.claimed_at.getTime() + (performance.now() - since));
      this.start(delivery, since);
    }
  }

  /** Gives deliveries back unattempted, due at once (a failure leaves their leases to run out). */
  private async release(deliveries: ClaimedDelivery[]): Promise<void> {
    for (const d of deliveries) {
      await this.deliveries
        .release(d.id, d.lease_token)
        .catch((error: unknown) => this.logger.error(`giving back delivery ${d.id} failed: ${String(error)}`));
    }
  }

  /**
   * A resource's deliveries to an endpoint go one after another (SendOrder), each in its turn however long the
   * one before it took; a test send keeps no order. A delivery whose lease may no longer cover a whole attempt
   * has it renewed first, and is left alone if another lease took it meanwhile (a claim found the lease run out).
   */
  private async attempt(delivery: ClaimedDelivery, leasedAt: number): Promise<void> {
    const key =
      delivery.test || delivery.resource_id === null ? undefined : `${delivery.webhook_id} ${delivery.resource_id}`;
    await this.order.inTurn(key, async () => {
      if (performance.now() - leasedAt > MAX_ORDER_WAIT_MS) {
        const leaseMs = delivery.timeout_ms + LEASE_MARGIN_MS;
        if (!(await this.deliveries.renewLease(delivery.id, delivery.lease_token, leaseMs))) return;
      }
      await this.send(delivery);
    });
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    // The time the claim found it due, on the project's clock in PostgreSQL (one source of "now").
    const attemptedAt = new Date(delivery.claimed_at).toISOString();
    let result: SendResult;
    if (!delivery.key_sealed || !delivery.encryption_key_id) {
      result = { statusCode: null, error: 'the endpoint has no signing key', responseBody: null, durationMs: 0 };
    } else {
      // The current key's signature, and a rotated key's beside it for a day after the rotation (on the project's clock).
      const keys = this.signingKeys.signingKeysAt(
        delivery.webhook_id,
        { encryption_key_id: delivery.encryption_key_id, key_sealed: delivery.key_sealed },
        delivery.previous_keys,
        new Date(delivery.claimed_at),
      );
      // The signature's timestamp is wall time: receivers check it against their own clocks.
      const signature = signWebhookPayload(keys, delivery.body, Math.floor(Date.now() / 1000));
      // The event's id travels beside the delivery's: a delivery asked for again (POST /webhooks/{id}/deliveries)
      // has a new whd_ but the event's evt_, which the envelope carries only for statusChanged events.
      const headers = {
        'webhook-signature': signature,
        'webhook-id': delivery.id,
        'webhook-event-id': delivery.event_id,
      };
      result = await this.sender.send(delivery.url, delivery.body, headers, delivery.timeout_ms);
    }
    // Recorded with the others that finished meanwhile, in one transaction (group commit); the
    // delivery stays leased until then, so no other process takes it.
    this.recorder.add({ delivery, attemptedAt, result });
  }
}
