// The external accounts a leg needs usable (issue 17, issue 42; spec: External account, States /
// Transaction). A quote is accepted while its accounts are active, and a deposit's transaction is made
// for its origin's destination, but an account can be invalidated by its provider or deleted by the
// partner before the leg that pays it. Nothing is ever paid to such an account:
// - a quote's leg is refused when its rail answers (a decline: nothing was sent), and the flow takes its
//   row for a refused leg: a payout's money goes back to the source wallet (`failed.returnedToSender`),
//   a card buy's card is never charged (`failed.providerDeclined`), and a card buy's crypto is held for
//   an operator (`processing.underReview`), exactly as when the provider itself refuses;
// - a deposit's payout (deposit address, virtual account) is checked when it would start and again when
//   its rail answers; either way the deposit waits for a new destination
//   (`awaitingAction.payoutDestinationMissing`: spec, Deposit address: "a deposit ... whose destination
//   external account was deleted leaves the transaction in awaitingAction");
// - a deposit's refund to its origin's return destination is checked when it would start: refused, nothing
//   is sent and the money is held for an operator (`processing.underReview`). A refund to the sender goes
//   back where the money came from and needs no account.
import {
  sideExternalAccountId,
  type ExternalAccountFailure,
  type ExternalAccountStatus,
  type LegFailure,
  type TransactionCreated,
} from '@mm/contracts';
import type { NewLeg } from './transaction.decider';

export interface LegAccount {
  side: 'source' | 'destination' | 'returnDestination';
  id: string;
}

/** Where an account stands when the leg answers: as the accounts service reads it, or deleted. */
export type AccountStanding = { status: ExternalAccountStatus; failure: ExternalAccountFailure | null } | 'deleted';

export const EXTERNAL_ACCOUNT_FAILURES = {
  invalid: 'externalAccountInvalid',
  deleted: 'externalAccountDeleted',
} as const;

/** Whether a leg failed because an account it needed was invalidated or deleted (nothing was sent). */
export function isUnusableAccountFailure(failure: Pick<LegFailure, 'code'> | null | undefined): boolean {
  return failure?.code === EXTERNAL_ACCOUNT_FAILURES.invalid || failure?.code === EXTERNAL_ACCOUNT_FAILURES.deleted;
}

/**
 * A payout needs its destination account; a card buy's charge needs the card and, when the crypto goes to
 * an external wallet, that wallet too (charging a card for crypto with nowhere to go would only hold the
 * money). A quote's refund goes back to the wallet or card the money came from and needs nothing; a
 * deposit's refund needs its origin's return destination, when it goes to one. A cash-in's transaction
 * checks nothing here: its external wallet is checked when the cash-in is created.
 */
export function legAccounts(
  record: Pick<TransactionCreated, 'precursor' | 'source' | 'destination' | 'returnTo'>,
  leg: Pick<NewLeg, 'kind'>,
): LegAccount[] {
  const named = (side: 'source' | 'destination'): LegAccount[] => {
    const id = sideExternalAccountId(record[side]);
    return id ? [{ side, id }] : [];
  };
  switch (record.precursor.type) {
    case 'quote':
      if (leg.kind === 'deposit')
        return record.source.type === 'card' ? [...named('source'), ...named('destination')] : [];
      return leg.kind === 'payout' ? named('destination') : [];
    case 'depositAddress':
    case 'virtualAccount': {
      if (leg.kind === 'payout') return named('destination');
      const id = leg.kind === 'refund' ? returnDestinationId(record) : undefined;
      return id ? [{ side: 'returnDestination', id }] : [];
    }
    default:
      return [];
  }
}

/**
 * The return destination a deposit's refund goes to, when it goes to one the partner set on the deposit
 * address or virtual account; undefined when it goes back to the sender.
 */
export function returnDestinationId(
  record: Pick<TransactionCreated, 'precursor' | 'source' | 'returnTo'>,
): string | undefined {
  const to = record.returnTo;
  if (!to?.externalAccountId) return undefined;
  if (to.kind) return to.kind === 'returnDestination' ? to.externalAccountId : undefined;
  // Recorded before a return said where it goes: a deposit address's return to a registered sender names the
  // sender's own wallet (a virtual account's names an account only for its return destination).
  if (record.precursor.type === 'depositAddress' && to.externalAccountId === record.source.details.id) return undefined;
  return to.externalAccountId;
}

/**
 * The record with its refunds sent back to the sender (an operator's choice when the return destination is
 * gone): a virtual account's over the bank rail the transfer came by, a deposit address's to the sending address.
 */
export function sentBackToSender(record: TransactionCreated): TransactionCreated {
  const details = record.source.details as { id?: unknown; address?: unknown; network?: unknown };
  const network = String(details.network);
  if (record.precursor.type === 'virtualAccount')
    return { ...record, returnTo: { address: null, network, externalAccountId: null, kind: 'sender' } };
  const address = typeof details.address === 'string' ? details.address : null;
  return {
    ...record,
    returnTo: {
      address,
      network,
      externalAccountId: typeof details.id === 'string' ? details.id : null,
      kind: 'sender',
    },
  };
}

/**
 * The failure of a leg whose account is no longer usable, or undefined while it is active. `when`: the leg
 * is about to start (the payout or refund is not sent), or its rail answers (the payout is not settled).
 */
export function unusableAccountFailure(
  leg: Pick<NewLeg, 'kind'>,
  account: LegAccount,
  standing: AccountStanding,
  when: 'start' | 'answer' = 'answer',
): LegFailure | undefined {
  if (standing !== 'deleted' && standing.status === 'active') return undefined;
  const what =
    account.side === 'source'
      ? `The card ${account.id}`
      : account.side === 'returnDestination'
        ? `The return destination external account ${account.id}`
        : `The destination external account ${account.id}`;
  const became =
    standing === 'deleted'
      ? 'was deleted'
      : `became ${standing.status}${standing.failure ? ` (${standing.failure.code})` : ''}`;
  const outcome =
    leg.kind === 'deposit'
      ? 'before the card was charged; nothing was charged'
      : leg.kind === 'refund'
        ? 'before the refund started; nothing was sent to it'
        : when === 'start'
          ? 'before the payout started; nothing was paid to it'
          : 'before the payout settled; nothing was paid to it';
  return {
    code: standing === 'deleted' ? EXTERNAL_ACCOUNT_FAILURES.deleted : EXTERNAL_ACCOUNT_FAILURES.invalid,
    message: `${what} ${became} ${outcome}.`,
  };
}
