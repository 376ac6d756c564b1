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
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { signWebhookPayload } from '@mm/contracts';
import { isDelivered, MAX_ATTEMPTS, retryDelaySecs, shouldSuspend } from '@mm/webhooks/domain';
import { DELIVERIES_CHANNEL, PartnerEvents, WebhookDeliveries, WebhookSender, WebhookSigningKeys, type ClaimedDelivery, type RecordedAttempt, type SendResult } from '@mm/webhooks/infrastructure';
import { CLOCK_CHANGES_CHANNEL, TimerService, type DueTimer } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { listenConnectionConfig, PgListener, UnitOfWork } from '@mm/platform/database';
import { LEASE_MARGIN_MS, LocalDeliveryQueue } from './local-delivery-queue';
import { DOWN_NOTICE_TIMER, WebhookEndpointsService } from './webhook-endpoints.service';

const IDLE_POLL_MS = 250;
/** Free slots worth a claim query while deliveries are in flight. */
const CLAIM_BATCH = 8;
/**
 * Longest wait for the send before it (same endpoint, same resource) that still leaves an attempt its
 * endpoint's whole timeout within the lease; a delivery that waited longer is given back, unattempted.
 */
const MAX_ORDER_WAIT_MS = LEASE_MARGIN_MS - 2_000;

interface Outcome {
  delivery: ClaimedDelivery;
  attemptedAt: string;
  result: SendResult;
}

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
  /** The last claim took as many as it asked for: more may be due than there were free slots. */
  private mayHaveMore = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Per endpoint and resource, the last send under way: the next waits for its answer. */
  private readonly lastSends = new Map<string, Promise<void>>();
  private readonly outcomes: Outcome[] = [];
  private flushing?: Promise<void>;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly deliveries: WebhookDeliveries,
    private readonly events: PartnerEvents,
    private readonly signingKeys: WebhookSigningKeys,
    private readonly endpoints: WebhookEndpointsService,
    private readonly timers: TimerService,
    private readonly config: PlatformConfig,
    private readonly queue: LocalDeliveryQueue,
  ) {
    this.sender = new WebhookSender({ production: config.MM_ENVIRONMENT === 'production' });
    this.concurrency = config.MM_WEBHOOK_CONCURRENCY;
    this.timers.on(DOWN_NOTICE_TIMER, (timer) => this.onDownNotice(timer));
  }

  async onApplicationBootstrap(): Promise<void> {
    this.running = true;
    // What this process queues is offered to this worker, or wakes it, in memory (ADR 0053, ADR 0055); what other
    // processes queue and clock advances notify; polling covers a lost notification and what a busy process
    // leaves to the others.
    this.queue.open({
      // A free slot for it, counting what was offered and waits for one.
      hasRoom: (waiting) => this.running && !this.mayHaveMore && this.inFlight.size + waiting < this.concurrency,
      offered: () => this.startHanded(),
      wake: () => this.wake(),
    });
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
    // From now on what this process queues notifies, for the processes still running.
    const handed = this.queue.close();
    clearTimeout(this.poller);
    clearTimeout(this.purger);
    await this.listener?.stop();
    await this.pumping;
    // Handed over but not started: given back, due at once, for the processes still running.
    await this.releaseHanded(handed);
    // Attempts under way finish and are recorded (each is bounded by its endpoint's timeout).
    await Promise.allSettled([...this.inFlight]);
    while (this.flushing) await this.flushing;
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
    // Every slot taken (by what was handed over, or claimed): whatever woke it waits in the table, and the first
    // slots to free up claim it.
    if (this.inFlight.size >= this.concurrency) this.mayHaveMore = true;
    while (this.running && this.inFlight.size < this.concurrency) {
      const asked = this.concurrency - this.inFlight.size;
      // Before the claim: the lease runs from a moment after it.
      const claimStarted = performance.now();
      const mark = this.queue.claimAsked();
      // One statement, its own transaction: no BEGIN and COMMIT round trips around it.
      const claimed = await this.deliveries.claimDue(asked, LEASE_MARGIN_MS);
      // In the claim's order, which is the order the deliveries were made in.
      for (const delivery of claimed) this.start(delivery, claimStarted);
      // Fewer than asked: nothing else is due now. What is queued later notifies (a wake during this
      // claim claims again), and the poll covers retries coming due and a lost notification.
      this.mayHaveMore = claimed.length === asked;
      if (!this.mayHaveMore) {
        this.queue.claimFoundLess(mark);
        return;
      }
    }
  }

  /** One attempt under way, in a slot of its own. */
  private start(delivery: ClaimedDelivery, leasedAt: number): void {
    const attempt: Promise<void> = this.attempt(delivery, leasedAt)
      .catch((error: unknown) => this.logger.error(`delivery ${delivery.id} failed unexpectedly: ${String(error)}`))
      .finally(() => {
        this.inFlight.delete(attempt);
        this.startHanded();
        // Claim again once a batch's worth of slots is free (or none is in flight), if the slots were
        // what held the last claim back: one claim query for many deliveries, not one per delivery.
        if (this.mayHaveMore && (this.inFlight.size === 0 || this.concurrency - this.inFlight.size >= CLAIM_BATCH)) this.wake();
      });
    this.inFlight.add(attempt);
  }

  /**
   * Starts what this process's transactions offered (leased to this worker by their insert, and committed) while
   * slots are free, as a claim of it would have started it; what has waited too long for one is given back.
   */
  private startHanded(): void {
    const stale: ClaimedDelivery[] = [];
    while (this.running && this.queue.size > 0 && this.inFlight.size < this.concurrency) {
      const { delivery, since } = this.queue.take()!;
      const waited = performance.now() - since;
      if (waited > MAX_ORDER_WAIT_MS) {
        stale.push(delivery);
        continue;
      }
      // The attempt's time: the project's time at the insert, and the wall time since.
      delivery.claimed_at = new Date(delivery.claimed_at.getTime() + waited);
      this.start(delivery, since);
    }
    if (stale.length > 0) {
      const left = this.queue.leftInTable();
      void this.releaseHanded(stale).finally(() => {
        this.queue.tableWoken(left);
        this.wake();
      });
    }
  }

  /** Gives handed-over deliveries back unattempted, due at once (a failure leaves their leases to run out). */
  private async releaseHanded(deliveries: ClaimedDelivery[]): Promise<void> {
    for (const d of deliveries) {
      await this.deliveries.release(d.id, d.lease_token).catch((error: unknown) => this.logger.error(`giving back delivery ${d.id} failed: ${String(error)}`));
    }
  }

  /**
   * Ordering is best effort (at least once, deduplicated by the receiver on sequence), made as good
   * as one process can: a resource's deliveries to an endpoint go one after another, in the order
   * they were made, each once the one before it was answered. A test send keeps no order.
   */
  private async attempt(delivery: ClaimedDelivery, claimStarted: number): Promise<void> {
    const key = delivery.test || delivery.resource_id === null ? undefined : `${delivery.webhook_id} ${delivery.resource_id}`;
    const before = key === undefined ? undefined : this.lastSends.get(key);
    let answered!: () => void;
    const mine = new Promise<void>((resolve) => (answered = resolve));
    if (key !== undefined) this.lastSends.set(key, mine);
    try {
      if (before) {
        await before;
        if (performance.now() - claimStarted > MAX_ORDER_WAIT_MS) {
          // The lease may not last through a whole attempt now: due again at once, claimed afresh.
          await this.deliveries.release(delivery.id, delivery.lease_token);
          this.wake();
          return;
        }
      }
      await this.send(delivery);
    } finally {
      answered();
      if (key !== undefined && this.lastSends.get(key) === mine) this.lastSends.delete(key);
    }
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    // The time the claim found it due, on the project's clock in PostgreSQL (one source of "now").
    const attemptedAt = new Date(delivery.claimed_at).toISOString();
    let result: SendResult;
    if (!delivery.key_sealed || !delivery.encryption_key_id) {
      result = { statusCode: null, error: 'the endpoint has no signing key', responseBody: null, durationMs: 0 };
    } else {
      const key = this.signingKeys.open(delivery.webhook_id, delivery.encryption_key_id, delivery.key_sealed);
      // The signature's timestamp is wall time: receivers check it against their own clocks.
      const signature = signWebhookPayload(key, delivery.body, Math.floor(Date.now() / 1000));
      // The event's id travels beside the delivery's: a delivery asked for again (POST /webhooks/{id}/deliveries)
      // has a new whd_ but the event's evt_, which the envelope carries only for statusChanged events.
      const headers = { 'webhook-signature': signature, 'webhook-id': delivery.id, 'webhook-event-id': delivery.event_id };
      result = await this.sender.send(delivery.url, delivery.body, headers, delivery.timeout_ms);
    }
    // Recorded with the others that finished meanwhile, in one transaction (group commit); the
    // delivery stays leased until then, so no other process takes it.
    this.outcomes.push({ delivery, attemptedAt, result });
    this.flush();
  }

  /** Writes the finished attempts, a batch at a time, one flush after another. */
  private flush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      while (this.outcomes.length > 0) {
        const batch = this.outcomes.splice(0, 500);
        try {
          await this.record(batch);
        } catch (error) {
          // Their leases run out and they are attempted again: at least once.
          this.logger.error(`recording ${batch.length} delivery attempts failed: ${String(error)}`);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.outcomes.length > 0) this.flush();
    });
  }

  private async record(outcomes: Outcome[]): Promise<void> {
    const retried = await this.uow.run(async () => {
      const attempts: RecordedAttempt[] = [];
      for (const { delivery, attemptedAt, result } of outcomes) {
        // The schedule counts the attempts since the last retry (spec: Endpoints / Webhooks, the retry resets the
        // attempt count); the attempt's number counts every one the delivery has had.
        const sinceRetry = delivery.attempt_count + 1;
        const delay = retryDelaySecs(sinceRetry);
        const next: Pick<RecordedAttempt, 'status' | 'retryAfterSecs'> = isDelivered(result.statusCode ?? undefined)
          ? { status: 'delivered', retryAfterSecs: null }
          : delay === undefined || sinceRetry >= MAX_ATTEMPTS
            ? { status: 'failed', retryAfterSecs: null }
            : { status: 'queued', retryAfterSecs: delay };
        attempts.push({ id: delivery.id, leaseToken: delivery.lease_token, attempt: delivery.earlier_attempts + sinceRetry, attemptedAt, ...result, ...next });
      }
      // The endpoints' health follows from the outcomes alone: its statements travel with the attempts'.
      const [{ updated, retried }] = await Promise.all([this.deliveries.recordAttempts(attempts), this.updateHealth(outcomes)]);
      for (const a of attempts) {
        if (a.status === 'failed' && updated.has(a.id) && !retried.has(a.id)) {
          const d = outcomes.find((o) => o.delivery.id === a.id)!.delivery;
          this.logger.warn(`webhook delivery ${a.id} to endpoint ${d.webhook_id} (project ${d.project_id}) failed after ${MAX_ATTEMPTS} attempts`);
        }
      }
      return retried;
    });
    // Retried while their attempts were in flight: due now, and claimed at once rather than at the next poll.
    if (retried.size > 0) this.wake();
  }

  /**
   * Per endpoint, in the order of the attempts: a success ends its down episode; a failure after
   * its last success starts one (or continues it), schedules the down notice, and suspends it once
   * it has been down for about three days.
   */
  private async updateHealth(outcomes: Outcome[]): Promise<void> {
    const byEndpoint = new Map<string, Outcome[]>();
    for (const o of [...outcomes].sort((a, b) => a.attemptedAt.localeCompare(b.attemptedAt))) {
      byEndpoint.set(o.delivery.webhook_id, [...(byEndpoint.get(o.delivery.webhook_id) ?? []), o]);
    }
    const succeeded = new Map<string, string>();
    const failedSince = new Map<string, Outcome[]>();
    for (const [webhookId, list] of byEndpoint) {
      const lastSuccess = list.map((o) => isDelivered(o.result.statusCode ?? undefined)).lastIndexOf(true);
      if (lastSuccess >= 0) succeeded.set(webhookId, list[lastSuccess].attemptedAt);
      const failures = list.slice(lastSuccess + 1);
      if (failures.length > 0) failedSince.set(webhookId, failures);
    }
    for (const recovered of await this.deliveries.markSuccesses(succeeded)) await this.timers.cancel(DOWN_NOTICE_TIMER, recovered);
    for (const [webhookId, failures] of failedSince) {
      const { delivery } = failures[0];
      const { downSince, started } = await this.deliveries.markFailure(webhookId, failures[0].attemptedAt);
      if (started) {
        const dueAt = new Date(downSince.getTime() + delivery.notify_threshold_secs * 1000);
        await this.timers.schedule(delivery.project_id, DOWN_NOTICE_TIMER, webhookId, dueAt, { downSince: downSince.toISOString() });
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
      this.logger.warn(`webhook endpoint ${timer.key} (project ${timer.projectId}) down: every attempt has failed since ${downSince.toISOString()}`);
    }
  }

  /** Deliveries and the Events API's events: the same window (ADR 0034). */
  private async purge(): Promise<void> {
    const days = this.config.MM_WEBHOOK_RETENTION_DAYS;
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
