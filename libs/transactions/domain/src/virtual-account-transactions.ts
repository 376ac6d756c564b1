// The transaction an inbound transfer to a virtual account makes (spec: rule 3; Virtual account; States /
// Transaction; Events, tie 4). It skips the quote: `fiatAccountToCrypto`, precursor virtualAccount, its
// source the virtual account the bank credited (the sender unregistered, named as the bank reported it),
// its destination and pricing the account's destination, priced by the virtual-accounts service exactly
// as a quote would be. The bank deposit leg is pending until the bank settles it; the money then passes
// through USDC to the destination (crypto out, or a bank payout). A deposit to an account that no longer
// takes deposits is returned by the bank at once. A refund goes back over a bank rail (to the account's
// return destination, else the sender) and is announced as a fiat transfer: initiated, pending while the
// bank has it, settled when done.
import type { LegFailure, LegReferences, TransactionCreated, VirtualAccountDepositReceived } from '@mm/contracts';
import type { NewLeg } from './transaction.decider';

/** The failure of a deposit the bank sent back because the account takes no deposits now. */
export const VIRTUAL_ACCOUNT_INACTIVE: LegFailure = {
  code: 'virtualAccountInactive',
  message: 'The virtual account is frozen, closed or deleted: the bank returned the transfer to the sender.',
};

export function virtualAccountTransactionRecord(
  d: VirtualAccountDepositReceived,
): Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> {
  const destinationCustomer = 'customerId' in d.target.destination.party ? [d.target.destination.party.customerId] : [];
  return {
    transactionId: d.transactionId,
    projectId: d.projectId,
    customerId: d.customerId,
    sourceToDestination: 'fiatAccountToCrypto',
    precursor: { type: 'virtualAccount', id: d.virtualAccountId },
    source: {
      type: 'virtualAccount',
      category: 'fiat',
      details: {
        id: d.virtualAccountId,
        asset: d.deposit.asset,
        network: d.deposit.rail,
        ...(d.deposit.senderName ? { senderName: d.deposit.senderName } : {}),
        reference: d.deposit.reference,
      },
      party: { relationship: 'externalUnregistered' },
    },
    destination: d.target.destination,
    pricing: d.target.pricing,
    settlementType: null,
    metadata: d.metadata,
    customerIds: [...new Set([d.customerId, ...destinationCustomer])],
    customerName: d.customerName ?? null,
    ...(d.target.payout ? { payout: d.target.payout } : {}),
    returnTo: {
      address: null,
      network: d.returnTo.rail,
      externalAccountId: d.returnTo.externalAccountId,
      kind: d.returnTo.externalAccountId ? 'returnDestination' : 'sender',
    },
  };
}

/** The bank deposit leg: into the virtual account, on the rail it came by, for the transfer's amount. */
export function bankDepositLeg(d: VirtualAccountDepositReceived): NewLeg {
  return {
    id: `${d.transactionId}.1`,
    kind: 'deposit',
    rail: d.deposit.rail,
    asset: d.deposit.asset,
    network: d.deposit.rail,
    amount: d.deposit.amount,
  };
}

export function isVirtualAccountTransaction(record: Pick<TransactionCreated, 'precursor'> | undefined): boolean {
  return record?.precursor.type === 'virtualAccount';
}

/** A virtual account's refund: usd over a bank rail, to the return destination or the sender; the whole deposit unless an operator gave less. */
export function bankRefundLeg(
  record: TransactionCreated,
  id: string,
  amount = record.pricing.source.amountGross,
): NewLeg {
  const rail = record.returnTo?.network ?? String(record.source.details.network);
  return { id, kind: 'refund', rail, asset: record.pricing.source.asset, network: rail, amount };
}

/** The references the bank gave the inbound transfer: an ACH trace as its end-to-end id, a wire's IMAD, an international wire's instruction id. */
export function inboundReferences(record: TransactionCreated, fallback: LegReferences): LegReferences {
  const reference = String(record.source.details.reference ?? '');
  if (!reference) return fallback;
  const rail = String(record.source.details.network);
  if (rail === 'wire') return { imad: reference };
  if (rail === 'internationalWire') return { instructionId: reference, uetr: fallback.uetr };
  return { endToEndId: reference };
}
