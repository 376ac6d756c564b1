// The legs of a transaction and how the sandbox rails answer them (spec:
// Transaction legs; API-CONTRACT: every failure row reachable in the sandbox).
// The cents of the source amount choose an outcome (docs/sandbox.md):
//   .91 the first leg is refused before anything moves (charge declined, payout declined)
//   .92 the first leg fails after it was sent (charge reversed, payout returned or reverted)
//   .93 a card buy's charge fails card verification
//   .94 the payout fails after it was sent (a card buy's crypto: held for an operator)
//   .95 the payout goes unanswered; the provider turns out to hold it (it completes)
//   .96 the payout goes unanswered; the provider has none (providerTimeout)
//   .97 the payout goes unanswered and the provider cannot be reached to ask
//   .98 a compliance review rejects the transaction
//   .99 (virtual account deposits) the delivery fails after it was sent, and a refund of it is
//       reported by the bank only as initiated (an operator completes it: complete-refund)
// Anything else settles after the rail's sandbox delay; an operator's retry always does.
// A cash pickup's payout (rail cash) is not chosen by cents (pickups are whole
// multiples of $20): the network issues its pickup code at once, and the
// simulation route POST /transactions/{id}/simulate/cash-pickup decides the rest.
import type { LegFailure, TransactionCreated } from '@mm/contracts';
import { dec } from '@mm/platform/money';
import type { NewLeg, RailOutcome } from './transaction.decider';

export const SANDBOX_MAGIC_CENTS = {
  declined: 91,
  failedAfterSending: 92,
  cardVerificationDeclined: 93,
  payoutFailedAfterSending: 94,
  unconfirmedHeld: 95,
  unconfirmedNone: 96,
  unconfirmedUnreachable: 97,
  reviewRejected: 98,
  refundInitiatedOnly: 99,
} as const;

/** Seconds of project time the service waits for a payout's answer before it stops (processing.payoutUnconfirmed). */
export const PAYOUT_CONFIRMATION_SECONDS = 300;

/** How often the sweeper asks the provider about an unconfirmed payout, in seconds of project time. */
export const UNCONFIRMED_SWEEP_SECONDS = 600;

/** Seconds of project time a sandbox rail takes to settle. */
export const SANDBOX_SETTLEMENT_SECONDS: Record<string, number> = {
  crypto: 5,
  card: 5,
  achSameDay: 30,
  wire: 30,
  ach: 60,
  local: 60,
  swift: 60,
  internationalWire: 60,
};

/** Seconds of project time the sandbox compliance desk takes to decide a review. */
export const SANDBOX_REVIEW_SECONDS = 60;

/** Source amounts at or above this (in the source asset) are held for compliance review. */
export const REVIEW_THRESHOLD = '10000';

export function magicCents(record: Pick<TransactionCreated, 'pricing'>): number {
  return dec(record.pricing.source.amountGross).times(100).floor().mod(100).toNumber();
}

export function needsReview(record: Pick<TransactionCreated, 'pricing'>): boolean {
  return dec(record.pricing.source.amountGross).gte(REVIEW_THRESHOLD);
}

/** The payout: to the destination's rail, for the destination amount. */
export function payoutLeg(record: TransactionCreated, id: string): NewLeg {
  const d = record.destination;
  const asset = record.pricing.destination.asset;
  const network = String(d.details.network);
  if (d.type === 'cash')
    return { id, kind: 'payout', rail: 'cash', asset, network: 'cash', amount: record.pricing.destination.amountNet };
  const rail = d.category === 'crypto' ? 'crypto' : d.type === 'card' ? 'card' : network;
  return { id, kind: 'payout', rail, asset, network, amount: record.pricing.destination.amountNet };
}

/** Money coming in: a card buy's charge on the card rail, a cash-in's deposit on the cash rail; the source amount. */
export function depositLeg(record: TransactionCreated, id: string): NewLeg {
  const rail = record.source.type === 'cash' ? 'cash' : 'card';
  return {
    id,
    kind: 'deposit',
    rail,
    asset: record.pricing.source.asset,
    network: rail,
    amount: record.pricing.source.amountGross,
  };
}

/** The refund: everything pulled goes back to the source wallet. */
export function refundLeg(record: TransactionCreated, id: string): NewLeg {
  const s = record.source;
  return {
    id,
    kind: 'refund',
    rail: s.type === 'card' ? 'card' : 'crypto',
    asset: record.pricing.source.asset,
    network: String(s.details.network),
    amount: record.pricing.source.amountGross,
  };
}

const DECLINES: Record<string, LegFailure> = {
  card: { code: 'cardDeclined', message: 'The card issuer declined the charge.' },
  payout: { code: 'providerError', message: 'The payout provider refused the transfer.' },
};

/** The sandbox's answer for a leg: settled, or a failure chosen by the magic cents. */
const UNCONFIRMED = [
  SANDBOX_MAGIC_CENTS.unconfirmedHeld,
  SANDBOX_MAGIC_CENTS.unconfirmedNone,
  SANDBOX_MAGIC_CENTS.unconfirmedUnreachable,
] as const;

/** What the provider says when asked about a payout it did not answer: it holds it, it has none, or it cannot be asked. */
export type ProviderLookup = 'holds' | 'none' | 'unreachable';

/** An unconfirmed payout the provider has no record of fails so (spec: Unconfirmed payout sweep). */
export const PROVIDER_TIMEOUT: LegFailure = {
  code: 'providerTimeout',
  message: 'The payout provider has no record of the transfer.',
};

/** A transfer on a chain that landed and that the token contract reverted (docs/chain.md, Payouts). */
export const CHAIN_REVERTED: LegFailure = {
  code: 'chain_reverted',
  message: 'the token contract reverted the transfer',
};

export function sandboxLookup(record: TransactionCreated): ProviderLookup {
  const cents = magicCents(record);
  return cents === SANDBOX_MAGIC_CENTS.unconfirmedHeld
    ? 'holds'
    : cents === SANDBOX_MAGIC_CENTS.unconfirmedUnreachable
      ? 'unreachable'
      : 'none';
}

/** A rail's answer before the provider adds its references (a settlement's, a pickup's code). */
export type SandboxOutcome =
  Exclude<RailOutcome, { kind: 'settled' } | { kind: 'pickupReady' }> | { kind: 'settled' } | { kind: 'pickupReady' };

export function sandboxOutcome(
  record: Pick<TransactionCreated, 'pricing'> & Partial<Pick<TransactionCreated, 'precursor'>>,
  leg: NewLeg,
): { outcome: SandboxOutcome; afterSeconds: number } {
  const cents = magicCents(record);
  const after = SANDBOX_SETTLEMENT_SECONDS[leg.rail] ?? 60;
  if (leg.kind === 'refund') return { outcome: { kind: 'settled' }, afterSeconds: 0 };
  if (leg.kind === 'payout' && leg.rail === 'cash') return { outcome: { kind: 'pickupReady' }, afterSeconds: 0 };
  // A cash-in's cash is in the till when its transaction is created: the deposit is settled already.
  if (leg.kind === 'deposit' && leg.rail === 'cash') return { outcome: { kind: 'settled' }, afterSeconds: 0 };
  if (leg.kind === 'deposit' && leg.rail !== 'card') {
    // A virtual account's inbound bank transfer: refused by the bank, or returned after it arrived.
    if (cents === SANDBOX_MAGIC_CENTS.declined)
      return {
        outcome: {
          kind: 'declined',
          failure: { code: 'providerError', message: 'The bank refused the inbound transfer.' },
        },
        afterSeconds: 0,
      };
    if (cents === SANDBOX_MAGIC_CENTS.failedAfterSending) {
      return {
        outcome: {
          kind: 'failed',
          failure: { code: 'providerError', message: 'The inbound transfer was returned to the sender by the bank.' },
        },
        afterSeconds: after,
      };
    }
    return { outcome: { kind: 'settled' }, afterSeconds: after };
  }
  if (leg.kind === 'deposit') {
    if (cents === SANDBOX_MAGIC_CENTS.declined)
      return { outcome: { kind: 'declined', failure: DECLINES.card }, afterSeconds: 0 };
    if (cents === SANDBOX_MAGIC_CENTS.cardVerificationDeclined) {
      return {
        outcome: {
          kind: 'declined',
          failure: {
            code: 'cardVerificationDeclined',
            message: 'The card failed verification (CVC or address check).',
          },
        },
        afterSeconds: 0,
      };
    }
    if (cents === SANDBOX_MAGIC_CENTS.failedAfterSending) {
      return {
        outcome: {
          kind: 'failed',
          failure: {
            code: 'providerError',
            message: 'The card charge was reversed by the processor after authorisation.',
          },
        },
        afterSeconds: after,
      };
    }
    return { outcome: { kind: 'settled' }, afterSeconds: after };
  }
  if (leg.retryOf) return { outcome: { kind: 'settled' }, afterSeconds: after };
  if (cents === SANDBOX_MAGIC_CENTS.declined)
    return { outcome: { kind: 'declined', failure: DECLINES.payout }, afterSeconds: 0 };
  if ((UNCONFIRMED as readonly number[]).includes(cents))
    return { outcome: { kind: 'unconfirmed' }, afterSeconds: PAYOUT_CONFIRMATION_SECONDS };
  const refundSticks = cents === SANDBOX_MAGIC_CENTS.refundInitiatedOnly && record.precursor?.type === 'virtualAccount';
  if (
    cents === SANDBOX_MAGIC_CENTS.failedAfterSending ||
    cents === SANDBOX_MAGIC_CENTS.payoutFailedAfterSending ||
    refundSticks
  ) {
    const message =
      leg.rail === 'crypto' ? 'The transfer was reverted on chain.' : 'The receiving institution returned the payment.';
    return { outcome: { kind: 'failed', failure: { code: 'providerError', message } }, afterSeconds: after };
  }
  return { outcome: { kind: 'settled' }, afterSeconds: after };
}

/**
 * A virtual account's bank refund in the sandbox: the bank accepts it at once and settles it after its rail's
 * delay; for .99 it reports the refund only as initiated, and the service stops waiting after the payout
 * confirmation window (the refund then waits for an operator's complete-refund).
 */
export function sandboxRefundSteps(
  record: Pick<TransactionCreated, 'pricing'>,
  leg: Pick<NewLeg, 'rail'>,
): { accepted: number; settled: number } | { unconfirmed: number } {
  if (magicCents(record) === SANDBOX_MAGIC_CENTS.refundInitiatedOnly)
    return { unconfirmed: PAYOUT_CONFIRMATION_SECONDS };
  return { accepted: 0, settled: SANDBOX_SETTLEMENT_SECONDS[leg.rail] ?? 60 };
}
