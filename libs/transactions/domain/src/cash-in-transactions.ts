// The transaction a cash-in's deposit makes (spec: rule 3; States / Cash-in): `cashToCrypto`, precursor
// cashIn, skipping the quote. Its source is the cash handed in at the retail location, its destination
// the cash-in's wallet (the customer's own, or an external address), priced by the cash-in service.
import type { EventPayloads, TransactionCreated } from '@mm/contracts';

export function cashInTransactionRecord(
  d: EventPayloads['cashIn.deposited'],
): Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> {
  const customer = { relationship: 'customer', customerId: d.customerId, entityType: 'individual' } as const;
  const destination: TransactionCreated['destination'] = d.destination.walletId
    ? {
        type: 'walletOms',
        category: 'crypto',
        details: {
          id: d.destination.walletId,
          asset: d.destination.asset,
          network: d.destination.network,
          address: d.destination.blockchainAddress,
        },
        party: customer,
      }
    : {
        type: 'walletExternal',
        category: 'crypto',
        details: {
          ...(d.destination.externalAccountId ? { id: d.destination.externalAccountId } : {}),
          asset: d.destination.asset,
          network: d.destination.network,
          address: d.destination.blockchainAddress,
        },
        party: d.destination.externalAccountId ? customer : { relationship: 'externalUnregistered' },
      };
  return {
    transactionId: d.transactionId,
    projectId: d.projectId,
    customerId: d.customerId,
    sourceToDestination: 'cashToCrypto',
    precursor: { type: 'cashIn', id: d.cashInId },
    source: {
      type: 'cash',
      category: 'cash',
      details: {
        asset: d.deposit.asset,
        network: 'cash',
        locationId: d.location.locId,
        locationReference: d.location.reference,
        locationProvider: d.location.provider,
      },
      party: customer,
    },
    destination,
    pricing: d.pricing,
    settlementType: null,
    metadata: d.metadata,
    customerIds: [d.customerId],
  };
}
