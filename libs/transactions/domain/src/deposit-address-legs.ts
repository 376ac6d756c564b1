// The partner events of a deposit address deposit's legs (spec: Events / Catalog, deposit address legs;
// tie 5). Each is published with the transaction as it is after the leg write that caused it, in the
// same database transaction, beside the transaction.statusChanged that write may also cause: the crypto
// deposit (pending, settled; needs_attribution when held for its sender), the bank payout by the
// family of its rail (initiated and pending, settled, failed when refused, returned when it came back),
// and the crypto's return on chain (initiated and pending, settled; failed when it could not start).
import { DEPOSIT_ADDRESS_PAYOUT_FAMILIES } from '@mm/contracts';
import type { TransactionEvent, TransactionState } from './transaction.decider';

const CRYPTO_DEPOSIT = 'deposit_address.crypto_deposit';
const CRYPTO_PAYOUT = 'deposit_address.crypto_payout';

/** The deposit_address.* events one transaction event announces; none outside the deposit address flow. */
export function depositAddressLegEvents(
  before: TransactionState,
  event: TransactionEvent,
  after: TransactionState,
): string[] {
  if (after.status === 'none' || after.record.precursor.type !== 'depositAddress') return [];
  const legOf = (id: string) =>
    after.legs.find((l) => l.id === id) ??
    (before.status === 'none' ? undefined : before.legs.find((l) => l.id === id));
  const family = (rail: string) => DEPOSIT_ADDRESS_PAYOUT_FAMILIES[rail] ?? DEPOSIT_ADDRESS_PAYOUT_FAMILIES.ach;
  switch (event.type) {
    case 'transaction.legInitiated':
    case 'transaction.payoutRetried': {
      const leg = event.data.leg;
      if (leg.kind === 'deposit') return [`${CRYPTO_DEPOSIT}.pending`];
      return [`${family(leg.rail)}.initiated`, `${family(leg.rail)}.pending`];
    }
    case 'transaction.legSettled': {
      const leg = legOf(event.data.legId);
      if (!leg) return [];
      return [leg.kind === 'deposit' ? `${CRYPTO_DEPOSIT}.settled` : `${family(leg.rail)}.settled`];
    }
    case 'transaction.legFailed': {
      const leg = legOf(event.data.legId);
      if (!leg || leg.kind !== 'payout') return [];
      return [`${family(leg.rail)}.${event.data.afterSending ? 'returned' : 'failed'}`];
    }
    case 'transaction.held':
      return event.data.hold.code === 'senderAttribution' ? [`${CRYPTO_DEPOSIT}.needs_attribution`] : [];
    case 'transaction.refundInitiated':
      return [`${CRYPTO_PAYOUT}.initiated`, `${CRYPTO_PAYOUT}.pending`];
    case 'transaction.refunded':
      return [`${CRYPTO_PAYOUT}.settled`];
    case 'transaction.refundRefused':
      // The return wallet is gone: the return never started (ADR 0056).
      return [`${CRYPTO_PAYOUT}.failed`];
    default:
      return [];
  }
}
