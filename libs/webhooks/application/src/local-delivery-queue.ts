// The hand-off between the transactions of this process that queue deliveries
// and this process's delivery worker (ADR 0053, ADR 0055). While the worker has
// room, a transaction leases what it queues to the worker with the insert itself
// and, once committed, offers it here: the worker takes it as a claim would have
// answered it, and no claim query has to find it. What is queued in the table
// instead wakes the worker after the commit. Ordering is as good as one process
// can make it (spec: Events / Delivery and verification): nothing queued later is
// offered ahead of a delivery this process left in the table, until a claim has
// found the table clear of it.
import { Injectable } from '@nestjs/common';
import type { ClaimedDelivery } from '@mm/webhooks/infrastructure';

/** Wall time a delivery stays leased beyond its endpoint's timeout, to record the outcome: by a claim or by its insert. */
export const LEASE_MARGIN_MS = 5_000;

/** A delivery offered to the worker; `since` is performance.now() before its insert, when its lease began. */
export interface OfferedDelivery {
  delivery: ClaimedDelivery;
  since: number;
}

/** This process's running worker, as the queue sees it. */
export interface LocalDeliveryConsumer {
  /** Whether it has a free slot for one more delivery beyond the `waiting` ones offered and not yet taken. */
  hasRoom(waiting: number): boolean;
  /** Deliveries were offered: it takes them while it has free slots. */
  offered(): void;
  /** Deliveries were queued in the table and committed: it claims what is due. */
  wake(): void;
}

/** What a claim can tell of the table once it is answered (claimFoundLess): taken when it is asked. */
export interface ClaimMark {
  left: number;
  clears: boolean;
}

@Injectable()
export class LocalDeliveryQueue {
  /** The worker of this process while it runs. */
  private consumer?: LocalDeliveryConsumer;
  /** Offered and not yet taken, in the order of their commits. */
  private readonly waiting: OfferedDelivery[] = [];
  /**
   * Nothing this process queued waits in the table unclaimed, as far as the queue knows, so what is offered
   * cannot overtake it. Cleared when a delivery is left in the table (`left` counts them); set again by a claim
   * that found less than it asked for, asked after a commit that queued in the table had woken the worker
   * (`leftWoken`: the count then) and with nothing left there since. A left delivery whose transaction rolled
   * back wakes nobody: the next one left there, once committed, clears the way.
   */
  private tableClear = true;
  private left = 0;
  private leftWoken = 0;

  /** The worker starts: from now on what this process queues may be offered to it. */
  open(consumer: LocalDeliveryConsumer): void {
    this.consumer = consumer;
    this.waiting.length = 0;
    this.tableClear = true;
    this.left = 0;
    this.leftWoken = 0;
  }

  /**
   * The worker stops: from now on what this process queues notifies the processes still running. Returns what
   * was offered and not taken, for the worker to give back.
   */
  close(): ClaimedDelivery[] {
    this.consumer = undefined;
    return this.waiting.splice(0).map((w) => w.delivery);
  }

  /** The worker serving this process now, if one runs: what a transaction leases to it is offered to it alone. */
  get worker(): LocalDeliveryConsumer | undefined {
    return this.consumer;
  }

  /**
   * Whether the deliveries a transaction queues now go to the worker, leased to it by their insert: it runs,
   * has room for one more, and nothing this process queued before waits in the table for a claim.
   */
  accepts(): boolean {
    return this.consumer !== undefined && this.tableClear && this.consumer.hasRoom(this.waiting.length);
  }

  /** A delivery was queued in the table for a claim: nothing queued after it is offered ahead of it. Returns the count so far. */
  leftInTable(): number {
    this.tableClear = false;
    return ++this.left;
  }

  /**
   * After the commit of an insert that leased these deliveries to `worker`: offered to it, unless it has
   * stopped meanwhile (their leases run out and another process's worker claims them).
   */
  offer(worker: LocalDeliveryConsumer, deliveries: ClaimedDelivery[], since: number): void {
    if (this.consumer !== worker) return;
    for (const delivery of deliveries) this.waiting.push({ delivery, since });
    worker.offered();
  }

  /** The next delivery offered, in commit order. */
  take(): OfferedDelivery | undefined {
    return this.waiting.shift();
  }

  /** How many were offered and not taken yet. */
  get size(): number {
    return this.waiting.length;
  }

  /**
   * After a commit that queued deliveries in the table: whatever this process left there before is committed (a
   * reader's events fan out one transaction after another), and the claim the worker starts finds it. False
   * when no worker runs here.
   */
  wake(): boolean {
    const worker = this.consumer;
    if (!worker) return false;
    this.tableWoken(this.left);
    worker.wake();
    return true;
  }

  /** The deliveries left in the table up to the `left`th are committed, and the worker has been woken for them. */
  tableWoken(left: number): void {
    this.leftWoken = Math.max(this.leftWoken, left);
  }

  /** Before a claim of due deliveries. */
  claimAsked(): ClaimMark {
    return { left: this.left, clears: this.leftWoken === this.left };
  }

  /** The claim found less than it asked for: nothing else is due, so the table is clear if nothing was left there unwoken. */
  claimFoundLess(mark: ClaimMark): void {
    if (mark.clears && this.left === mark.left) this.tableClear = true;
  }
}
