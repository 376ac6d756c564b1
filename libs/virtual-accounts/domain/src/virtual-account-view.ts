// A virtual account as partners read it (spec: Virtual account, the v1 shape;
// API-CONTRACT: Virtual accounts): GET answers it, webhooks carry it, and the
// read model keeps it as of its last event. `source`, `sourceToDestination`,
// `payoutOrigin` and `finalBalance` are gone from the v1 shape; the optional
// fields are present only when set, `sponsorGas` only when true, and empty bank
// fields are left out.
import type {
  PayoutInstruction,
  VirtualAccountBankDetails,
  VirtualAccountInstrument,
  VirtualAccountStatus,
} from '@mm/contracts';
import { SUPPORTED_SOURCES } from './virtual-account-request';
import type { ExistingVirtualAccount } from './virtual-account.decider';

export type VirtualAccountDestinationView = VirtualAccountInstrument & { payout?: PayoutInstruction };

export interface VirtualAccountView {
  id: string;
  object: 'virtualAccount';
  customerId: string;
  destination: VirtualAccountDestinationView;
  returnDestination?: VirtualAccountInstrument;
  returnPayout?: { rail: string };
  accountHolder: 'customer';
  type: 'bankUs';
  status: VirtualAccountStatus;
  bankDetails: Partial<VirtualAccountBankDetails> | null;
  supportedSources: Array<{ asset: 'usd'; rail: string }>;
  deletionRequestedAt?: string;
  label?: string;
  sponsorGas?: true;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

function instrument(i: VirtualAccountInstrument): VirtualAccountInstrument {
  return {
    type: i.type,
    id: i.id,
    asset: i.asset,
    network: i.network,
    owner: { ...i.owner },
    details: { ...i.details },
  };
}

/** The bank's details without the empty ones (the v1 shape omits empty bank fields). */
function bankDetails(details: VirtualAccountBankDetails): Partial<VirtualAccountBankDetails> {
  return Object.fromEntries(
    Object.entries(details).filter(([, v]) => typeof v === 'string' && v.trim() !== ''),
  ) as Partial<VirtualAccountBankDetails>;
}

export function virtualAccountView(state: ExistingVirtualAccount): VirtualAccountView {
  const { record } = state;
  const payout = state.destination.payout;
  return {
    id: record.virtualAccountId,
    object: 'virtualAccount',
    customerId: record.customerId,
    destination: { ...instrument(state.destination.instrument), ...(payout ? { payout: { ...payout } } : {}) },
    ...(state.returnDestination
      ? {
          returnDestination: instrument(state.returnDestination.instrument),
          returnPayout: { rail: state.returnDestination.rail },
        }
      : {}),
    accountHolder: 'customer',
    type: 'bankUs',
    status: state.status,
    bankDetails: state.bankDetails ? bankDetails(state.bankDetails) : null,
    supportedSources: SUPPORTED_SOURCES.map((s) => ({ ...s })),
    ...(state.deletionRequestedAt !== null ? { deletionRequestedAt: state.deletionRequestedAt } : {}),
    ...(state.label !== null ? { label: state.label } : {}),
    ...(record.sponsorGas === true ? { sponsorGas: true as const } : {}),
    metadata: { ...state.metadata },
    createdAt: record.createdAt,
    updatedAt: state.updatedAt,
  };
}
