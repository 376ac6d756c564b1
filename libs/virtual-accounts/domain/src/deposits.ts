// An inbound bank transfer reaching a virtual account (spec: Virtual account;
// Transaction; rule 3; API-CONTRACT: Virtual accounts; ADR 0032): what becomes
// of it, decided from the account as it is when the transfer arrives, and the
// record the transactions service makes its `fiatAccountToCrypto` transaction
// from. Each deposit has its own stream (`virtualAccountDeposit-<txn_id>`).
import {
  ApiError,
  price,
  requireAmount,
  type InboundRail,
  type QuoteSideRecord,
  type VirtualAccountDepositReceived,
  type VirtualAccountDisposition,
  type VirtualAccountTarget,
} from '@mm/contracts';
import type { ExistingVirtualAccount, VirtualAccountState } from './virtual-account.decider';

export const depositStreamId = (transactionId: string) => `virtualAccountDeposit-${transactionId}`;

/** The currency a deposit reaches the destination in: usdc for a wallet, US dollars for a bank account. */
export function destinationAsset(state: ExistingVirtualAccount): string {
  return state.destination.payout ? state.destination.instrument.asset : 'usdc';
}

/** An active account delivers; one the bank froze or closed, or that is being or was deleted, sends the money back. */
export function dispositionOf(state: ExistingVirtualAccount): VirtualAccountDisposition {
  return state.status === 'active' ? 'deliver' : 'returnToSender';
}

/** The destination as a transaction's side (QuoteSideRecord), as a quote's destination would name it. */
export function destinationSide(state: ExistingVirtualAccount): QuoteSideRecord {
  const { instrument, party } = state.destination;
  if (instrument.type === 'bankUs') {
    const details = instrument.details as { accountNumberLast4?: string };
    return {
      type: instrument.type,
      category: 'fiat',
      details: {
        id: instrument.id,
        asset: instrument.asset,
        network: instrument.network,
        accountHolder: instrument.owner.kind,
        ...(details.accountNumberLast4 ? { last4: details.accountNumberLast4 } : {}),
      },
      party,
    };
  }
  const address = (instrument.details as { address: string }).address;
  return {
    type: instrument.type,
    category: 'crypto',
    details: { id: instrument.id, asset: instrument.asset, network: instrument.network, address },
    party,
  };
}

/**
 * Where the deposit's money goes and at what price: source usd fixed on the source side, the destination
 * in usdc (a wallet) at `rate`, or in US dollars (a bank account).
 */
export function depositTarget(state: ExistingVirtualAccount, amount: string, rate: string): VirtualAccountTarget {
  return {
    destination: destinationSide(state),
    payout: state.destination.payout ? { ...state.destination.payout } : null,
    pricing: price({
      sourceAsset: 'usd',
      destinationAsset: destinationAsset(state),
      amount,
      fixedAmountSide: 'source',
      sponsorGas: state.record.sponsorGas === true,
      rate,
    }),
  };
}

/** The account, if it can take a transfer: VirtualAccountNotFound, or VirtualAccountNotProvisioned while pending or once failed. */
export function requireProvisioned(state: VirtualAccountState, projectId: string): ExistingVirtualAccount {
  if (state.status === 'none' || state.record.projectId !== projectId) throw new ApiError('VirtualAccountNotFound');
  if (state.status === 'pending' || state.status === 'failed' || !state.bankDetails) {
    const why =
      state.status === 'pending'
        ? 'it is pending: wait for virtualAccount.active, when bankDetails holds its account and routing numbers'
        : 'it is failed: it has no bank account that takes deposits';
    throw new ApiError(
      'VirtualAccountNotProvisioned',
      `virtual account ${state.record.virtualAccountId} cannot receive a transfer: ${why}`,
    );
  }
  return state;
}

export interface ReceiveTransfer {
  projectId: string;
  transactionId: string;
  amount: string;
  rail: InboundRail;
  senderName: string | null;
  /** The bank's reference: an ACH trace number, a wire's IMAD, an international wire's instruction id. */
  reference: string;
  /** One US dollar in the destination's currency (usdc for a wallet). */
  rate: string;
  at: string;
}

/** The transfer's arrival, or the refusal: VirtualAccountNotFound, VirtualAccountNotProvisioned, InvalidAmount. */
export function receiveTransfer(current: VirtualAccountState, command: ReceiveTransfer): VirtualAccountDepositReceived {
  const state = requireProvisioned(current, command.projectId);
  const amount = requireAmount(command.amount, 'amount', { asset: 'usd' }).toFixed();
  const { virtualAccountId, projectId, customerId } = state.record;
  const returnDestination = state.returnDestination;
  return {
    virtualAccountId,
    projectId,
    customerId,
    transactionId: command.transactionId,
    deposit: {
      asset: 'usd',
      rail: command.rail,
      amount: command.amount,
      senderName: command.senderName,
      reference: command.reference,
    },
    disposition: dispositionOf(state),
    target: depositTarget(state, amount, command.rate),
    returnTo: returnDestination
      ? { externalAccountId: returnDestination.instrument.id, rail: returnDestination.rail }
      : { externalAccountId: null, rail: command.rail },
    metadata: { ...state.metadata },
    customerName: state.record.customerName,
    at: command.at,
  };
}
