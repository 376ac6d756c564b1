// The partner events of a virtual account deposit's legs (spec: Events / Catalog, virtual account legs;
// ties 4 and 5). Each is published with the transaction as it is after the leg write that caused it, in the
// same database transaction, before the transaction.statusChanged that write may also cause: the bank
// deposit (pending, settled, failed when refused, returned when the bank sent it back), the delivery
// (a cryptoTransfer to a wallet, a fiatTransfer to a bank account: initiated and pending, settled,
// failed), and a refund, announced as a fiatTransfer: initiated, pending once the bank has it, settled.
import type { TransactionEvent, TransactionState } from './transaction.decider';

const DEPOSIT = 'virtualAccount.deposit';
const CRYPTO = 'virtualAccount.cryptoTransfer';
const FIAT = 'virtualAccount.fiatTransfer';

/** The virtualAccount.* leg events one transaction event announces; none outside the virtual account flow. */
export function virtualAccountLegEvents(
  before: TransactionState,
  event: TransactionEvent,
  after: TransactionState,
): string[] {
  if (after.status === 'none' || after.record.precursor.type !== 'virtualAccount') return [];
  const legOf = (id: string) =>
    after.legs.find((l) => l.id === id) ??
    (before.status === 'none' ? undefined : before.legs.find((l) => l.id === id));
  const family = (rail: string) => (rail === 'crypto' ? CRYPTO : FIAT);
  switch (event.type) {
    case 'transaction.legInitiated':
    case 'transaction.payoutRetried': {
      const leg = event.data.leg;
      if (leg.kind === 'deposit') return [`${DEPOSIT}.pending`];
      return [`${family(leg.rail)}.initiated`, `${family(leg.rail)}.pending`];
    }
    case 'transaction.legSettled': {
      const leg = legOf(event.data.legId);
      if (!leg) return [];
      return [leg.kind === 'deposit' ? `${DEPOSIT}.settled` : `${family(leg.rail)}.settled`];
    }
    case 'transaction.legFailed': {
      const leg = legOf(event.data.legId);
      if (!leg) return [];
      if (leg.kind === 'deposit') return [`${DEPOSIT}.${event.data.afterSending ? 'returned' : 'failed'}`];
      return [`${family(leg.rail)}.failed`];
    }
    case 'transaction.refundInitiated':
      return [`${FIAT}.initiated`];
    case 'transaction.refundAccepted':
      return [`${FIAT}.pending`];
    case 'transaction.refunded':
      return [`${FIAT}.settled`];
    case 'transaction.refundRefused':
      // The return destination is gone: the refund never started (ADR 0056).
      return [`${FIAT}.failed`];
    default:
      return [];
  }
}
