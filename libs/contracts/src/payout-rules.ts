// The rules deposit addresses and virtual accounts share for the accounts they pay (spec: Deposit address,
// Virtual account; `payout {rail, secCode?, companyDiscretionaryData?}`): an ACH payout's optional fields,
// an external account of the customer (or one of its counterparties) that is active, and who holds it.
import { ApiError, type ErrorName } from './errors';
import type { PayoutInstruction } from './events';
import { isId } from '@mm/platform/ids';
import type { AccountsPort, ExternalAccountView, Party } from './ports';

/** The rails that carry ACH's optional fields. */
export const ACH_RAILS = ['ach', 'achSameDay'];

/** NACHA standard entry class codes a payout (a credit) may carry. */
export const SEC_CODES = ['PPD', 'CCD', 'CTX', 'WEB', 'TEL'] as const;

/** NACHA's company discretionary data: at most 20 characters, alphanumeric and the usual punctuation. */
const COMPANY_DISCRETIONARY_DATA = /^[A-Za-z0-9 .,&/()'#-]{1,20}$/;

export interface PayoutInput {
  rail: string;
  secCode?: string;
  companyDiscretionaryData?: string;
}

/**
 * The payout instruction as kept: ACH's fields only on ACH rails (refused with `notAch`, the resource's own
 * error for a payout it cannot make), each in its format (InvalidRequest).
 */
export function payoutInstruction(input: PayoutInput, field: string, notAch: ErrorName): PayoutInstruction {
  const ach = ACH_RAILS.includes(input.rail);
  for (const name of ['secCode', 'companyDiscretionaryData'] as const) {
    if (input[name] !== undefined && !ach) {
      throw new ApiError(
        notAch,
        `${field}.${name} applies to ACH payouts only (rail ach or achSameDay), not to ${input.rail}`,
      );
    }
  }
  if (input.secCode !== undefined && !(SEC_CODES as readonly string[]).includes(input.secCode)) {
    throw new ApiError('InvalidRequest', `${field}.secCode must be one of ${SEC_CODES.join(', ')}`);
  }
  if (
    input.companyDiscretionaryData !== undefined &&
    !COMPANY_DISCRETIONARY_DATA.test(input.companyDiscretionaryData)
  ) {
    throw new ApiError(
      'InvalidRequest',
      `${field}.companyDiscretionaryData must be 1 to 20 letters, digits, spaces or . , & / ( ) ' # -`,
    );
  }
  return {
    rail: input.rail,
    ...(input.secCode !== undefined ? { secCode: input.secCode } : {}),
    ...(input.companyDiscretionaryData !== undefined
      ? { companyDiscretionaryData: input.companyDiscretionaryData }
      : {}),
  };
}

/** ExternalAccountHolderMismatch unless the account is the customer's or one of its counterparties'. */
export function requireAccountOwned(customerId: string, account: ExternalAccountView, field: string): void {
  if (account.customerId !== customerId) {
    throw new ApiError(
      'ExternalAccountHolderMismatch',
      `${field} external account ${account.id} is registered to another customer, not to ${customerId} or one of its counterparties`,
    );
  }
}

/** ExternalAccountNotActive unless the account is active (naming its failure, if any). */
export function requireAccountActive(account: ExternalAccountView, field: string): void {
  if (account.status !== 'active') {
    const why = account.failure ? ` (${account.failure.code})` : '';
    throw new ApiError(
      'ExternalAccountNotActive',
      `${field} external account ${account.id} is ${account.status}${why}; name an active account`,
    );
  }
}

/** The customer, or the counterparty that holds the account: an instrument's `owner`. */
export function accountOwner(account: ExternalAccountView): {
  kind: 'customer' | 'counterparty';
  id: string;
  name: string;
} {
  return account.counterpartyId
    ? { kind: 'counterparty', id: account.counterpartyId, name: account.counterpartyName ?? '' }
    : { kind: 'customer', id: account.customerId, name: account.customerName };
}

/** Who receives what is paid to the account (spec: Party). */
export function accountParty(account: ExternalAccountView): Party {
  if (account.counterpartyId) {
    return {
      relationship: 'externalRegistered',
      counterpartyId: account.counterpartyId,
      entityType: account.counterpartyEntityType ?? 'individual',
      name: account.counterpartyName,
    };
  }
  return { relationship: 'customer', customerId: account.customerId, entityType: 'individual' };
}

/**
 * The external account a request names in `<field>.externalAccountId`, read through the accounts port:
 * InvalidExternalAccountID for a malformed id, ExternalAccountNotFound (naming the field) for one this
 * project does not have or has deleted.
 */
export async function namedExternalAccount(
  accounts: AccountsPort,
  projectId: string,
  externalAccountId: string,
  field: string,
): Promise<ExternalAccountView> {
  if (!isId('externalAccount', externalAccountId))
    throw new ApiError(
      'InvalidExternalAccountID',
      `${field}.externalAccountId: "${externalAccountId.slice(0, 64)}" is not an external account id (ext_…)`,
    );
  try {
    return await accounts.externalAccount(projectId, externalAccountId);
  } catch (error) {
    if (error instanceof ApiError && error.errorName === 'ExternalAccountNotFound') {
      throw new ApiError(
        'ExternalAccountNotFound',
        `${field}.externalAccountId: no external account ${externalAccountId} in this project (or it was deleted)`,
      );
    }
    throw error;
  }
}
