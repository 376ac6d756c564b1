// A cash-in as partners read it (spec: Cash-in, the v1 shape): GET answers it,
// webhooks carry it, and the read model keeps it as of its last event. A
// pending cash-in past its code's expiresAt reads as expired, exactly as the
// expiry event will make it (updatedAt: the code's expiresAt).
import type { CashLocationAddress, PricingSide } from '@mm/contracts';
import { CASH_ASSET } from './cash-in-pricing';
import type { CashInStatus, ExistingCashIn } from './cash-in.decider';

export interface CashInAmounts {
  amountGross: string | null;
  amountNet: string | null;
  feesDeducted: Record<string, string> | null;
}

export interface CashInView {
  id: string;
  object: 'cashIn';
  type: 'fiatToCrypto';
  status: CashInStatus;
  subStatus: 'settled' | null;
  customerId: string;
  source: { asset: string; indicatedAmount: string | null } & CashInAmounts;
  destination: {
    asset: string;
    network: string;
    wallet: { id: string | null; blockchainAddress: string; externalAccount: string | null };
  } & CashInAmounts;
  cash: { locationId: string; locationReference: string };
  location: { name: string; locationProvider: string; locationAddress: CashLocationAddress };
  rates: { pair: string; exchangeRate: string; effectiveRate: string };
  fixedAmountSide: 'source';
  sponsorGas: boolean;
  sponsorGasCost: string;
  depositInstructions: { code: string; expiresAt: string; locationName: string; locationAddress: CashLocationAddress };
  transactionId: string | null;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
}

const NO_AMOUNTS: CashInAmounts = { amountGross: null, amountNet: null, feesDeducted: null };

function amounts(side: PricingSide | undefined): CashInAmounts {
  return side
    ? { amountGross: side.amountGross, amountNet: side.amountNet, feesDeducted: { ...side.feesDeducted } }
    : NO_AMOUNTS;
}

export function cashInView(state: ExistingCashIn): CashInView {
  const { record, deposit } = state;
  // The deposit's pricing once deposited; the estimate from indicatedAmount before; none without either.
  const pricing = deposit?.pricing ?? record.estimate ?? undefined;
  const rates = deposit
    ? {
        pair: deposit.pricing.pair,
        exchangeRate: deposit.pricing.exchangeRate,
        effectiveRate: deposit.pricing.effectiveRate,
      }
    : record.rates;
  const address = record.location.address;
  return {
    id: record.cashInId,
    object: 'cashIn',
    type: 'fiatToCrypto',
    status: state.status,
    subStatus: state.status === 'completed' ? 'settled' : null,
    customerId: record.customerId,
    source: { asset: CASH_ASSET, indicatedAmount: record.indicatedAmount, ...amounts(pricing?.source) },
    destination: {
      asset: record.destination.asset,
      network: record.destination.network,
      ...amounts(pricing?.destination),
      wallet: {
        id: record.destination.walletId,
        blockchainAddress: record.destination.blockchainAddress,
        externalAccount: record.destination.externalAccountId,
      },
    },
    cash: { locationId: record.location.locId, locationReference: record.location.reference },
    location: {
      name: record.location.name,
      locationProvider: record.location.provider,
      locationAddress: { ...address },
    },
    rates: { ...rates },
    fixedAmountSide: 'source',
    sponsorGas: record.sponsorGas,
    sponsorGasCost: '0.00',
    depositInstructions: {
      code: state.code,
      expiresAt: state.expiresAt,
      locationName: record.location.name,
      locationAddress: { ...address },
    },
    transactionId: deposit?.transactionId ?? null,
    metadata: { ...record.metadata },
    createdAt: record.createdAt,
    updatedAt: state.updatedAt,
    completedAt: deposit?.at ?? null,
  };
}

/** The view at a moment of project time: pending past the code's expiresAt is expired. */
export function viewAt(view: CashInView, at: string): CashInView {
  if (view.status !== 'pending' || Date.parse(at) < Date.parse(view.depositInstructions.expiresAt)) return view;
  return { ...view, status: 'expired', updatedAt: view.depositInstructions.expiresAt };
}
