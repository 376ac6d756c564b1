// The record of the delivery worker's attempts (ADR 0018): each attempt, the
// delivery's next state on the retry schedule (spec: Events / Delivery and
// verification 3) and the endpoint's health, for the attempts that finished
// meanwhile, in one transaction (group commit). A delivery stays leased until its
// attempt is recorded, so no other process takes it.
import type { Logger } from '@nestjs/common';
import { isDelivered, MAX_ATTEMPTS, retryDelaySecs } from '@mm/webhooks/domain';
import type {
  ClaimedDelivery,
  DeliveryStatus,
  RecordedAttempt,
  SendResult,
  WebhookDeliveries,
} from '@mm/webhooks/infrastructure';
import type { UnitOfWork } from '@mm/platform/database';
import type { EndpointHealth } from './endpoint-health';

/** One finished attempt, to record. */
export interface AttemptOutcome {
  delivery: ClaimedDelivery;
  attemptedAt: string;
  result: SendResult;
}

/** Attempts recorded in one transaction at most. */
const RECORD_BATCH = 500;

export class DeliveryAttemptRecorder {
  private readonly outcomes: AttemptOutcome[] = [];
  private flushing?: Promise<void>;

  /** `retried`: deliveries were retried while their attempts were in flight, and are due now. */
  constructor(
    private readonly uow: UnitOfWork,
    private readonly deliveries: WebhookDeliveries,
    private readonly health: EndpointHealth,
    private readonly logger: Logger,
    private readonly retried: () => void,
    /** Told of each attempt recorded, once committed, by the delivery's state after it. */
    private readonly counted: (outcome: DeliveryStatus) => void = () => undefined,
  ) {}

  /** Recorded with the others that finished meanwhile. */
  add(outcome: AttemptOutcome): void {
    this.outcomes.push(outcome);
    this.flush();
  }

  /** Resolves once every attempt added so far has been written (or its write has failed). */
  async flushed(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Writes the finished attempts, a batch at a time, one flush after another. */
  private flush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      while (this.outcomes.length > 0) {
        const batch = this.outcomes.splice(0, RECORD_BATCH);
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

  private async record(outcomes: AttemptOutcome[]): Promise<void> {
    const recorded: DeliveryStatus[] = [];
    const retried = await this.uow.run(async () => {
      recorded.length = 0;
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
        attempts.push({
          id: delivery.id,
          leaseToken: delivery.lease_token,
          attempt: delivery.earlier_attempts + sinceRetry,
          attemptedAt,
          ...result,
          ...next,
        });
      }
      // The endpoints' health follows from the outcomes alone: its statements travel with the attempts'.
      const [{ updated, retried }] = await Promise.all([
        this.deliveries.recordAttempts(attempts),
        this.health.update(outcomes),
      ]);
      for (const a of attempts) {
        if (updated.has(a.id)) recorded.push(a.status);
        if (a.status === 'failed' && updated.has(a.id) && !retried.has(a.id)) {
          const d = outcomes.find((o) => o.delivery.id === a.id)!.delivery;
          this.logger.warn(
            `webhook delivery ${a.id} to endpoint ${d.webhook_id} (project ${d.project_id}) failed after ${MAX_ATTEMPTS} attempts`,
          );
        }
      }
      return retried;
    });
    for (const outcome of recorded) this.counted(outcome);
    // Retried while their attempts were in flight: due now, and claimed at once rather than at the next poll.
    if (retried.size > 0) this.retried();
  }
}
