// The transactions service's durable timers on project time (ARCHITECTURE: sandbox clock), each kind with
// the payload it is scheduled with, as events have theirs: a handler reads `timer.payload.legId`, typed.
import { Injectable } from '@nestjs/common';
import { TimerService } from '@mm/platform/clock';

export type TransactionTimers = {
  /**
   * A rail answers a pending leg (key: the leg id). Scheduled by versions before the rails had a provider's port:
   * one still pending sends its leg to the rails when it fires.
   */
  'transaction.leg': { transactionId: string; legId: string };
  /** The sandbox compliance desk decides a review (key: the transaction id). */
  'transaction.review': { transactionId: string };
  /** The sweeper asks the provider about an unconfirmed payout (key: the leg id; spec: Unconfirmed payout sweep). */
  'transaction.unconfirmedSweep': { transactionId: string; legId: string };
  /** A deposit held for its sender's attribution fails at the hold's deadline (key: the transaction id). */
  'transaction.attributionTimeout': { transactionId: string };
  /** A virtual account's bank refund's step (key: the leg id and the step); as `transaction.leg`, from earlier versions. */
  'transaction.bankRefund': { transactionId: string; legId: string; step: 'accepted' | 'settled' | 'unconfirmed' };
};

export type TransactionTimerKind = keyof TransactionTimers;

export const LEG_TIMER = 'transaction.leg' satisfies TransactionTimerKind;
export const REVIEW_TIMER = 'transaction.review' satisfies TransactionTimerKind;
export const SWEEP_TIMER = 'transaction.unconfirmedSweep' satisfies TransactionTimerKind;
export const ATTRIBUTION_TIMER = 'transaction.attributionTimeout' satisfies TransactionTimerKind;
export const REFUND_TIMER = 'transaction.bankRefund' satisfies TransactionTimerKind;

/** A timer of one kind come due, its payload as that kind is scheduled with. */
export interface DueTransactionTimer<K extends TransactionTimerKind> {
  projectId: string;
  kind: K;
  key: string;
  payload: TransactionTimers[K];
  dueAt: Date;
}

/** The platform's timers, typed by kind: what is scheduled is what its handler is given. */
@Injectable()
export class TransactionTimerService {
  constructor(private readonly timers: TimerService) {}

  /** In the caller's transaction; the same kind and key again re-schedules it. */
  schedule<K extends TransactionTimerKind>(
    projectId: string,
    kind: K,
    key: string,
    dueAt: Date,
    payload: TransactionTimers[K],
  ): Promise<void> {
    return this.timers.schedule(projectId, kind, key, dueAt, payload);
  }

  cancel(kind: TransactionTimerKind, key: string): Promise<void> {
    return this.timers.cancel(kind, key);
  }

  register<K extends TransactionTimerKind>(kind: K, handler: (timer: DueTransactionTimer<K>) => Promise<void>): void {
    // The row's payload is the one schedule wrote for this kind.
    this.timers.on(kind, (timer) => handler(timer as unknown as DueTransactionTimer<K>));
  }
}
