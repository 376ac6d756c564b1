// What POST and PATCH /deposit-addresses ask for (spec: Deposit address;
// API-CONTRACT: Deposit addresses; ADR 0030), checked without I/O: the source
// the address expects, the payout instruction, and the external accounts the
// application resolved through the accounts port. A destination is an active
// bank account of the customer or of one of its counterparties, paid on a rail
// it takes; a return destination an active external wallet of theirs on the
// asset and network the address expects.
import {
  ApiError,
  accountOwner,
  accountParty,
  payoutInstruction as checkedPayout,
  requireAccountActive,
  requireAccountOwned,
  type PayoutInput,
  fiatEndorsement,
  WALLET_NETWORKS,
  type DepositAddressDestination,
  type DepositAddressInstrument,
  type EndorsementName,
  type ExternalAccountView,
  type PayoutInstruction,
} from '@mm/contracts';

export { ACH_RAILS, SEC_CODES, accountParty, type PayoutInput } from '@mm/contracts';

/** What an address may expect to receive: the assets and networks custodial wallets hold (usdc on meridianchain and ethereum). */
export const DEPOSIT_ADDRESS_SOURCES = WALLET_NETWORKS;

/** Bank accounts only: a deposit address pays out to a bank (spec: Deposit address, destination). */
export const DESTINATION_TYPES = ['bankUs', 'bankIban', 'bankCanada'] as const;

/** Refuses (UnsupportedAssetNetwork) a source the service does not take on deposit addresses. */
export function checkExpectedSource(asset: string, network: string): void {
  if (Object.hasOwn(DEPOSIT_ADDRESS_SOURCES, asset) && DEPOSIT_ADDRESS_SOURCES[asset].includes(network)) return;
  const offered = Object.entries(DEPOSIT_ADDRESS_SOURCES).flatMap(([a, networks]) =>
    networks.map((n) => `${a} on ${n}`),
  );
  throw new ApiError(
    'UnsupportedAssetNetwork',
    `a deposit address receives ${offered.join(' or ')}, not ${asset} on ${network}`,
  );
}

/** The payout instruction as kept: the ACH fields only on ACH rails, in their formats. */
export function payoutInstruction(input: PayoutInput, field = 'payout'): PayoutInstruction {
  return checkedPayout(input, field, 'InvalidRequest');
}

/**
 * The instrument of a bank destination paid on `payout`'s rail: its asset is the currency that rail pays
 * the account in; ExternalAccountNotActive, ExternalAccountHolderMismatch or external_account_rail_mismatch
 * when the account cannot be one.
 */
export function bankDestination(
  customerId: string,
  account: ExternalAccountView,
  payout: PayoutInstruction,
  field = 'destination',
): DepositAddressDestination {
  if (!(DESTINATION_TYPES as readonly string[]).includes(account.type)) {
    throw new ApiError(
      'external_account_rail_mismatch',
      `${field} external account ${account.id} is a ${account.type}: a deposit address pays out to a bank account (${DESTINATION_TYPES.join(', ')})`,
    );
  }
  requireAccountOwned(customerId, account, field);
  requireAccountActive(account, field);
  const destination: DepositAddressDestination = {
    instrument: {
      type: account.type,
      id: account.id,
      asset: '',
      network: '',
      owner: accountOwner(account),
      details: account.details,
    },
    party: accountParty(account),
    supportedDestinations: account.supportedDestinations.map((d) => ({ asset: d.asset, network: d.network })),
  };
  return paidOn(destination, payout, field === 'destination' ? 'payout' : `${field}.payout`);
}

/** The destination paid on the payout's rail, or external_account_rail_mismatch when the account does not take it. */
export function paidOn(
  destination: DepositAddressDestination,
  payout: PayoutInstruction,
  field = 'payout',
): DepositAddressDestination {
  const supported = destination.supportedDestinations.find((d) => d.network === payout.rail);
  if (!supported) {
    const rails = destination.supportedDestinations.map((d) => d.network).join(', ');
    throw new ApiError(
      'external_account_rail_mismatch',
      `${field}.rail: external account ${destination.instrument.id} does not take ${payout.rail} payouts; it takes ${rails}`,
    );
  }
  return {
    ...destination,
    instrument: { ...destination.instrument, asset: supported.asset, network: supported.network },
  };
}

/** The active external wallet of the customer or a counterparty where returns go, on the address's asset and network. */
export function returnWallet(
  customerId: string,
  account: ExternalAccountView,
  asset: string,
  network: string,
  field = 'returnDestination',
): DepositAddressInstrument {
  if (account.type !== 'walletExternal') {
    throw new ApiError(
      'external_account_rail_mismatch',
      `${field} external account ${account.id} is a ${account.type}: returns go to a walletExternal`,
    );
  }
  requireAccountOwned(customerId, account, field);
  requireAccountActive(account, field);
  const details = account.details as { address: string; network: string; asset: string };
  if (details.asset !== asset || details.network !== network) {
    throw new ApiError(
      'AssetNetworkMismatch',
      `${field} external wallet ${account.id} takes ${details.asset} on ${details.network}; the address receives ${asset} on ${network}`,
    );
  }
  return {
    type: 'walletExternal',
    id: account.id,
    asset,
    network,
    owner: accountOwner(account),
    details: account.details,
  };
}

/** The endorsement the payout needs, as a quote paying out to the same account would (docs/endorsements.md). */
export function payoutEndorsement(destination: DepositAddressDestination): {
  name: EndorsementName;
  operation: string;
} {
  const asset = destination.instrument.asset;
  return {
    name: fiatEndorsement(asset),
    operation: `a deposit address paying out ${asset.toUpperCase()} to a bank account`,
  };
}
