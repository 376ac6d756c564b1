// A deposit reaching an address (spec: Deposit address; Transaction, hold;
// States / Transaction; API-CONTRACT: Deposit addresses; ADR 0030): what
// becomes of it, decided when it arrives from the address as it is then, and
// the record the transactions service makes its transaction from. Each deposit
// has its own stream (`depositAddressDeposit-<txn_id>`): its arrival, then,
// when it was held for its sender, the sender's attribution.
import {
  ApiError,
  price,
  requireAmount,
  type DepositAddressDepositReceived,
  type DepositAddressSenderAttributed,
  type DepositDisposition,
  type DepositInstructions,
  type DepositPayoutTarget,
  type ExternalAccountView,
  type Party,
} from '@mm/contracts';
import { accountParty } from './deposit-address-request';
import {
  requireDepositAddress,
  type DepositAddressState,
  type ExistingDepositAddress,
} from './deposit-address.decider';

export const depositStreamId = (transactionId: string) => `depositAddressDeposit-${transactionId}`;

/**
 * What becomes of a deposit, in this order: an address the custodian locked or closed sends it back; an
 * address that requires registered senders holds a deposit from an unregistered one for its attribution
 * (before anything else, so that a destination restored later never pays out an unattributed deposit);
 * an address without a usable destination holds it for one; any other is paid out.
 */
export function dispositionOf(state: ExistingDepositAddress, senderRegistered: boolean): DepositDisposition {
  if (state.status === 'frozen' || state.status === 'closed') return 'returnToSender';
  if (state.record.requiresCounterpartyWalletRegistration === true && !senderRegistered)
    return 'awaitingSenderAttribution';
  if (state.destinationLost) return 'payoutDestinationMissing';
  return 'payout';
}

/**
 * The address's destination now, and the deposit priced to it as a quote would price it: usdc fixed on the
 * source side, the destination in the currency its rail pays, at `rate`; InexactConversion when the amount
 * would need fractions of that currency's smallest unit.
 */
export function payoutTarget(state: ExistingDepositAddress, amount: string, rate: string): DepositPayoutTarget {
  const { instrument, party } = state.destination;
  const details = instrument.details as { accountNumberLast4?: string; ibanLast4?: string };
  const last4 = details.accountNumberLast4 ?? details.ibanLast4;
  return {
    destination: {
      type: instrument.type,
      category: 'fiat',
      details: {
        id: instrument.id,
        asset: instrument.asset,
        network: instrument.network,
        accountHolder: instrument.owner.kind,
        ...(last4 ? { last4 } : {}),
      },
      party,
    },
    payout: { ...state.payout },
    pricing: price({
      sourceAsset: state.record.expectedSourceAsset,
      destinationAsset: instrument.asset,
      amount,
      fixedAmountSide: 'source',
      sponsorGas: state.record.sponsorGas ?? true,
      rate,
    }),
  };
}

export interface ReceiveDeposit {
  projectId: string;
  transactionId: string;
  amount: string;
  senderAddress: string;
  txHash: string;
  /** The active external wallet registered for the customer or a counterparty at the sender's address, if any. */
  registeredSender: ExternalAccountView | null;
  /** The project's attribution timeout; needed only when the deposit is held for attribution. */
  attributionTimeoutHours: number | null;
  /** One usdc in the destination's currency. */
  rate: string;
  at: string;
}

/** The address, if it can receive a deposit: DepositAddressNotFound, or DepositAddressNotProvisioned while pending or once failed. */
export function requireProvisioned(
  state: DepositAddressState,
  projectId: string,
): ExistingDepositAddress & { depositInstructions: DepositInstructions } {
  const address = requireDepositAddress(state, projectId);
  const { depositInstructions } = address;
  if (address.status === 'pending' || address.status === 'failed' || !depositInstructions) {
    const why =
      address.status === 'failed'
        ? 'its provisioning failed: it has no on-chain address and never takes deposits'
        : 'it is pending: wait for depositAddress.active, when depositInstructions holds its on-chain address';
    throw new ApiError(
      'DepositAddressNotProvisioned',
      `deposit address ${address.record.depositAddressId} cannot receive a deposit: ${why}`,
    );
  }
  return { ...address, depositInstructions };
}

/** The deposit's arrival, or the refusal: DepositAddressNotFound, DepositAddressNotProvisioned, InvalidAmount, InexactConversion. */
export function receiveDeposit(current: DepositAddressState, command: ReceiveDeposit): DepositAddressDepositReceived {
  const state = requireProvisioned(current, command.projectId);
  const {
    depositAddressId,
    projectId,
    customerId,
    expectedSourceAsset: asset,
    expectedSourceNetwork: network,
  } = state.record;
  const amount = requireAmount(command.amount, 'amount', { asset }).toFixed();
  const sender = command.registeredSender;
  const disposition = dispositionOf(state, sender !== null);
  let attributionDeadline: string | null = null;
  if (disposition === 'awaitingSenderAttribution') {
    if (command.attributionTimeoutHours === null)
      throw new Error("a deposit held for attribution needs the project's attribution timeout");
    attributionDeadline = new Date(Date.parse(command.at) + command.attributionTimeoutHours * 3_600_000).toISOString();
  }
  const returnDestination = state.returnDestination;
  return {
    depositAddressId,
    projectId,
    customerId,
    transactionId: command.transactionId,
    deposit: {
      asset,
      network,
      amount: command.amount,
      address: state.depositInstructions.address,
      senderAddress: command.senderAddress,
      txHash: command.txHash,
    },
    sender: sender ? accountParty(sender) : ({ relationship: 'externalUnregistered' } satisfies Party),
    senderExternalAccountId: sender?.id ?? null,
    disposition,
    target: payoutTarget(state, amount, command.rate),
    returnTo: returnDestination
      ? {
          address: (returnDestination.details as { address: string }).address,
          network: returnDestination.network,
          externalAccountId: returnDestination.id,
          kind: 'returnDestination',
        }
      : { address: command.senderAddress, network, externalAccountId: sender?.id ?? null, kind: 'sender' },
    attributionDeadline,
    metadata: { ...state.metadata },
    customerName: state.record.customerName,
    at: command.at,
  };
}

/**
 * A held deposit's sender was registered (the external wallet `account`): its hold is cleared and it pays
 * out to the address's destination as it is now, or waits on for one while the destination is lost.
 */
export function attributeSender(
  state: ExistingDepositAddress,
  deposit: { transactionId: string; amount: string },
  account: ExternalAccountView,
  rate: string,
  at: string,
): DepositAddressSenderAttributed {
  return {
    depositAddressId: state.record.depositAddressId,
    projectId: state.record.projectId,
    transactionId: deposit.transactionId,
    externalAccountId: account.id,
    sender: accountParty(account),
    target: payoutTarget(state, deposit.amount, rate),
    destinationMissing: state.destinationLost,
    at,
  };
}
