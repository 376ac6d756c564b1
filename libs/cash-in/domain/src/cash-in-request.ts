// What POST /cash-ins asks for (spec: Endpoints, Cash-in; rule 5; Limits, item
// 4), checked before anything is looked up: usd in, usdc out on a network the
// service delivers to, sponsored gas only, and exactly one destination wallet
// form. The application then resolves the wallet through the accounts port.
import {
  ApiError,
  evmAddressProblem,
  requireAmount,
  WALLET_NETWORKS,
  type CashInDestination,
  type ExternalAccountView,
  type WalletView,
} from '@mm/contracts';
import { CASH_ASSET } from './cash-in-pricing';

export interface CashInRequest {
  customerId: string;
  source: { asset: string; indicatedAmount?: string | null };
  destination: {
    asset: string;
    network: string;
    wallet: { id?: string; blockchainAddress?: string; externalAccount?: string };
  };
  cash: { locationId: string; locationReference: string };
  sponsorGas?: boolean;
  metadata?: Record<string, string>;
}

/** How the crypto is delivered: the one wallet form the request names. */
export type DestinationTarget =
  | { kind: 'wallet'; walletId: string }
  | { kind: 'externalAccount'; externalAccountId: string }
  | { kind: 'address'; address: string };

export interface CashInPlan {
  indicatedAmount: string | null;
  asset: string;
  network: string;
  target: DestinationTarget;
}

/** The assets and networks a cash-in delivers: the custodial wallets' (usdc on meridianchain and ethereum). */
export const CASH_IN_DESTINATIONS = WALLET_NETWORKS;

export function planCashIn(request: CashInRequest): CashInPlan {
  if (request.sponsorGas === false)
    throw new ApiError('SponsorGasRequired', 'cash-ins only accept sponsorGas: true (the default)');
  if (request.source.asset !== 'usd') throw new ApiError('InvalidRequest', 'source.asset must be usd');
  const { asset, network, wallet } = request.destination;
  if (!CASH_IN_DESTINATIONS[asset]?.includes(network)) {
    const offered = Object.entries(CASH_IN_DESTINATIONS).flatMap(([a, networks]) =>
      networks.map((n) => `${a} on ${n}`),
    );
    throw new ApiError(
      'UnsupportedAssetNetwork',
      `a cash-in delivers ${offered.join(' or ')}, not ${asset} on ${network}`,
    );
  }
  const forms = (['id', 'blockchainAddress', 'externalAccount'] as const).filter((k) => wallet[k] !== undefined);
  if (forms.length !== 1) {
    throw new ApiError(
      'InvalidRequest',
      'destination.wallet names exactly one of id (a custodial wallet, wlt_), blockchainAddress or externalAccount (a walletExternal, ext_)',
    );
  }
  let target: DestinationTarget;
  if (wallet.id !== undefined) target = { kind: 'wallet', walletId: wallet.id };
  else if (wallet.externalAccount !== undefined)
    target = { kind: 'externalAccount', externalAccountId: wallet.externalAccount };
  else {
    const problem = evmAddressProblem(wallet.blockchainAddress!);
    if (problem) throw new ApiError('InvalidWalletAddress', `destination.wallet.blockchainAddress ${problem}`);
    target = { kind: 'address', address: wallet.blockchainAddress! };
  }
  const indicated = request.source.indicatedAmount ?? null;
  return {
    indicatedAmount:
      indicated === null ? null : requireAmount(indicated, 'source.indicatedAmount', { asset: CASH_ASSET }).toFixed(2),
    asset,
    network,
    target,
  };
}

/** A custodial wallet of the customer that holds the asset on the network. */
export function walletDestination(customerId: string, plan: CashInPlan, wallet: WalletView): CashInDestination {
  if (wallet.customerId !== customerId)
    throw new ApiError('WalletNotOwned', `wallet ${wallet.id} is not one of customer ${customerId}'s wallets`);
  if (wallet.asset !== plan.asset || wallet.network !== plan.network) {
    throw new ApiError(
      'AssetNetworkMismatch',
      `wallet ${wallet.id} holds ${wallet.asset} on ${wallet.network}, not ${plan.asset} on ${plan.network}`,
    );
  }
  return {
    asset: plan.asset,
    network: plan.network,
    walletId: wallet.id,
    externalAccountId: null,
    blockchainAddress: wallet.address,
  };
}

/** A registered, active external wallet of the customer's own on the network. */
export function externalAccountDestination(
  customerId: string,
  plan: CashInPlan,
  account: ExternalAccountView,
): CashInDestination {
  if (account.type !== 'walletExternal')
    throw new ApiError(
      'external_account_rail_mismatch',
      `external account ${account.id} is a ${account.type}: a cash-in delivers to a walletExternal`,
    );
  if (account.customerId !== customerId || account.counterpartyId !== null) {
    throw new ApiError(
      'ExternalAccountHolderMismatch',
      `external wallet ${account.id} is not registered to customer ${customerId}`,
    );
  }
  if (account.status !== 'active')
    throw new ApiError('ExternalAccountNotActive', `external wallet ${account.id} is ${account.status}`);
  const details = account.details as { address: string; network: string; asset: string };
  if (details.asset !== plan.asset || details.network !== plan.network) {
    throw new ApiError(
      'AssetNetworkMismatch',
      `external wallet ${account.id} takes ${details.asset} on ${details.network}, not ${plan.asset} on ${plan.network}`,
    );
  }
  return {
    asset: plan.asset,
    network: plan.network,
    walletId: null,
    externalAccountId: account.id,
    blockchainAddress: details.address,
  };
}

export function addressDestination(plan: CashInPlan, address: string): CashInDestination {
  return {
    asset: plan.asset,
    network: plan.network,
    walletId: null,
    externalAccountId: null,
    blockchainAddress: address,
  };
}
