// Whether a deposit's transaction was made yet. The log readers ask before making a transaction from a
// deposit, which the port nearly always made first: an attempt would fail on the stream's first version,
// under a savepoint, with an error to handle.
import { Injectable } from '@nestjs/common';
import { TransactionCommands } from './transaction.commands';

/** The last `max` ids added, oldest forgotten first. */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly max: number) {}

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}

@Injectable()
export class MadeTransactions {
  /** Transactions this process's port made, once committed. */
  private readonly madeHere = new RecentIds(10_000);

  constructor(private readonly commands: TransactionCommands) {}

  /**
   * Whether the transaction was made: its stream has an event (an index probe; no event is read). One this
   * process's port made and committed is known without the probe (RecentIds: the last 10,000).
   */
  async exists(transactionId: string): Promise<boolean> {
    return this.madeHere.has(transactionId) || this.commands.exists(transactionId);
  }

  /** Made here (or found made) by the port, and committed. */
  remember(transactionId: string): void {
    this.madeHere.add(transactionId);
  }
}
