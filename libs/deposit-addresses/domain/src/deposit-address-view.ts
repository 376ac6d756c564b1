// A deposit address as partners read it (spec: Deposit address, the v1 shape;
// API-CONTRACT: Deposit addresses): GET answers it, webhooks carry it, and the
// read model keeps it as of its last event. The optional fields are present
// only when set; `destination.payoutOrigin`, `sourceToDestination` and
// `depositInstructions.expiresAt` are gone from the v1 shape.
import type {
  DepositAddressInstrument,
  DepositAddressStatus,
  DepositInstructions,
  PayoutInstruction,
} from '@mm/contracts';
import type { ExistingDepositAddress } from './deposit-address.decider';

/** The fixed sentence of an address's hold (it names no provider). */
export const DESTINATION_MISSING_MESSAGE =
  'The payout destination was deleted or is no longer valid: point the address at an active bank account to resume payouts.';

export interface DepositAddressView {
  id: string;
  object: 'depositAddress';
  customerId: string;
  expectedSourceAsset: string;
  expectedSourceNetwork: string;
  destination: DepositAddressInstrument;
  payout: PayoutInstruction;
  returnDestination?: DepositAddressInstrument;
  /** The instrument types a return goes to: present when a return destination is set. */
  returnDestinationTypes?: string[];
  requiresCounterpartyWalletRegistration?: boolean;
  sponsorGas?: boolean;
  /** While the address is inactiveActionRequired: why deposits to it are held. */
  hold?: { code: 'payoutDestinationMissing'; message: string };
  status: DepositAddressStatus;
  depositInstructions: DepositInstructions | null;
  /** Who the payouts come from (spec: Transaction, payoutOrigin): the customer, through this address. */
  payoutOrigin: { type: 'depositAddress'; id: string; accountHolder: 'customer'; accountHolderName: string };
  label?: string;
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

function instrument(i: DepositAddressInstrument): DepositAddressInstrument {
  return {
    type: i.type,
    id: i.id,
    asset: i.asset,
    network: i.network,
    owner: { ...i.owner },
    details: { ...i.details },
  };
}

export function depositAddressView(state: ExistingDepositAddress): DepositAddressView {
  const { record } = state;
  return {
    id: record.depositAddressId,
    object: 'depositAddress',
    customerId: record.customerId,
    expectedSourceAsset: record.expectedSourceAsset,
    expectedSourceNetwork: record.expectedSourceNetwork,
    destination: instrument(state.destination.instrument),
    payout: { ...state.payout },
    ...(state.returnDestination
      ? { returnDestination: instrument(state.returnDestination), returnDestinationTypes: ['walletExternal'] }
      : {}),
    ...(record.requiresCounterpartyWalletRegistration !== null
      ? { requiresCounterpartyWalletRegistration: record.requiresCounterpartyWalletRegistration }
      : {}),
    ...(record.sponsorGas !== null ? { sponsorGas: record.sponsorGas } : {}),
    ...(state.status === 'inactiveActionRequired'
      ? { hold: { code: 'payoutDestinationMissing' as const, message: DESTINATION_MISSING_MESSAGE } }
      : {}),
    status: state.status,
    depositInstructions: state.depositInstructions ? { ...state.depositInstructions } : null,
    payoutOrigin: {
      type: 'depositAddress',
      id: record.depositAddressId,
      accountHolder: 'customer',
      accountHolderName: record.customerName,
    },
    ...(state.label !== null ? { label: state.label } : {}),
    metadata: { ...state.metadata },
    createdAt: record.createdAt,
    updatedAt: state.updatedAt,
  };
}
