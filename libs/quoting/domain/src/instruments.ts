// The instruments of a quote (spec: Quote; rules 2, 4, 5): which sources and
// destinations pair, the card rules, and each side as partners read it. Pure:
// the application resolves the ids this names through the accounts port first.
import {
  ApiError,
  fiatEndorsement,
  OPERATION_ENDORSEMENTS,
  type Corridor,
  type EndorsementName,
  type ExternalAccountView,
  type Party,
  type QuoteSideRecord,
  type WalletView,
} from '@mm/contracts';
import type { CashPickupLocation } from './cash-pickup';

export const SOURCE_TYPES = ['walletOms', 'walletCrypto', 'card'] as const;
export const DESTINATION_TYPES = [
  'walletOms',
  'walletExternal',
  'bankUs',
  'bankIban',
  'bankCanada',
  'card',
  'cash',
] as const;
export const BANK_TYPES = ['bankUs', 'bankIban', 'bankCanada'] as const;
/** Bank rails by destination type (spec: Quote, "Bank rails by network"). */
export const BANK_NETWORKS: Record<string, readonly string[]> = {
  bankUs: ['ach', 'achSameDay', 'wire'],
  bankIban: ['swift'],
  bankCanada: ['swift', 'local'],
};

export interface SideDetails {
  id?: string;
  externalAccountId?: string;
  walletId?: string;
  address?: string;
  asset?: string;
  network?: string;
  accountHolder?: string;
  cashLocationId?: string;
  cashLocationReference?: string;
}

export interface QuoteSideInput {
  type: string;
  details: SideDetails;
  amount?: string;
}

export interface QuoteInput {
  customerId: string;
  source: QuoteSideInput;
  destination: QuoteSideInput;
  settlementType?: 'internal' | 'external';
}

/** What a quote needs resolved before it can be priced. */
export interface QuotePlan {
  kind: 'cryptoToCrypto' | 'cryptoToFiat' | 'cardBuy' | 'cardSell' | 'cashPickup';
  sourceWalletId?: string;
  sourceCardId?: string;
  /** A card buy's optional custodial wallet. */
  buyWalletId?: string;
  destinationWalletId?: string;
  destinationAccountId?: string;
  /** A cash pickup's retail location (spec: Quote, cash destination details). */
  cashLocation?: { id: string; reference: string };
  settlementType: 'internal' | 'external' | null;
}

export interface ResolvedInstruments {
  sourceWallet?: WalletView;
  sourceCard?: ExternalAccountView;
  buyWallet?: WalletView;
  destinationWallet?: WalletView;
  destinationAccount?: ExternalAccountView;
  /** A cash pickup's location, checked (it exists, its reference matches, it pays out cash). */
  cashLocation?: CashPickupLocation;
}

export interface PricedSides {
  sourceToDestination: Corridor;
  source: QuoteSideRecord;
  destination: QuoteSideRecord;
  sourceAsset: string;
  destinationAsset: string;
}

const isWallet = (type: string) => type === 'walletOms' || type === 'walletCrypto';

function accountId(details: SideDetails, side: string, card: boolean): string {
  const id = card ? (details.externalAccountId ?? details.id) : details.id;
  if (card && details.externalAccountId && details.id && details.id !== details.externalAccountId) {
    throw new ApiError('InvalidRequest', `${side}.details: id and externalAccountId name different accounts`);
  }
  if (!id)
    throw new ApiError(
      'external_account_required',
      `${side}.details.${card ? 'externalAccountId' : 'id'} is required for a ${card ? 'card' : 'registered account'}`,
    );
  return id;
}

/** Structural rules: the pairs the service moves money between and the card rules that need no lookup. */
export function planQuote(input: QuoteInput): QuotePlan {
  const { source, destination } = input;
  if ((source.amount === undefined) === (destination.amount === undefined)) {
    throw new ApiError(
      'InvalidRequest',
      'amount must be set on exactly one of source and destination (that side is fixedAmountSide)',
    );
  }
  if ((BANK_TYPES as readonly string[]).includes(source.type)) {
    throw new ApiError(
      'UnsupportedCorridor',
      'a bank account is only ever a destination; inbound bank money arrives through a virtual account',
    );
  }
  if (!(SOURCE_TYPES as readonly string[]).includes(source.type)) {
    throw new ApiError('InvalidRequest', `source.type must be one of ${SOURCE_TYPES.join(', ')}`);
  }
  if (!(DESTINATION_TYPES as readonly string[]).includes(destination.type)) {
    throw new ApiError('InvalidRequest', `destination.type must be one of ${DESTINATION_TYPES.join(', ')}`);
  }
  if (destination.type === 'cash') return planCashPickup(input);
  const cardBuy = source.type === 'card';
  const cardSell = isWallet(source.type) && destination.type === 'card';
  if (!cardBuy && !cardSell && input.settlementType !== undefined) {
    throw new ApiError('InvalidRequest', 'settlementType applies to card buys and card sells only');
  }
  if (cardBuy) {
    if (destination.type === 'card' || (BANK_TYPES as readonly string[]).includes(destination.type)) {
      throw new ApiError(
        'UnsupportedCorridor',
        'a card buy delivers crypto: its destination is walletOms or walletExternal',
      );
    }
    if (source.details.address !== undefined)
      throw new ApiError(
        'source_wallet_address_not_allowed',
        'source.details.address: name a custodial wallet by walletId instead',
      );
    const settlementType = input.settlementType ?? 'external';
    if (settlementType === 'internal' && destination.type === 'walletExternal') {
      throw new ApiError(
        'external_custody_not_allowed',
        'settlementType internal keeps the crypto in custody: the destination must be a walletOms wallet',
      );
    }
    return {
      kind: 'cardBuy',
      sourceCardId: accountId(source.details, 'source', true),
      buyWalletId: source.details.walletId,
      ...(destination.type === 'walletOms'
        ? { destinationWalletId: walletIdOf(destination.details, 'destination') }
        : { destinationAccountId: accountId(destination.details, 'destination', false) }),
      settlementType,
    };
  }
  if (cardSell) {
    if ((input.settlementType ?? 'internal') === 'external')
      throw new ApiError(
        'external_sell_unsupported',
        'card sells settle internally: omit settlementType or send internal',
      );
    // The card rules (spec: Errors, card validation) apply to any card quote whose source names a raw address.
    if (source.details.address !== undefined)
      throw new ApiError(
        'source_wallet_address_not_allowed',
        'source.details.address: name the custodial wallet by id',
      );
    if (
      destination.details.walletId !== undefined ||
      destination.details.address !== undefined ||
      destination.details.id?.startsWith('wlt_')
    ) {
      throw new ApiError(
        'invalid_wallet_target',
        'a card sell pays out to the card: its destination names the card by externalAccountId, never a wallet',
      );
    }
    return {
      kind: 'cardSell',
      sourceWalletId: walletIdOf(source.details, 'source'),
      destinationAccountId: accountId(destination.details, 'destination', true),
      settlementType: 'internal',
    };
  }
  const sourceWalletId = walletIdOf(source.details, 'source');
  if (destination.type === 'walletOms')
    return {
      kind: 'cryptoToCrypto',
      sourceWalletId,
      destinationWalletId: walletIdOf(destination.details, 'destination'),
      settlementType: null,
    };
  if (destination.type === 'walletExternal')
    return {
      kind: 'cryptoToCrypto',
      sourceWalletId,
      destinationAccountId: accountId(destination.details, 'destination', false),
      settlementType: null,
    };
  // A bank destination: the network picks the rail, and only the customer may hold the account.
  const networks = BANK_NETWORKS[destination.type];
  if (!destination.details.network || !networks.includes(destination.details.network)) {
    throw new ApiError(
      'InvalidRequest',
      `destination.details.network of ${destination.type} must be one of ${networks.join(', ')}`,
    );
  }
  if (destination.details.accountHolder !== 'customer') {
    throw new ApiError(
      'InvalidRequest',
      "destination.details.accountHolder must be customer: bank payouts go to the customer's own account",
    );
  }
  return {
    kind: 'cryptoToFiat',
    sourceWalletId,
    destinationAccountId: accountId(destination.details, 'destination', false),
    settlementType: null,
  };
}

/**
 * Cash pickup (spec: rule 8): a custodial wallet's crypto paid out as cash at a retail location, the
 * destination named only by the location's id and reference (spec: Cash location (read)).
 */
function planCashPickup(input: QuoteInput): QuotePlan {
  const { source, destination } = input;
  if (!isWallet(source.type))
    throw new ApiError('UnsupportedCorridor', 'a cash pickup is paid from a custodial wallet: its source is walletOms');
  if (input.settlementType !== undefined)
    throw new ApiError('InvalidRequest', 'settlementType applies to card buys and card sells only');
  const d = destination.details;
  const named = (['id', 'externalAccountId', 'walletId', 'address', 'accountHolder'] as const).filter(
    (k) => d[k] !== undefined,
  );
  if (named.length > 0) {
    throw new ApiError(
      'InvalidRequest',
      `destination.details.${named[0]}: a cash destination is named by cashLocationId and cashLocationReference (GET /cash-locations?flow=cash_out)`,
    );
  }
  if (!d.cashLocationId)
    throw new ApiError(
      'InvalidRequest',
      'destination.details.cashLocationId (the pickup location, loc_…) is required for a cash destination',
    );
  if (!d.cashLocationReference)
    throw new ApiError(
      'InvalidRequest',
      'destination.details.cashLocationReference is required for a cash destination',
    );
  if (d.asset !== undefined && d.asset !== 'usd')
    throw new ApiError('AssetNetworkMismatch', `destination.details.asset is ${d.asset}; cash is paid out in usd`);
  if (d.network !== undefined && d.network !== 'cash')
    throw new ApiError(
      'AssetNetworkMismatch',
      `destination.details.network is ${d.network}; cash is paid out on the cash network`,
    );
  return {
    kind: 'cashPickup',
    sourceWalletId: walletIdOf(source.details, 'source'),
    cashLocation: { id: d.cashLocationId, reference: d.cashLocationReference },
    settlementType: null,
  };
}

function walletIdOf(details: SideDetails, side: string): string {
  if (details.address !== undefined && side === 'source')
    throw new ApiError('InvalidRequest', 'source.details.address: a source wallet is named by id');
  if (!details.id) throw new ApiError('InvalidRequest', `${side}.details.id (the wallet, wlt_…) is required`);
  return details.id;
}

function checkAssetNetwork(details: SideDetails, side: string, asset: string, network: string): void {
  if (details.asset !== undefined && details.asset !== asset)
    throw new ApiError(
      'AssetNetworkMismatch',
      `${side}.details.asset is ${details.asset}, the instrument holds ${asset}`,
    );
  if (details.network !== undefined && details.network !== network)
    throw new ApiError(
      'AssetNetworkMismatch',
      `${side}.details.network is ${details.network}, the instrument is on ${network}`,
    );
}

function walletSide(type: string, wallet: WalletView, party: Party, amount?: string): QuoteSideRecord {
  return {
    type,
    category: 'crypto',
    details: { id: wallet.id, asset: wallet.asset, network: wallet.network, address: wallet.address },
    ...(amount ? { amount } : {}),
    party,
  };
}

function walletParty(customerId: string, wallet: WalletView): Party {
  return wallet.customerId === customerId
    ? { relationship: 'customer', customerId, entityType: 'individual' }
    : { relationship: 'otherCustomer', customerId: wallet.customerId, entityType: 'individual' };
}

function accountParty(customerId: string, account: ExternalAccountView): Party {
  if (account.counterpartyId) {
    return {
      relationship: 'externalRegistered',
      counterpartyId: account.counterpartyId,
      entityType: account.counterpartyEntityType ?? 'individual',
      name: account.counterpartyName,
    };
  }
  return { relationship: 'customer', customerId, entityType: 'individual' };
}

function requireActive(account: ExternalAccountView, side: string): void {
  if (account.status !== 'active')
    throw new ApiError('ExternalAccountNotActive', `${side} external account ${account.id} is ${account.status}`);
}

/** Where an external account a quote names stands now: as the accounts service reads it, or deleted. */
export type AccountStanding = Pick<ExternalAccountView, 'status' | 'failure'> | 'deleted';

/**
 * Accepting a quote checks its external accounts again (issue 17): one invalidated or deleted since
 * the quote was made refuses the acceptance before any money moves. A 422, not a 404: the quote
 * exists and stays open; only a new quote to an active account can go ahead.
 */
export function requireUsableAtAcceptance(side: 'source' | 'destination', id: string, standing: AccountStanding): void {
  const fix = side === 'source' ? 'create a new quote with an active card' : 'create a new quote to an active account';
  if (standing === 'deleted')
    throw new ApiError('ExternalAccountNotActive', `${side} external account ${id} was deleted; ${fix}`);
  if (standing.status !== 'active') {
    const why = standing.failure ? ` (${standing.failure.code})` : '';
    throw new ApiError(
      'ExternalAccountNotActive',
      `${side} external account ${id} is ${standing.status}${why}; ${fix}`,
    );
  }
}

function requireOwnAccount(customerId: string, account: ExternalAccountView, side: string): void {
  if (account.customerId !== customerId || account.counterpartyId !== null) {
    throw new ApiError(
      'ExternalAccountHolderMismatch',
      `${side} external account ${account.id} is not registered to customer ${customerId}`,
    );
  }
}

function cardSide(
  card: ExternalAccountView,
  customerId: string,
  side: string,
  amount: string | undefined,
  extra: Record<string, unknown> = {},
): QuoteSideRecord {
  if (card.type !== 'card')
    throw new ApiError(
      'external_account_rail_mismatch',
      `${side} external account ${card.id} is a ${card.type}, not a card`,
    );
  requireOwnAccount(customerId, card, side);
  requireActive(card, side);
  const details = card.details as { brand: string; last4: string };
  return {
    type: 'card',
    category: 'fiat',
    details: {
      externalAccountId: card.id,
      asset: 'usd',
      network: 'card',
      brand: details.brand,
      last4: details.last4,
      ...extra,
    },
    ...(amount ? { amount } : {}),
    party: { relationship: 'customer', customerId, entityType: 'individual' },
  };
}

/** The sides of a quote, checked against the resolved instruments. */
export function buildSides(input: QuoteInput, plan: QuotePlan, resolved: ResolvedInstruments): PricedSides {
  const { customerId, source, destination } = input;
  let sourceSide: QuoteSideRecord;
  let sourceAsset: string;
  if (plan.kind === 'cardBuy') {
    if (resolved.buyWallet && resolved.buyWallet.customerId !== customerId)
      throw new ApiError(
        'WalletNotOwned',
        `wallet ${resolved.buyWallet.id} is not one of customer ${customerId}'s wallets`,
      );
    sourceSide = cardSide(
      resolved.sourceCard!,
      customerId,
      'source',
      source.amount,
      resolved.buyWallet ? { walletId: resolved.buyWallet.id } : {},
    );
    checkAssetNetwork(source.details, 'source', 'usd', 'card');
    sourceAsset = 'usd';
  } else {
    const wallet = resolved.sourceWallet!;
    if (wallet.customerId !== customerId)
      throw new ApiError('WalletNotOwned', `wallet ${wallet.id} is not one of customer ${customerId}'s wallets`);
    checkAssetNetwork(source.details, 'source', wallet.asset, wallet.network);
    sourceSide = walletSide(
      source.type === 'walletCrypto' ? 'walletCrypto' : 'walletOms',
      wallet,
      { relationship: 'customer', customerId, entityType: 'individual' },
      source.amount,
    );
    sourceAsset = wallet.asset;
  }

  let destinationSide: QuoteSideRecord;
  let destinationAsset: string;
  if (resolved.destinationWallet) {
    const wallet = resolved.destinationWallet;
    checkAssetNetwork(destination.details, 'destination', wallet.asset, wallet.network);
    if (plan.kind !== 'cardBuy' && wallet.id === resolved.sourceWallet?.id)
      throw new ApiError('InvalidRequest', 'the destination wallet is the source wallet');
    destinationSide = walletSide('walletOms', wallet, walletParty(customerId, wallet), destination.amount);
    destinationAsset = wallet.asset;
  } else if (plan.kind === 'cashPickup') {
    // The customer withdraws their own crypto as cash (spec: rule 8): they are the party who collects it.
    const location = resolved.cashLocation!;
    destinationSide = {
      type: 'cash',
      category: 'cash',
      details: {
        asset: 'usd',
        network: 'cash',
        cashLocationId: location.locId,
        cashLocationReference: location.cashLocationReference,
        locationName: location.name,
        locationProvider: location.provider,
        locationState: location.state,
      },
      ...(destination.amount ? { amount: destination.amount } : {}),
      party: { relationship: 'customer', customerId, entityType: 'individual' },
    };
    destinationAsset = 'usd';
  } else if (plan.kind === 'cardSell') {
    destinationSide = cardSide(resolved.destinationAccount!, customerId, 'destination', destination.amount);
    checkAssetNetwork(destination.details, 'destination', 'usd', 'card');
    destinationAsset = 'usd';
  } else {
    const account = resolved.destinationAccount!;
    if (account.type !== destination.type)
      throw new ApiError(
        'external_account_rail_mismatch',
        `destination external account ${account.id} is a ${account.type}, not a ${destination.type}`,
      );
    if (destination.type === 'walletExternal') {
      const details = account.details as { address: string; network: string; asset: string };
      if (account.customerId !== customerId)
        throw new ApiError(
          'ExternalAccountHolderMismatch',
          `external wallet ${account.id} is not registered under customer ${customerId}`,
        );
      requireActive(account, 'destination');
      checkAssetNetwork(destination.details, 'destination', details.asset, details.network);
      destinationSide = {
        type: 'walletExternal',
        category: 'crypto',
        details: { id: account.id, asset: details.asset, network: details.network, address: details.address },
        ...(destination.amount ? { amount: destination.amount } : {}),
        party: accountParty(customerId, account),
      };
      destinationAsset = details.asset;
    } else {
      requireOwnAccount(customerId, account, 'destination');
      requireActive(account, 'destination');
      const network = destination.details.network!;
      const supported = account.supportedDestinations.find((d) => d.network === network);
      if (!supported)
        throw new ApiError(
          'external_account_rail_mismatch',
          `destination external account ${account.id} does not take ${network} payouts`,
        );
      destinationAsset = supported.asset;
      if (destination.details.asset !== undefined && destination.details.asset !== destinationAsset) {
        throw new ApiError(
          'AssetNetworkMismatch',
          `destination.details.asset: ${network} payouts to this account are in ${destinationAsset}`,
        );
      }
      const last4 =
        (account.details as { accountNumberLast4?: string; ibanLast4?: string }).accountNumberLast4 ??
        (account.details as { ibanLast4?: string }).ibanLast4;
      destinationSide = {
        type: destination.type,
        category: 'fiat',
        details: {
          id: account.id,
          asset: destinationAsset,
          network,
          accountHolder: 'customer',
          ...(last4 ? { last4 } : {}),
        },
        ...(destination.amount ? { amount: destination.amount } : {}),
        party: accountParty(customerId, account),
      };
    }
  }
  const sourceToDestination: Corridor =
    plan.kind === 'cardBuy'
      ? 'fiatAccountToCrypto'
      : plan.kind === 'cryptoToCrypto'
        ? 'cryptoToCrypto'
        : plan.kind === 'cashPickup'
          ? 'cryptoToCash'
          : 'cryptoToFiatAccount';
  return { sourceToDestination, source: sourceSide, destination: destinationSide, sourceAsset, destinationAsset };
}

/**
 * The endorsement a quote's customer needs, and for what (docs/endorsements.md): a fiat or cash side needs
 * its currency's (usd for cash, cards and USD bank payouts; basic for a CAD payout); crypto between wallets
 * needs none beyond the custody its wallets needed.
 */
export function quoteEndorsement(
  sides: Pick<PricedSides, 'sourceToDestination' | 'destination' | 'destinationAsset'>,
): { name: EndorsementName; operation: string } | undefined {
  switch (sides.sourceToDestination) {
    case 'cryptoToCash':
      return { name: OPERATION_ENDORSEMENTS.cashPickup, operation: 'a cash pickup' };
    case 'fiatAccountToCrypto':
      return { name: OPERATION_ENDORSEMENTS.card, operation: 'a card buy' };
    case 'cryptoToFiatAccount':
      if (sides.destination.type === 'card') return { name: OPERATION_ENDORSEMENTS.card, operation: 'a card sell' };
      return {
        name: fiatEndorsement(sides.destinationAsset),
        operation: `a ${sides.destinationAsset.toUpperCase()} bank payout`,
      };
    default:
      return undefined;
  }
}
