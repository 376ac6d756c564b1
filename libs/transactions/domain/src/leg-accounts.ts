// The external accounts a leg needs usable when its rail answers (issue 17; spec: External account,
// States / Transaction). A quote is accepted while its accounts are active, but one can be
// invalidated by its provider or deleted by the partner before the leg settles. The rail then
// refuses the leg (a decline: nothing was sent), so the flow takes its row for a refused leg: a
// payout's money goes back to the source wallet (`failed.returnedToSender`), a card buy's card is
// never charged (`failed.providerDeclined`), and a card buy's crypto is held for an operator
// (`processing.underReview`), exactly as when the provider itself refuses.
import { sideExternalAccountId, type ExternalAccountFailure, type ExternalAccountStatus, type LegFailure, type TransactionCreated } from '@mm/contracts';
import type { NewLeg } from './transaction.decider';

export interface LegAccount {
  side: 'source' | 'destination';
  id: string;
}

/** Where an account stands when the leg answers: as the accounts service reads it, or deleted. */
export type AccountStanding = { status: ExternalAccountStatus; failure: ExternalAccountFailure | null } | 'deleted';

export const EXTERNAL_ACCOUNT_FAILURES = { invalid: 'externalAccountInvalid', deleted: 'externalAccountDeleted' } as const;

/**
 * A payout needs its destination account; a card buy's charge needs the card and, when the crypto
 * goes to an external wallet, that wallet too (charging a card for crypto with nowhere to go would
 * only hold the money). Refunds go back where the money came from and need nothing. Only a quote's
 * transactions: other flows have rows of their own for a destination that goes away.
 */
export function legAccounts(record: TransactionCreated, leg: Pick<NewLeg, 'kind'>): LegAccount[] {
  // A deposit address's payout needs its bank account as a quote's does (its failure holds the money for review).
  if (record.precursor.type !== 'quote' && record.precursor.type !== 'depositAddress') return [];
  const named = (side: LegAccount['side']): LegAccount[] => {
    const id = sideExternalAccountId(record[side]);
    return id ? [{ side, id }] : [];
  };
  if (leg.kind === 'deposit') return record.source.type === 'card' ? [...named('source'), ...named('destination')] : [];
  if (leg.kind === 'payout') return named('destination');
  return [];
}

/** The failure of a leg whose account is no longer usable, or undefined while it is active. */
export function unusableAccountFailure(leg: Pick<NewLeg, 'kind'>, account: LegAccount, standing: AccountStanding): LegFailure | undefined {
  if (standing !== 'deleted' && standing.status === 'active') return undefined;
  const what = account.side === 'source' ? `The card ${account.id}` : `The destination external account ${account.id}`;
  const became = standing === 'deleted' ? 'was deleted' : `became ${standing.status}${standing.failure ? ` (${standing.failure.code})` : ''}`;
  const outcome = leg.kind === 'deposit' ? 'before the card was charged; nothing was charged' : 'before the payout settled; nothing was paid to it';
  return { code: standing === 'deleted' ? EXTERNAL_ACCOUNT_FAILURES.deleted : EXTERNAL_ACCOUNT_FAILURES.invalid, message: `${what} ${became} ${outcome}.` };
}
