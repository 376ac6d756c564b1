// What POST and PATCH /virtual-accounts ask for (spec: Virtual account;
// API-CONTRACT: Virtual accounts; ADR 0032), checked without I/O against the
// accounts the application resolved through the accounts port. A destination is
// an active external wallet (usdc) of the customer or of one of its
// counterparties, a custodial wallet of the customer, or an active bankUs
// account of theirs paid on one of its rails; a return destination an active
// bankUs account of theirs, on one of its rails.
import {
  ApiError,
  accountOwner,
  accountParty,
  payoutInstruction as checkedPayout,
  requireAccountActive,
  requireAccountOwned,
  type PayoutInput,
  INBOUND_RAILS,
  type ExternalAccountView,
  type PayoutInstruction,
  type VirtualAccountDestination,
  type VirtualAccountReturnDestination,
  type WalletView,
} from '@mm/contracts';

export { ACH_RAILS, SEC_CODES, accountParty, type PayoutInput } from '@mm/contracts';

/** What a virtual account receives (API-CONTRACT): US dollars, on each of these rails. */
export const SUPPORTED_SOURCES: ReadonlyArray<{ asset: 'usd'; rail: string }> = INBOUND_RAILS.map((rail) => ({
  asset: 'usd' as const,
  rail,
}));

/** What a wallet destination receives: usdc, on the wallet's network. */
export const WALLET_ASSET = 'usdc';

/** The payout instruction as kept: the ACH fields only on ACH rails, in their formats. */
export function payoutInstruction(input: PayoutInput, field = 'destination.payout'): PayoutInstruction {
  return checkedPayout(input, field, 'VirtualAccountPayoutUnsupported');
}

function requireType(account: ExternalAccountView, type: string, field: string, what: string): void {
  if (account.type !== type) {
    throw new ApiError(
      'external_account_rail_mismatch',
      `${field} external account ${account.id} is a ${account.type}: ${what}`,
    );
  }
}

/** An active walletExternal of the customer or a counterparty, holding usdc. */
export function walletExternalDestination(
  customerId: string,
  account: ExternalAccountView,
  field = 'destination',
): VirtualAccountDestination {
  requireType(account, 'walletExternal', field, 'a walletExternal destination names an external wallet');
  requireAccountOwned(customerId, account, field);
  requireAccountActive(account, field);
  const details = account.details as { address: string; network: string; asset: string };
  if (details.asset !== WALLET_ASSET) {
    throw new ApiError(
      'AssetNetworkMismatch',
      `${field} external wallet ${account.id} holds ${details.asset}; a virtual account delivers ${WALLET_ASSET}`,
    );
  }
  return {
    instrument: {
      type: 'walletExternal',
      id: account.id,
      asset: details.asset,
      network: details.network,
      owner: accountOwner(account),
      details: { ...account.details },
    },
    party: accountParty(account),
    payout: null,
    supportedDestinations: [],
  };
}

/** A custodial wallet of the customer, holding usdc. */
export function walletOmsDestination(
  customer: { id: string; name: string },
  wallet: WalletView,
  field = 'destination',
): VirtualAccountDestination {
  if (wallet.customerId !== customer.id) {
    throw new ApiError(
      'WalletNotOwned',
      `${field}.walletId: wallet ${wallet.id} is not one of customer ${customer.id}'s wallets`,
    );
  }
  if (wallet.asset !== WALLET_ASSET) {
    throw new ApiError(
      'AssetNetworkMismatch',
      `${field}.walletId: wallet ${wallet.id} holds ${wallet.asset}; a virtual account delivers ${WALLET_ASSET}`,
    );
  }
  return {
    instrument: {
      type: 'walletOms',
      id: wallet.id,
      asset: wallet.asset,
      network: wallet.network,
      owner: { kind: 'customer', id: customer.id, name: customer.name },
      details: { address: wallet.address },
    },
    party: { relationship: 'customer', customerId: customer.id, entityType: 'individual' },
    payout: null,
    supportedDestinations: [],
  };
}

/** The rail among the account's rails, or VirtualAccountPayoutUnsupported naming the ones it takes. */
function railOf(
  account: { id: string; supportedDestinations: ReadonlyArray<{ asset: string; network: string }> },
  rail: string,
  field: string,
): { asset: string; network: string } {
  const supported = account.supportedDestinations.find((d) => d.network === rail);
  if (!supported) {
    const rails = account.supportedDestinations.map((d) => d.network).join(', ');
    throw new ApiError(
      'VirtualAccountPayoutUnsupported',
      `${field}: bank account ${account.id} does not take ${rail} payouts; it takes ${rails}`,
    );
  }
  return supported;
}

/** An active bankUs account of the customer or a counterparty, paid on `payout`'s rail. */
export function bankDestination(
  customerId: string,
  account: ExternalAccountView,
  payout: PayoutInstruction,
  field = 'destination',
): VirtualAccountDestination {
  requireType(account, 'bankUs', field, 'a bankUs destination names a US bank account');
  requireAccountOwned(customerId, account, field);
  requireAccountActive(account, field);
  const destination: VirtualAccountDestination = {
    instrument: {
      type: 'bankUs',
      id: account.id,
      asset: '',
      network: '',
      owner: accountOwner(account),
      details: { ...account.details },
    },
    party: accountParty(account),
    payout,
    supportedDestinations: account.supportedDestinations.map((d) => ({ asset: d.asset, network: d.network })),
  };
  return paidOn(destination, payout, `${field}.payout.rail`);
}

/** A bank destination paid on the payout's rail (VirtualAccountPayoutUnsupported when the account does not take it). */
export function paidOn(
  destination: VirtualAccountDestination,
  payout: PayoutInstruction,
  field = 'destination.payout.rail',
): VirtualAccountDestination {
  const rail = railOf(
    { id: destination.instrument.id, supportedDestinations: destination.supportedDestinations },
    payout.rail,
    field,
  );
  return {
    ...destination,
    payout,
    instrument: { ...destination.instrument, asset: rail.asset, network: rail.network },
  };
}

/** Where refunds go: an active bankUs account of the customer or a counterparty, on a rail it takes. */
export function returnBank(
  customerId: string,
  account: ExternalAccountView,
  rail: string,
  field = 'returnDestination',
): VirtualAccountReturnDestination {
  requireType(account, 'bankUs', field, 'refunds of US dollars go to a bankUs account');
  requireAccountOwned(customerId, account, field);
  requireAccountActive(account, field);
  const supported = railOf(account, rail, 'returnPayout.rail');
  return {
    instrument: {
      type: 'bankUs',
      id: account.id,
      asset: supported.asset,
      network: supported.network,
      owner: accountOwner(account),
      details: { ...account.details },
    },
    rail,
    supportedDestinations: account.supportedDestinations.map((d) => ({ asset: d.asset, network: d.network })),
  };
}

/** The return destination on another of its rails. */
export function returnOn(
  returnDestination: VirtualAccountReturnDestination,
  rail: string,
): VirtualAccountReturnDestination {
  const supported = railOf(
    { id: returnDestination.instrument.id, supportedDestinations: returnDestination.supportedDestinations },
    rail,
    'returnPayout.rail',
  );
  return {
    ...returnDestination,
    rail,
    instrument: { ...returnDestination.instrument, asset: supported.asset, network: supported.network },
  };
}
