// The port of the rails behind payouts, deposits and card charges (ARCHITECTURE: Providers, real and simulated),
// shaped as a payment provider's API is: a submission answers with the provider's reference at once; its outcome
// arrives later as the provider's event (settled, returned, declined, a pickup's code); a lookup by reference
// answers what the provider holds now. Events are at-least-once: the leg they answer is found by the reference,
// and a leg already answered takes nothing from a repeat. The sandbox's simulator (SandboxRails) is one adapter of
// this port; a bank's, a card processor's or a retail network's adapter would be another.
import type { LegReferences, TransactionCreated } from '@mm/contracts';
import type { NewLeg, RailOutcome } from '@mm/transactions/domain';

/** What is sent to the rail: the leg and the transaction it belongs to (the provider's request carries both). */
export interface RailSubmission {
  projectId: string;
  record: TransactionCreated;
  leg: NewLeg;
  /**
   * What the provider is asked to do: move the leg's money (`leg`), or send a virtual account deposit's money back
   * to the sender's bank (`bankRefund`), which the bank accepts before it settles.
   */
  purpose: 'leg' | 'bankRefund';
  /** When it is sent, on the project's clock. */
  at: Date;
}

/** A provider's notification about one of its submissions. */
export interface RailEvent {
  /** The provider's own id of the notification. */
  eventId: string;
  /** The submission's reference, as submit answered it. */
  reference: string;
  outcome: RailOutcome;
}

/** What the provider holds of a submission now. */
export type RailLookup = { kind: 'holds'; references: LegReferences } | { kind: 'none' } | { kind: 'unreachable' };

export abstract class PaymentRails {
  /**
   * Sends a submission, in the caller's transaction (the leg's initiation): a crash before commit sends nothing,
   * and the provider's notifications come only after the commit. The provider's reference, at once.
   */
  abstract submit(submission: RailSubmission): Promise<{ reference: string }>;

  /** What the provider holds of the submission with this reference now. */
  abstract lookup(reference: string): Promise<RailLookup>;

  /** Who records the provider's events (the transactions' command path); set once, at start-up. */
  abstract onEvent(handler: (event: RailEvent) => Promise<void>): void;
}
