// The delivery worker's slots (ADR 0018): at most MM_WEBHOOK_CONCURRENCY attempts
// in flight, and whether the slots were what cut the last claim short. Freed
// slots claim again a batch at a time: one claim query for many deliveries, not
// one per delivery.
/** Free slots worth a claim query while deliveries are in flight. */
const CLAIM_BATCH = 8;

export class DeliverySlots {
  private readonly inFlight = new Set<Promise<void>>();
  /** The last claim took as many as it asked for: more may be due than there were free slots. */
  private mayHaveMore = false;

  constructor(private readonly concurrency: number) {}

  get free(): number {
    return this.concurrency - this.inFlight.size;
  }

  /**
   * Whether one more delivery, beyond the `waiting` ones already promised a slot, gets one now without
   * overtaking what waits in the table for freed slots.
   */
  hasRoom(waiting: number): boolean {
    return !this.mayHaveMore && this.inFlight.size + waiting < this.concurrency;
  }

  /** Woken with every slot taken: whatever woke it waits in the table, and the first slots to free up claim it. */
  wokenWhileFull(): void {
    if (this.inFlight.size >= this.concurrency) this.mayHaveMore = true;
  }

  /** A claim asked for `asked` and got `got`: returns whether more may be due (it got all it asked for). */
  claimed(asked: number, got: number): boolean {
    this.mayHaveMore = got === asked;
    return this.mayHaveMore;
  }

  /** An attempt in a slot of its own; `freed` runs once it has settled and its slot is free. */
  occupy(attempt: Promise<void>, freed: () => void): void {
    const settled: Promise<void> = attempt.finally(() => {
      this.inFlight.delete(settled);
      freed();
    });
    this.inFlight.add(settled);
  }

  /**
   * Whether to claim again now that a slot is free: once a batch's worth of slots is free (or none is in
   * flight), if the slots were what held the last claim back.
   */
  worthClaiming(): boolean {
    return this.mayHaveMore && (this.inFlight.size === 0 || this.free >= CLAIM_BATCH);
  }

  /** Resolves once every attempt under way has settled (each is bounded by its endpoint's timeout). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
