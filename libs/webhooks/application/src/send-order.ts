// The order of a resource's deliveries to an endpoint (spec: Events / Delivery
// and verification). Ordering is best effort (at least once, deduplicated by the
// receiver on sequence), made as good as one process can: a resource's
// deliveries to an endpoint go one after another, in the order they were
// started, each once the one before it was answered.
export class SendOrder {
  /** Per key (endpoint and resource), the last send under way: the next waits for its answer. */
  private readonly lastSends = new Map<string, Promise<void>>();

  /**
   * Runs `send` once the last send started under `key` has been answered; at once without a key (a send that
   * keeps no order) or with none under way.
   */
  async inTurn(key: string | undefined, send: () => Promise<void>): Promise<void> {
    const before = key === undefined ? undefined : this.lastSends.get(key);
    let answered!: () => void;
    const mine = new Promise<void>((resolve) => (answered = resolve));
    if (key !== undefined) this.lastSends.set(key, mine);
    try {
      if (before) await before;
      await send();
    } finally {
      answered();
      if (key !== undefined && this.lastSends.get(key) === mine) this.lastSends.delete(key);
    }
  }
}
