// What POST and PATCH /deposit-addresses ask for (spec: Deposit address;
// API-CONTRACT: Deposit addresses; ADR 0030), checked without I/O: the source
// the address expects, the payout instruction, and the external accounts the
// application resolved through the accounts port. A destination is an active
// bank account of the customer or of one of its counterparties, paid on a rail
// it takes; a return destination an active external wallet of theirs on the
// asset and network the address expects.
import {
  ApiError,
  fiatEndorsement,
  WALLET_NETWORKS,
  type DepositAddressDestination,
  type DepositAddressInstrument,
  type EndorsementName,
  type ExternalAccountView,
  type Party,
  type PayoutInstruction,
} from '@mm/contracts';

/** What an address may expect to receive: the assets and networks custodial wallets hold (usdc on meridianchain and ethereum). */
export const DEPOSIT_ADDRESS_SOURCES = WALLET_NETWORKS;

/** Bank accounts only: a deposit address pays out to a bank (spec: Deposit address, destination). */
export const DESTINATION_TYPES = ['bankUs', 'bankIban', 'bankCanada'] as const;

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

/** Refuses (UnsupportedAssetNetwork) a source the service does not take on deposit addresses. */
export function checkExpectedSource(asset: string, network: string): void {
  if (Object.hasOwn(DEPOSIT_ADDRESS_SOURCES, asset) && DEPOSIT_ADDRESS_SOURCES[asset].includes(network)) return;
  const offered = Object.entries(DEPOSIT_ADDRESS_SOURCES).flatMap(([a, networks]) => networks.map((n) => `${a} on ${n}`));
  throw new ApiError('UnsupportedAssetNetwork', `a deposit address receives ${offered.join(' or ')}, not ${asset} on ${network}`);
}

/** The payout instruction as kept: the ACH fields only on ACH rails, in their formats. */
export function payoutInstruction(input: PayoutInput, field = 'payout'): PayoutInstruction {
  const ach = ACH_RAILS.includes(input.rail);
  for (const name of ['secCode', 'companyDiscretionaryData'] as const) {
    if (input[name] !== undefined && !ach) {
      throw new ApiError('InvalidRequest', `${field}.${name} applies to ACH payouts only (rail ach or achSameDay), not to ${input.rail}`);
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

/** The customer, or the counterparty that owns the account. */
function ownerOf(account: ExternalAccountView): DepositAddressInstrument['owner'] {
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

/**
 * The instrument of a bank destination paid on `payout`'s rail: its asset is the currency that rail pays
 * the account in; ExternalAccountNotActive, ExternalAccountHolderMismatch or external_account_rail_mismatch
 * when the account cannot be one.
 */
export function bankDestination(customerId: string, account: ExternalAccountView, payout: PayoutInstruction, field = 'destination'): DepositAddressDestination {
  if (!(DESTINATION_TYPES as readonly string[]).includes(account.type)) {
    throw new ApiError('external_account_rail_mismatch', `${field} external account ${account.id} is a ${account.type}: a deposit address pays out to a bank account (${DESTINATION_TYPES.join(', ')})`);
  }
  requireOwned(customerId, account, field);
  requireActive(account, field);
  const destination: DepositAddressDestination = {
    instrument: { type: account.type, id: account.id, asset: '', network: '', owner: ownerOf(account), details: account.details },
    party: accountParty(account),
    supportedDestinations: account.supportedDestinations.map((d) => ({ asset: d.asset, network: d.network })),
  };
  return paidOn(destination, payout, field === 'destination' ? 'payout' : `${field}.payout`);
}

/** The destination paid on the payout's rail, or external_account_rail_mismatch when the account does not take it. */
export function paidOn(destination: DepositAddressDestination, payout: PayoutInstruction, field = 'payout'): DepositAddressDestination {
  const supported = destination.supportedDestinations.find((d) => d.network === payout.rail);
  if (!supported) {
    const rails = destination.supportedDestinations.map((d) => d.network).join(', ');
    throw new ApiError('external_account_rail_mismatch', `${field}.rail: external account ${destination.instrument.id} does not take ${payout.rail} payouts; it takes ${rails}`);
  }
  return { ...destination, instrument: { ...destination.instrument, asset: supported.asset, network: supported.network } };
}

/** The active external wallet of the customer or a counterparty where returns go, on the address's asset and network. */
export function returnWallet(customerId: string, account: ExternalAccountView, asset: string, network: string, field = 'returnDestination'): DepositAddressInstrument {
  if (account.type !== 'walletExternal') {
    throw new ApiError('external_account_rail_mismatch', `${field} external account ${account.id} is a ${account.type}: returns go to a walletExternal`);
  }
  requireOwned(customerId, account, field);
  requireActive(account, field);
  const details = account.details as { address: string; network: string; asset: string };
  if (details.asset !== asset || details.network !== network) {
    throw new ApiError('AssetNetworkMismatch', `${field} external wallet ${account.id} takes ${details.asset} on ${details.network}; the address receives ${asset} on ${network}`);
  }
  return { type: 'walletExternal', id: account.id, asset, network, owner: ownerOf(account), details: account.details };
}

/** The endorsement the payout needs, as a quote paying out to the same account would (docs/endorsements.md). */
export function payoutEndorsement(destination: DepositAddressDestination): { name: EndorsementName; operation: string } {
  const asset = destination.instrument.asset;
  return { name: fiatEndorsement(asset), operation: `a deposit address paying out ${asset.toUpperCase()} to a bank account` };
}

