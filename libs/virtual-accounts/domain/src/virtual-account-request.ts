// What POST and PATCH /virtual-accounts ask for (spec: Virtual account;
// API-CONTRACT: Virtual accounts; ADR 0032), checked without I/O against the
// accounts the application resolved through the accounts port. A destination is
// an active external wallet (usdc) of the customer or of one of its
// counterparties, a custodial wallet of the customer, or an active bankUs
// account of theirs paid on one of its rails; a return destination an active
// bankUs account of theirs, on one of its rails.
import {
  ApiError,
  INBOUND_RAILS,
  type ExternalAccountView,
  type Party,
  type PayoutInstruction,
  type VirtualAccountDestination,
  type VirtualAccountInstrument,
  type VirtualAccountReturnDestination,
  type WalletView,
} from '@mm/contracts';

/** What a virtual account receives (API-CONTRACT): US dollars, on each of these rails. */
export const SUPPORTED_SOURCES: ReadonlyArray<{ asset: 'usd'; rail: string }> = INBOUND_RAILS.map((rail) => ({ asset: 'usd' as const, rail }));

/** What a wallet destination receives: usdc, on the wallet's network. */
export const WALLET_ASSET = 'usdc';

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
 * The payout instruction as kept: ACH's fields only on ACH rails (VirtualAccountPayoutUnsupported, the
 * payout flow's error), each in its format (InvalidRequest).
 */
export function payoutInstruction(input: PayoutInput, field = 'destination.payout'): PayoutInstruction {
  const ach = ACH_RAILS.includes(input.rail);
  for (const name of ['secCode', 'companyDiscretionaryData'] as const) {
    if (input[name] !== undefined && !ach) {
      throw new ApiError('VirtualAccountPayoutUnsupported', `${field}.${name} applies to ACH payouts only (rail ach or achSameDay), not to ${input.rail}`);
    }
  }
  if (input.secCode !== undefined && !(SEC_CODES as readonly string[]).includes(input.secCode)) {
    throw new ApiError('InvalidRequest', `${field}.secCode must be one of ${SEC_CODES.join(', ')}`);
  }
  if (input.companyDiscretionaryData !== undefined && !COMPANY_DISCRETIONARY_DATA.test(input.companyDiscretionaryData)) {
    throw new ApiError('InvalidRequest', `${field}.companyDiscretionaryData must be 1 to 20 letters, digits, spaces or . , & / ( ) ' # -`);
  }
  return {
    rail: input.rail,
    ...(input.secCode !== undefined ? { secCode: input.secCode } : {}),
    ...(input.companyDiscretionaryData !== undefined ? { companyDiscretionaryData: input.companyDiscretionaryData } : {}),
  };
}

function requireOwned(customerId: string, account: ExternalAccountView, field: string): void {
  if (account.customerId !== customerId) {
    throw new ApiError('ExternalAccountHolderMismatch', `${field} external account ${account.id} is registered to another customer, not to ${customerId} or one of its counterparties`);
  }
}

function requireActive(account: ExternalAccountView, field: string): void {
  if (account.status !== 'active') {
    const why = account.failure ? ` (${account.failure.code})` : '';
    throw new ApiError('ExternalAccountNotActive', `${field} external account ${account.id} is ${account.status}${why}; name an active account`);
  }
}

function requireType(account: ExternalAccountView, type: string, field: string, what: string): void {
  if (account.type !== type) {
    throw new ApiError('external_account_rail_mismatch', `${field} external account ${account.id} is a ${account.type}: ${what}`);
  }
}

/** The customer, or the counterparty that holds the account. */
function ownerOf(account: ExternalAccountView): VirtualAccountInstrument['owner'] {
  return account.counterpartyId
    ? { kind: 'counterparty', id: account.counterpartyId, name: account.counterpartyName ?? '' }
    : { kind: 'customer', id: account.customerId, name: account.customerName };
}

/** Who receives what is paid to the account (spec: Party). */
export function accountParty(account: ExternalAccountView): Party {
  if (account.counterpartyId) {
    return { relationship: 'externalRegistered', counterpartyId: account.counterpartyId, entityType: account.counterpartyEntityType ?? 'individual', name: account.counterpartyName };
  }
  return { relationship: 'customer', customerId: account.customerId, entityType: 'individual' };
}

/** An active walletExternal of the customer or a counterparty, holding usdc. */
export function walletExternalDestination(customerId: string, account: ExternalAccountView, field = 'destination'): VirtualAccountDestination {
  requireType(account, 'walletExternal', field, 'a walletExternal destination names an external wallet');
  requireOwned(customerId, account, field);
  requireActive(account, field);
  const details = account.details as { address: string; network: string; asset: string };
  if (details.asset !== WALLET_ASSET) {
    throw new ApiError('AssetNetworkMismatch', `${field} external wallet ${account.id} holds ${details.asset}; a virtual account delivers ${WALLET_ASSET}`);
  }
  return {
    instrument: { type: 'walletExternal', id: account.id, asset: details.asset, network: details.network, owner: ownerOf(account), details: { ...account.details } },
    party: accountParty(account),
    payout: null,
    supportedDestinations: [],
  };
}

/** A custodial wallet of the customer, holding usdc. */
export function walletOmsDestination(customer: { id: string; name: string }, wallet: WalletView, field = 'destination'): VirtualAccountDestination {
  if (wallet.customerId !== customer.id) {
    throw new ApiError('WalletNotOwned', `${field}.walletId: wallet ${wallet.id} is not one of customer ${customer.id}'s wallets`);
  }
  if (wallet.asset !== WALLET_ASSET) {
    throw new ApiError('AssetNetworkMismatch', `${field}.walletId: wallet ${wallet.id} holds ${wallet.asset}; a virtual account delivers ${WALLET_ASSET}`);
  }
  return {
    instrument: { type: 'walletOms', id: wallet.id, asset: wallet.asset, network: wallet.network, owner: { kind: 'customer', id: customer.id, name: customer.name }, details: { address: wallet.address } },
    party: { relationship: 'customer', customerId: customer.id, entityType: 'individual' },
    payout: null,
    supportedDestinations: [],
  };
}

/** The rail among the account's rails, or VirtualAccountPayoutUnsupported naming the ones it takes. */
function railOf(account: { id: string; supportedDestinations: ReadonlyArray<{ asset: string; network: string }> }, rail: string, field: string): { asset: string; network: string } {
  const supported = account.supportedDestinations.find((d) => d.network === rail);
  if (!supported) {
    const rails = account.supportedDestinations.map((d) => d.network).join(', ');
    throw new ApiError('VirtualAccountPayoutUnsupported', `${field}: bank account ${account.id} does not take ${rail} payouts; it takes ${rails}`);
  }
  return supported;
}

/** An active bankUs account of the customer or a counterparty, paid on `payout`'s rail. */
export function bankDestination(customerId: string, account: ExternalAccountView, payout: PayoutInstruction, field = 'destination'): VirtualAccountDestination {
  requireType(account, 'bankUs', field, 'a bankUs destination names a US bank account');
  requireOwned(customerId, account, field);
  requireActive(account, field);
  const destination: VirtualAccountDestination = {
    instrument: { type: 'bankUs', id: account.id, asset: '', network: '', owner: ownerOf(account), details: { ...account.details } },
    party: accountParty(account),
    payout,
    supportedDestinations: account.supportedDestinations.map((d) => ({ asset: d.asset, network: d.network })),
  };
  return paidOn(destination, payout, `${field}.payout.rail`);
}

/** A bank destination paid on the payout's rail (VirtualAccountPayoutUnsupported when the account does not take it). */
export function paidOn(destination: VirtualAccountDestination, payout: PayoutInstruction, field = 'destination.payout.rail'): VirtualAccountDestination {
  const rail = railOf({ id: destination.instrument.id, supportedDestinations: destination.supportedDestinations }, payout.rail, field);
  return { ...destination, payout, instrument: { ...destination.instrument, asset: rail.asset, network: rail.network } };
}

/** Where refunds go: an active bankUs account of the customer or a counterparty, on a rail it takes. */
export function returnBank(customerId: string, account: ExternalAccountView, rail: string, field = 'returnDestination'): VirtualAccountReturnDestination {
  requireType(account, 'bankUs', field, 'refunds of US dollars go to a bankUs account');
  requireOwned(customerId, account, field);
  requireActive(account, field);
  const supported = railOf(account, rail, 'returnPayout.rail');
  return {
    instrument: { type: 'bankUs', id: account.id, asset: supported.asset, network: supported.network, owner: ownerOf(account), details: { ...account.details } },
    rail,
    supportedDestinations: account.supportedDestinations.map((d) => ({ asset: d.asset, network: d.network })),
  };
}

/** The return destination on another of its rails. */
export function returnOn(returnDestination: VirtualAccountReturnDestination, rail: string): VirtualAccountReturnDestination {
  const supported = railOf({ id: returnDestination.instrument.id, supportedDestinations: returnDestination.supportedDestinations }, rail, 'returnPayout.rail');
  return { ...returnDestination, rail, instrument: { ...returnDestination.instrument, asset: supported.asset, network: supported.network } };
}
