// The partner shape of a transaction (spec: Transaction, current shape): the
// read model stores it and every transaction.statusChanged carries it as it
// was at that event. Only the fields of the current shape: no tracking,
// estimatedArrival, expiresAt, projectId, rail, rates, type, completedAt,
// cashPickup or legacy origin ids. A cash pickup's code travels as what it is, the
// cash rail's reference of the payout leg (`pickupCode`, as a chain's `txHash`).
import type { TransactionLeg } from '@mm/contracts';
import type { ExistingTransaction } from './transaction.decider';

export interface TransactionView {
  id: string;
  object: 'transaction';
  sourceToDestination: string;
  status: string;
  subStatus: string | null;
  customerId: string;
  precursor: { type: string; id: string };
  source: Record<string, unknown>;
  destination: Record<string, unknown>;
  pricing: Record<string, unknown>;
  legs: Array<Record<string, unknown>>;
  payoutOrigin?: { type: string; id: string; accountHolder: string; accountHolderName: string | null };
  hold?: Record<string, unknown>;
  error?: Record<string, unknown>;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

function legView(leg: TransactionLeg): Record<string, unknown> {
  return {
    id: leg.id,
    kind: leg.kind,
    rail: leg.rail,
    asset: leg.asset,
    network: leg.network,
    amount: leg.amount,
    status: leg.status,
    txHash: leg.txHash,
    imad: leg.imad,
    uetr: leg.uetr,
    endToEndId: leg.endToEndId,
    failure: leg.failure,
    initiatedAt: leg.initiatedAt,
    settledAt: leg.settledAt,
    // The cash rail's reference: the code the recipient collects a cash pickup with (null until issued).
    ...(leg.kind === 'payout' && leg.rail === 'cash' ? { pickupCode: leg.pickupCode ?? null } : {}),
    // An incoming wire (a virtual account deposit) carries the bank's instruction id (spec: Transaction legs).
    ...(leg.kind === 'deposit' && (leg.rail === 'wire' || leg.rail === 'internationalWire')
      ? { instructionId: leg.instructionId ?? null }
      : {}),
  };
}

export function transactionView(state: ExistingTransaction): TransactionView {
  const r = state.record;
  const side = (s: typeof r.source) => ({ party: s.party, type: s.type, category: s.category, details: s.details });
  const fiatPayout = r.destination.category === 'fiat';
  return {
    id: r.transactionId,
    object: 'transaction',
    sourceToDestination: r.sourceToDestination,
    status: state.status,
    subStatus: state.subStatus,
    customerId: r.customerId,
    precursor: r.precursor,
    source: side(r.source),
    destination: side(r.destination),
    pricing: r.pricing as unknown as Record<string, unknown>,
    legs: state.legs.map(legView),
    ...(fiatPayout
      ? {
          payoutOrigin: {
            type: r.precursor.type,
            id: r.precursor.id,
            accountHolder: 'customer',
            accountHolderName: r.customerName ?? null,
          },
        }
      : {}),
    ...(state.status === 'awaitingAction' && state.hold ? { hold: { ...state.hold } } : {}),
    ...(state.error && state.status === 'failed' ? { error: { ...state.error } } : {}),
    metadata: r.metadata,
    createdAt: r.at,
    updatedAt: state.updatedAt,
  };
}
