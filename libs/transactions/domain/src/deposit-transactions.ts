// The transaction a deposit address deposit makes (spec: rule 3; Deposit address; States / Transaction,
// holds). It skips the quote: `cryptoToFiatAccount`, precursor depositAddress, its source the on-chain
// sender (a registered wallet's party when the sender is one), its destination and pricing the address's
// bank payout, priced by the deposit-addresses service exactly as a quote would be. Its crypto deposit leg
// is settled when the transaction is made; what follows is the deposit's disposition.
import {
  sideExternalAccountId,
  type DepositAddressDepositReceived,
  type DepositPayoutTarget,
  type TransactionCreated,
  type TransactionHold,
  type VirtualAccountTarget,
} from '@mm/contracts';
import { needsReview, payoutLeg, refundLeg } from './rails';
import type { DepositNext, NewLeg, TransactionState } from './transaction.decider';

export const HOLD_MESSAGES: Record<TransactionHold['code'], string> = {
  senderAttribution:
    'The sender of this deposit is not registered for the customer. Register the sending wallet as an external account of the customer or one of its counterparties to release it.',
  payoutDestinationMissing:
    'The deposit address has no usable payout destination. Set an active bank account as its destination to release this deposit.',
};

/** A virtual account's deposit waiting for a destination (spec: hold `message`, a fixed sentence naming no provider). */
export const VIRTUAL_ACCOUNT_DESTINATION_MISSING =
  'The virtual account has no usable destination. Set an active destination on the virtual account to release this deposit.';

/** The hold's fixed sentence, by its code and the deposit's origin. */
export function holdMessage(code: TransactionHold['code'], origin: TransactionCreated['precursor']['type']): string {
  return code === 'payoutDestinationMissing' && origin === 'virtualAccount'
    ? VIRTUAL_ACCOUNT_DESTINATION_MISSING
    : HOLD_MESSAGES[code];
}

/** The return of a deposit made to an address that no longer takes deposits. */
export const ADDRESS_INACTIVE = {
  code: 'depositAddressInactive',
  message: 'The deposit address is frozen or closed: deposits to it are returned to the sender.',
};

export function depositTransactionRecord(
  d: DepositAddressDepositReceived,
): Omit<TransactionCreated, 'status' | 'subStatus' | 'at'> {
  const customerIds = [d.customerId, ...('customerId' in d.sender ? [d.sender.customerId] : [])];
  return {
    transactionId: d.transactionId,
    projectId: d.projectId,
    customerId: d.customerId,
    sourceToDestination: 'cryptoToFiatAccount',
    precursor: { type: 'depositAddress', id: d.depositAddressId },
    source: {
      type: 'walletExternal',
      category: 'crypto',
      details: {
        ...(d.senderExternalAccountId ? { id: d.senderExternalAccountId } : {}),
        asset: d.deposit.asset,
        network: d.deposit.network,
        address: d.deposit.senderAddress,
      },
      party: d.sender,
    },
    destination: d.target.destination,
    pricing: d.target.pricing,
    settlementType: null,
    metadata: d.metadata,
    customerIds: [...new Set(customerIds)],
    customerName: d.customerName ?? null,
    payout: d.target.payout,
    returnTo: d.returnTo,
  };
}

/** A deposit address's or virtual account's deposit: its payouts and refunds have holds of their own (ADR 0056). */
export function isFromDeposit(record: { precursor: { type: string } }): boolean {
  return record.precursor.type === 'depositAddress' || record.precursor.type === 'virtualAccount';
}

/** The crypto deposit leg: on chain, into the address, for the deposit's amount. */
export function cryptoDepositLeg(d: DepositAddressDepositReceived): NewLeg {
  return {
    id: `${d.transactionId}.1`,
    kind: 'deposit',
    rail: 'crypto',
    asset: d.deposit.asset,
    network: d.deposit.network,
    amount: d.deposit.amount,
  };
}

/** The payout once the money is in and nothing holds it: after compliance review when the amount calls for it. */
export function payoutNext(record: TransactionCreated, legId: string): DepositNext {
  if (needsReview(record)) return { kind: 'review', reason: 'amount over the compliance review threshold' };
  return { kind: 'payout', leg: payoutLeg(record, legId) };
}

/** What a new deposit's transaction does next, by the disposition the deposit-addresses service decided. */
export function depositNext(
  record: TransactionCreated,
  d: Pick<DepositAddressDepositReceived, 'disposition' | 'attributionDeadline' | 'deposit'>,
  legId: string,
): DepositNext {
  switch (d.disposition) {
    case 'awaitingSenderAttribution':
      return {
        kind: 'hold',
        hold: {
          code: 'senderAttribution',
          message: HOLD_MESSAGES.senderAttribution,
          ...(d.attributionDeadline ? { deadline: d.attributionDeadline } : {}),
          match: { address: d.deposit.senderAddress, network: d.deposit.network },
        },
      };
    case 'payoutDestinationMissing':
      return destinationMissing('depositAddress', sideExternalAccountId(record.destination));
    case 'returnToSender':
      return { kind: 'return', refundLeg: refundLeg(record, legId), failure: ADDRESS_INACTIVE };
    default:
      return payoutNext(record, legId);
  }
}

/**
 * The deposit waits for a destination. destinationId: the external account it could not be paid to, which the
 * origin compares with its destination when it hears of the hold (ADR 0056).
 */
export function destinationMissing(
  origin: TransactionCreated['precursor']['type'] = 'depositAddress',
  destinationId?: string,
): DepositNext {
  return {
    kind: 'hold',
    hold: { code: 'payoutDestinationMissing', message: holdMessage('payoutDestinationMissing', origin) },
    ...(destinationId ? { destinationId } : {}),
  };
}

/**
 * What a deposit released from its hold does: compliance review first when its amount calls for one it has
 * not passed yet (a deposit held when it arrived), else the payout to its destination as released.
 */
export function releaseNext(state: TransactionState, record: TransactionCreated, legId: string): DepositNext {
  const reviewed = state.status !== 'none' && state.reviewed;
  if (needsReview(record) && !reviewed)
    return { kind: 'review', reason: 'amount over the compliance review threshold' };
  return { kind: 'payout', leg: payoutLeg(record, legId) };
}

/** The record with a new payout target (a destination set on the address or virtual account since the deposit). */
export function withTarget(
  record: TransactionCreated,
  target: DepositPayoutTarget | VirtualAccountTarget | undefined,
): TransactionCreated {
  if (!target) return record;
  // A wallet destination of a virtual account takes no bank payout instruction.
  const { payout: _previous, ...rest } = record;
  return {
    ...rest,
    destination: target.destination,
    pricing: target.pricing,
    ...(target.payout ? { payout: target.payout } : {}),
  };
}
