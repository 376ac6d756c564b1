import type { AuditActor, Corridor, Party, Pricing } from './ports';
import type { VirtualAccountEventPayloads, VirtualAccountTarget } from './virtual-accounts';

// One typed map from event type to payload (STYLE: events are the record).
// Past-tense names; a payload that changes shape gets a new versioned type.

export type EndorsementName = 'basic' | 'cryptoCustody' | 'usd';
export const ENDORSEMENT_NAMES: readonly EndorsementName[] = ['basic', 'cryptoCustody', 'usd'];
export type EndorsementStatus = 'pending' | 'active' | 'rejected';

export interface LedgerEntry {
  /** `wallet:<wlt_id>` or `sandbox-funding:<asset>:<network>` */
  account: string;
  /** Signed decimal string; the entries of one posting sum to zero. */
  amount: string;
}

export interface EventPayloads extends VirtualAccountEventPayloads {
  // gateway
  'project.created': {
    projectId: string;
    name: string;
    features: ProjectFeatures;
    /** The environment's default (docs/operators.md, Four eyes); absent in projects made before it: none. */
    fourEyesThreshold?: string | null;
    createdAt: string;
  };
  'project.updated': { projectId: string; changes: ProjectChanges; updatedAt: string };
  /**
   * secretHash is the HMAC of the secret, never the secret (spec: Authentication, item 1). `name` and `scopes`
   * (a restricted key's `<resource>:read|write`; null: every scope) are absent in keys made before them.
   */
  'apiKey.created': {
    projectId: string;
    apiKey: string;
    mode: 'sdbx' | 'live';
    secretHash: string;
    name?: string | null;
    scopes?: string[] | null;
    createdAt: string;
  };
  'apiKey.revoked': { projectId: string; apiKey: string; revokedAt: string };
  /** A key rolled into `successor` (created in the same command): it stops working at `expiresAt`. */
  'apiKey.rolled': { projectId: string; apiKey: string; successor: string; expiresAt: string; rolledAt: string };
  'publishableKey.created': { projectId: string; publishableKey: string; mode: 'sdbx' | 'live'; createdAt: string };
  'publishableKey.revoked': { projectId: string; publishableKey: string; revokedAt: string };

  // accounts
  'customer.created': {
    customerId: string;
    projectId: string;
    type: 'individual';
    firstName: string;
    lastName: string;
    email: string | null;
    createdAt: string;
  };
  'endorsement.requested': { customerId: string; projectId: string; name: EndorsementName; requestedAt: string };
  'endorsement.approved': {
    customerId: string;
    projectId: string;
    name: EndorsementName;
    previousStatus: EndorsementStatus;
    approvedAt: string;
  };
  'endorsement.rejected': {
    customerId: string;
    projectId: string;
    name: EndorsementName;
    previousStatus: EndorsementStatus;
    reason: string;
    rejectedAt: string;
  };
  'wallet.provisioned': {
    walletId: string;
    projectId: string;
    customerId: string;
    asset: string;
    network: string;
    address: string;
    /** On a chain: the address's BIP-44 index among custodial wallets (docs/chain.md); absent when simulated. */
    derivationIndex?: number;
    createdAt: string;
  };
  'wallet.credited': {
    walletId: string;
    projectId: string;
    postingId: string;
    amount: string;
    balance: string;
    entries: LedgerEntry[];
    reason: string;
    at: string;
  };
  'wallet.debited': {
    walletId: string;
    projectId: string;
    postingId: string;
    amount: string;
    balance: string;
    entries: LedgerEntry[];
    reason: string;
    at: string;
  };

  // accounts: external accounts (spec: External account). No payload carries a full account
  // number, IBAN, card number or tax id: only what a read shows.
  'externalAccount.created': {
    externalAccountId: string;
    projectId: string;
    customerId: string;
    counterpartyId: string | null;
    type: ExternalAccountType;
    details: ExternalAccountDetails;
    supportedDestinations: InstrumentDestination[];
    /** The provider's token for the registered instrument (the card processor's, the bank vault's). */
    providerReference: string;
    /** Names the screening provider checks before the account may become active (rule 9); empty when not screened. */
    screenedNames: string[];
    label: string | null;
    metadata: Record<string, string>;
    provisioningDeadline: string;
    createdAt: string;
  };
  'externalAccount.statusChanged': {
    externalAccountId: string;
    projectId: string;
    status: ExternalAccountStatus;
    previousStatus: ExternalAccountStatus;
    failure: ExternalAccountFailure | null;
    at: string;
  };
  'externalAccount.verified': { externalAccountId: string; projectId: string; at: string };
  'externalAccount.declined': {
    externalAccountId: string;
    projectId: string;
    failure: ExternalAccountFailure;
    at: string;
  };
  'externalAccount.updated': {
    externalAccountId: string;
    projectId: string;
    changedFields: Array<'label' | 'metadata' | 'failure' | 'details'>;
    label?: string | null;
    metadata?: Record<string, string>;
    failure?: ExternalAccountFailure | null;
    at: string;
  };
  'externalAccount.deleted': { externalAccountId: string; projectId: string; at: string };

  // accounts: counterparties (spec: Counterparty). taxId is write-only: only whether one was given.
  'counterparty.created': {
    counterpartyId: string;
    projectId: string;
    customerId: string;
    entityType: CounterpartyEntityType;
    firstName: string | null;
    lastName: string | null;
    businessName: string | null;
    name: string;
    email: string | null;
    phone: string | null;
    taxIdProvided: boolean;
    address: CounterpartyAddress | null;
    createdAt: string;
  };
  'counterparty.updated': {
    counterpartyId: string;
    projectId: string;
    changedFields: string[];
    changes: Partial<
      Pick<
        EventPayloads['counterparty.created'],
        'firstName' | 'lastName' | 'businessName' | 'email' | 'phone' | 'taxIdProvided' | 'address'
      >
    >;
    name: string;
    at: string;
  };
  'counterparty.deleted': { counterpartyId: string; projectId: string; at: string };

  // webhooks: endpoints (spec: Webhook endpoint and delivery). The signing key is never in an event.
  'webhookEndpoint.created': {
    webhookId: string;
    projectId: string;
    url: string;
    subscriptions: string[];
    timeoutMs: number;
    notifyThresholdSecs: number;
    description: string | null;
    createdAt: string;
  };
  'webhookEndpoint.updated': {
    webhookId: string;
    projectId: string;
    changedFields: string[];
    changes: Partial<
      Pick<
        EventPayloads['webhookEndpoint.created'],
        'url' | 'subscriptions' | 'timeoutMs' | 'notifyThresholdSecs' | 'description'
      >
    >;
    at: string;
  };
  'webhookEndpoint.enabled': {
    webhookId: string;
    projectId: string;
    previousStatus: WebhookEndpointStatus;
    at: string;
  };
  'webhookEndpoint.disabled': {
    webhookId: string;
    projectId: string;
    previousStatus: WebhookEndpointStatus;
    at: string;
  };
  /** A new signing key replaced the old one, which signs beside it for 24 hours more. */
  'webhookEndpoint.signingKeyRotated': { webhookId: string; projectId: string; at: string };
  'webhookEndpoint.deleted': { webhookId: string; projectId: string; at: string };
  /** Health (spec: Delivery and verification 4): the endpoint has failed without a success since downSince, for longer than its notifyThresholdSecs; once per down episode. */
  'webhookEndpoint.downNotified': { webhookId: string; projectId: string; downSince: string; at: string };
  /** About three days of continuous failure: set only by the service; `enable` brings it back. */
  'webhookEndpoint.suspended': {
    webhookId: string;
    projectId: string;
    previousStatus: WebhookEndpointStatus;
    downSince: string;
    at: string;
  };

  // quoting (spec: Quote; States / Quote)
  'quote.created': QuoteRecord;
  'quote.accepted': { quoteId: string; projectId: string; transactionId: string; at: string };
  /** The transaction that accepted it could not be made (across processes, ADR 0019): open again until it expires. */
  'quote.released': { quoteId: string; projectId: string; transactionId: string; at: string };

  // four eyes (docs/operators.md): an operator's money action that waits for a second operator
  'approval.requested': ApprovalRequested;
  'approval.approved': { approvalId: string; projectId: string; approvedBy: AuditActor; approvedAt: string };
  'approval.rejected': {
    approvalId: string;
    projectId: string;
    rejectedBy: AuditActor;
    reason: string | null;
    rejectedAt: string;
  };
  /** What the approved action did (it ran in the approval's transaction: an action refused leaves it pending). */
  'approval.executed': { approvalId: string; projectId: string; result: string; executedAt: string };

  // transactions (spec: Transaction; States / Transaction). Every event that moves the status or
  // sub-status carries both, as they are after it.
  'transaction.created': TransactionCreated;
  'transaction.fundsPulled': TransactionTransition & {
    walletId: string;
    postingId: string;
    asset: string;
    amount: string;
  };
  'transaction.legInitiated': TransactionTransition & { leg: TransactionLeg };
  'transaction.legSettled': TransactionTransition & {
    legId: string;
    references: LegReferences;
    settlement: LegSettlement;
  };
  /** afterSending: the transfer left and came back (returned by the bank, reverted on chain), rather than refused. */
  'transaction.legFailed': TransactionTransition & { legId: string; failure: LegFailure; afterSending?: boolean };
  'transaction.reviewStarted': TransactionTransition & { reason: string };
  'transaction.reviewCleared': TransactionTransition & { outcome: 'approved' | 'rejected' };
  'transaction.completed': TransactionTransition;
  'transaction.failed': TransactionTransition & { error: SettlementError };
  /** The money goes back to the source: the refund leg is in flight. */
  /** walletId: the source wallet credited back; null for a card buy, refunded to the card. */
  /** finalSubStatus: where the refund ends (failed.returnedToSender unless given; failed.attributionTimeout for a lapsed attribution). */
  /** retained: what an operator's partial refund of a virtual account deposit does not send back (the leg carries what is). */
  'transaction.refundInitiated': TransactionTransition & {
    leg: TransactionLeg;
    walletId: string | null;
    error: SettlementError;
    finalSubStatus?: string;
    retained?: string;
  };
  /** references: the chain's transfer of a return on a chain (docs/chain.md); absent for the ledger's and a bank's. */
  'transaction.refunded': TransactionTransition & { legId: string; error: SettlementError; references?: LegReferences };
  /** A virtual account's bank refund: the bank took the refund and has it in flight (the refund stays pending). */
  'transaction.refundAccepted': TransactionTransition & { legId: string };
  /**
   * A virtual account's bank refund that the bank reported only as initiated: the service stopped waiting and
   * holds it for an operator (processing.underReview), who completes it (complete-refund) once the bank confirms.
   */
  'transaction.refundUnconfirmed': TransactionTransition & { legId: string };
  /** The service stopped waiting for the payout's answer; the sweeper asks the provider about it. */
  'transaction.payoutUnconfirmed': TransactionTransition & { legId: string };
  /** An operator sent a held payout again, as a new leg. */
  'transaction.payoutRetried': TransactionTransition & { leg: TransactionLeg; reason: string };
  /**
   * A cash pickup's payout leg (rail `cash`) is at the retail network: the pickup code is issued and
   * the cash waits to be collected (`processing.cashPickupReady`; spec: Events, tie 7). The leg stays
   * pending until the network reports the cash collected (it settles) or the pickup expired (it fails
   * with `cashPickupExpired` and the money goes back to the source wallet).
   */
  'transaction.cashPickupReady': TransactionTransition & { legId: string; pickupCode: string };
  /**
   * The transaction waits on the partner (spec: `awaitingAction` with its `hold`): sender attribution or a payout
   * destination. destinationId: for a missing destination, the external account the payout could not go to
   * (invalidated or deleted); the deposit's origin releases the hold at once when it has another destination by
   * then (ADR 0056).
   */
  'transaction.held': TransactionTransition & { hold: TransactionHold; destinationId?: string };
  /**
   * The hold is cleared: the sender was attributed (the source's party and registered account with it),
   * or a destination was set (the transaction's destination and pricing with it).
   */
  'transaction.holdReleased': TransactionTransition & {
    code: TransactionHold['code'];
    sender?: { party: Party; externalAccountId: string };
    target?: DepositPayoutTarget | VirtualAccountTarget;
  };
  /**
   * A deposit's refund could not start: the return destination it goes to was invalidated or deleted (ADR 0056).
   * Nothing was sent and nothing is posted: the refund leg is recorded failed with why, and the money stays held
   * for an operator (processing.underReview). error: what the transaction ends with once an operator's refund
   * arrives; finalSubStatus: where that refund ends (failed.attributionTimeout after a lapsed attribution).
   */
  'transaction.refundRefused': TransactionTransition & {
    leg: TransactionLeg;
    error: SettlementError;
    finalSubStatus?: string;
  };

  // accounts: the ledger side of a transaction (ADR 0019)
  /** A posting between ledger accounts that are not wallets (transit, rails, conversion). */
  'ledger.posted': {
    projectId: string;
    transactionId: string;
    postingId: string;
    asset: string;
    entries: LedgerEntry[];
    reason: string;
    at: string;
  };
  /** The refund of a transaction reached its source wallet. */
  'funds.returned': {
    projectId: string;
    transactionId: string;
    walletId: string | null;
    postingId: string;
    amount: string;
    at: string;
  };

  // cash-in (spec: Cash-in, Cash location (read); States / Cash-in; ADR 0020). The deposit code is
  // shown to partners by design (depositInstructions.code); no payload carries anything sensitive.
  'cashIn.created': CashInCreated;
  /** POST /cash-ins/{id}/refresh: a new code valid an hour from `at`; the previous code is void. */
  'cashIn.codeRefreshed': {
    cashInId: string;
    projectId: string;
    code: string;
    expiresAt: string;
    previousExpiresAt: string;
    at: string;
  };
  /**
   * The retail partner confirmed the deposit: the cash-in is completed (`subStatus` settled) and the
   * transactions service auto-creates the `cashToCrypto` transaction `transactionId` from this event
   * alone (spec: rule 3, States / Cash-in). Appended once per cash-in; consumers key on transactionId.
   */
  'cashIn.deposited': CashInDeposited;
  /** The code lapsed with no deposit (terminal; no transaction). `expiredAt` is the code's expiresAt. */
  'cashIn.expired': { cashInId: string; projectId: string; expiredAt: string };
  /**
   * The retail network's directory (spec: Cash location (read)): one stream per location
   * (`cashLocation-<locId>`), appended by the cash-in service at start-up when a location is new or
   * changed. Belongs to no project. The quoting service projects it for cash-pickup limits by state.
   */
  'cashLocation.published': CashLocationPublished;

  // deposit-addresses (spec: Deposit address; States / Deposit address; API-CONTRACT: Deposit addresses;
  // ADR 0030). One stream per address (`depositAddress-<da_id>`): its lifecycle, each event carrying the
  // status before and after it.
  /** POST /deposit-addresses: pending, no deposit instructions yet; the simulated custodian provisions it. */
  'depositAddress.created': DepositAddressCreated;
  /** The custodian provisioned the on-chain address: active (or inactiveActionRequired, its destination lost meanwhile). */
  'depositAddress.provisioned': DepositAddressStatusChange & { depositInstructions: DepositInstructions };
  /** The custodian could not provision it: failed, terminal; it never takes deposits. */
  'depositAddress.provisioningFailed': DepositAddressStatusChange & { failure: { code: string; message: string } };
  /** The custodian locked the address: deposits to it go back to their sender. */
  'depositAddress.frozen': DepositAddressStatusChange;
  /** The custodian unlocked it: active again, or inactiveActionRequired when its destination was lost meanwhile. */
  'depositAddress.unfrozen': DepositAddressStatusChange;
  /** The custodian closed it for good: deposits to it go back to their sender. */
  'depositAddress.closed': DepositAddressStatusChange;
  /**
   * The destination bank account was deleted or turned invalid (the accounts service's events): an active
   * address is inactiveActionRequired from now on; one pending or frozen keeps its status and takes it up
   * when provisioned or unfrozen. `status` equals `previousStatus` then.
   */
  'depositAddress.destinationLost': DepositAddressStatusChange & {
    externalAccountId: string;
    reason: 'deleted' | 'invalid';
  };
  /** PATCH /deposit-addresses/{id}: what changed, each with its new value (returnDestination null: removed). */
  'depositAddress.updated': DepositAddressUpdated;
  /** A PATCH re-pointed an inactiveActionRequired address at an active bank account: active again. */
  'depositAddress.reactivated': DepositAddressStatusChange;
  // What the transactions service acts on: a deposit's own stream (`depositAddressDeposit-<txn_id>`)
  // holds its arrival and its attribution; the address's stream its destination's restoration.
  /**
   * An on-chain deposit reached a deposit address: the transactions service makes its
   * `cryptoToFiatAccount` transaction (precursor depositAddress) from this event alone, once per
   * transactionId, however often it is delivered.
   */
  'depositAddress.depositReceived': DepositAddressDepositReceived;
  /** A held deposit's sender was registered (a walletExternal of the customer or a counterparty): its hold is cleared. */
  'depositAddress.senderAttributed': DepositAddressSenderAttributed;
  /** The address has a usable destination again: every deposit held for a missing destination pays out to it. */
  'depositAddress.destinationRestored': DepositAddressDestinationRestored;

  // every service: a partner-visible event (spec: Events / Catalog), published by the service that
  // owns the resource in the transaction of the domain event that caused it, with the resource as a
  // read shows it then. The webhooks service fans these out without knowing any resource.
  'partnerEvent.published': PartnerEventPublished;
}

export interface PartnerEventPublished {
  projectId: string;
  /** The catalogue name, e.g. `externalAccount.statusChanged`. */
  event: string;
  resourceId: string;
  /** The resource stream's version after the domain event: per-resource and monotonic. */
  sequence: number;
  /** Only for the five `*.statusChanged` events. */
  previousStatus?: string | null;
  /** Only for `*.updated` events whose change names its fields (spec: Events / Catalog): which fields changed. */
  changedFields?: string[];
  /** Project time of the change. */
  occurredAt: string;
  /** The full resource, in the partner-facing shape of the current version. */
  data: Record<string, unknown>;
}

export type WebhookEndpointStatus = 'enabled' | 'disabled' | 'suspended';

export type ExternalAccountType = 'bankUs' | 'bankIban' | 'bankCanada' | 'card' | 'walletExternal';
export const EXTERNAL_ACCOUNT_TYPES: readonly ExternalAccountType[] = [
  'bankUs',
  'bankIban',
  'bankCanada',
  'card',
  'walletExternal',
];
export type ExternalAccountStatus = 'pending' | 'active' | 'failed' | 'invalid';

export interface ExternalAccountFailure {
  code: string;
  message: string;
}

/** An {asset, network} an instrument can receive (spec: rule 5). */
export interface InstrumentDestination {
  asset: string;
  network: string;
}

export interface BillingAddress {
  addressLine1: string;
  addressLine2: string | null;
  city: string;
  state: string;
  country: string;
  zipCode: string;
}

/** The instrument's details as reads and transactions show them: never a full number. */
export type ExternalAccountDetails =
  | {
      holderName: string;
      bankName: string | null;
      routingNumber: string;
      accountNumberLast4: string;
      accountType: 'checking' | 'savings';
    }
  | { holderName: string; ibanLast4: string; bic: string; countryCode: string; bankAddress: string | null }
  | {
      holderName: string;
      bankName: string | null;
      institutionNumber: string;
      transitNumber: string;
      accountNumberLast4: string;
    }
  | {
      holderName: string;
      brand: string;
      last4: string;
      expiryMonth: number;
      expiryYear: number;
      billingAddress: BillingAddress;
    }
  | { address: string; network: string; asset: string };

export type CounterpartyEntityType = 'individual' | 'business';

export interface CounterpartyAddress {
  streetAddress: string | null;
  city: string | null;
  postalCode: string | null;
  country: string | null;
}

export type EventType = keyof EventPayloads;
export type TypedEvent<T extends EventType = EventType> = { [K in T]: { type: K; data: EventPayloads[K] } }[T];

export interface ProjectFeatures {
  depositAddresses: boolean;
  cashPickup: boolean;
  globalRemittance: boolean;
  bulkPayouts: boolean;
}

export interface ProjectLimits {
  perTransactionMin?: string | null;
  perTransactionMax?: string | null;
  perTransactionMultiple?: string | null;
  dailyBankPayoutCap?: string | null;
  monthlyBankPayoutCap?: string | null;
}

export interface ProjectChanges {
  features?: Partial<ProjectFeatures>;
  limits?: ProjectLimits;
  attributionTimeoutHours?: number;
  /** USD: operator money actions on amounts at or above it wait for a second operator; null, none do. */
  fourEyesThreshold?: string | null;
}

export interface QuoteRecord {
  quoteId: string;
  projectId: string;
  customerId: string;
  sourceToDestination: Corridor;
  source: QuoteSideRecord;
  destination: QuoteSideRecord;
  sponsorGas: boolean;
  settlementType: 'internal' | 'external' | null;
  pricing: Pricing;
  metadata: Record<string, string>;
  expiresAt: string;
  createdAt: string;
  /**
   * The quote owner's name when the quote was made (not shown on the quote): a fiat payout's origin holder
   * (payoutOrigin.accountHolderName on its transaction). Absent on quotes recorded before it was kept.
   */
  customerName?: string | null;
}

/** A quote side as the partner sees it: the instrument type, its details, the amount when fixed, and the party. */
export interface QuoteSideRecord {
  type: string;
  category: 'crypto' | 'fiat' | 'cash';
  details: Record<string, unknown>;
  amount?: string;
  party: Party;
}

export type TransactionStatus = 'processing' | 'awaitingAction' | 'completed' | 'failed';

export interface TransactionTransition {
  transactionId: string;
  projectId: string;
  status: TransactionStatus;
  subStatus: string | null;
  at: string;
}

export interface TransactionCreated extends TransactionTransition {
  customerId: string;
  sourceToDestination: Corridor;
  precursor: { type: 'quote' | 'depositAddress' | 'virtualAccount' | 'cashIn'; id: string };
  source: QuoteSideRecord;
  destination: QuoteSideRecord;
  pricing: Pricing;
  settlementType: 'internal' | 'external' | null;
  metadata: Record<string, string>;
  /** The customers on either side, for `GET /transactions?customerId=`. */
  customerIds: string[];
  /**
   * The customer's name when the transaction was made: who a fiat payout comes from
   * (payoutOrigin.accountHolderName). Null or absent where it was not known, or not kept yet.
   */
  customerName?: string | null;
  /** A deposit's transaction: the payout instruction, and where a return of the crypto goes. */
  payout?: PayoutInstruction;
  /**
   * Where a return goes: a deposit address's wallet (address, network), or a virtual account's bank account
   * (address null, network: the rail). kind: the origin's return destination, or back to the sender (absent on
   * transactions recorded before it was kept).
   */
  returnTo?: ReturnTo;
}

/** Where a deposit's refund goes (TransactionCreated.returnTo). */
export interface ReturnTo {
  address: string | null;
  network: string;
  externalAccountId: string | null;
  kind?: 'returnDestination' | 'sender';
}

/** spec: Transaction `hold`, present only while `awaitingAction`. */
export interface TransactionHold {
  code: 'senderAttribution' | 'payoutDestinationMissing';
  /** A fixed sentence naming no provider. */
  message: string;
  /** senderAttribution only: when the attribution timeout ends the wait. */
  deadline?: string;
  /** senderAttribution only: the sending wallet to register. */
  match?: { address: string; network: string };
}

/** One transfer of a transaction (spec: Transaction, legs). */
export interface TransactionLeg {
  id: string;
  /** deposit: money coming in (a card charge); payout: money going out; refund: back to the source. */
  kind: 'deposit' | 'payout' | 'refund';
  rail: string;
  asset: string;
  network: string;
  amount: string;
  status: 'pending' | 'settled' | 'failed';
  txHash: string | null;
  imad: string | null;
  uetr: string | null;
  endToEndId: string | null;
  failure: LegFailure | null;
  initiatedAt: string;
  settledAt: string | null;
  /** An operator's retry: the leg it sends again. */
  retryOf?: string;
  /** A cash pickup's payout: the code the recipient collects the cash with, once the network issued it. */
  pickupCode?: string | null;
  /** An incoming wire's instruction id (a virtual account deposit by internationalWire). */
  instructionId?: string | null;
}

export interface LegReferences {
  txHash?: string;
  imad?: string;
  uetr?: string;
  endToEndId?: string;
  /** An incoming international wire's instruction id (spec: Transaction legs). */
  instructionId?: string;
}

export interface LegFailure {
  code: string;
  message: string;
}

/** spec: Transaction `error`. */
export interface SettlementError {
  code: string;
  message: string;
  occurredAt: string;
  recoverable: boolean;
  recovery?: string;
  refund?: { status: 'pending' | 'completed'; amount: string; asset: string };
}

/** What the ledger posts when a leg settles (ADR 0019): the money in transit, and what left or arrived for it. */
export interface LegSettlement {
  kind: 'deposit' | 'payout';
  /** The transaction's transit account holds this (after a deposit) or held it (before a payout). */
  transitAsset: string;
  transitAmount: string;
  /** The rail side: what left the service on a payout, what arrived on a deposit. */
  railAsset: string;
  railAmount: string;
  network: string;
  /** A payout to a custodial wallet credits it; any other payout leaves for the rail. */
  walletId: string | null;
}

/** Cash flows a retail location supports (spec: Endpoints, `flow`): cash-in deposits, cash pickup. */
export type CashFlow = 'cash_in' | 'cash_out';
export const CASH_FLOWS: readonly CashFlow[] = ['cash_in', 'cash_out'];

/** A retail location's street address (API-CONTRACT: Cash locations). `state` is the US state code. */
export interface CashLocationAddress {
  line1: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

export interface CashLocationPublished {
  /** loc_ */
  locId: string;
  /** The retailer's own store reference; becomes `cash.locationReference` / `cashLocationReference`. */
  cashLocationReference: string;
  name: string;
  /** The retail network's provider id (lowercase), e.g. `bigmart`. */
  provider: string;
  address: CashLocationAddress;
  latitude: number;
  longitude: number;
  flows: CashFlow[];
  /** Wall-clock time of publication (locations belong to no project, so to no project clock). */
  publishedAt: string;
}

/** Where a cash-in's location is, as the cash-in recorded it when created. */
export interface CashInLocation {
  locId: string;
  reference: string;
  name: string;
  provider: string;
  /** The address's state, repeated for consumers that only need it (cash limits by state). */
  state: string;
  address: CashLocationAddress;
}

/**
 * Where the crypto of a cash-in goes: exactly one of a custodial wallet of the customer (walletId),
 * a registered walletExternal of the customer (externalAccountId), or a bare address (both null).
 * `blockchainAddress` is always the address the crypto is sent to.
 */
export interface CashInDestination {
  asset: string;
  network: string;
  walletId: string | null;
  externalAccountId: string | null;
  blockchainAddress: string;
}

export interface CashInCreated {
  cashInId: string;
  projectId: string;
  customerId: string;
  /** source.indicatedAmount in usd, or null: then the cash-in carries no estimates. */
  indicatedAmount: string | null;
  /** The estimate from indicatedAmount at the rate of creation (fees 0.00), or null. */
  estimate: Pricing | null;
  rates: { pair: string; exchangeRate: string; effectiveRate: string };
  destination: CashInDestination;
  location: CashInLocation;
  sponsorGas: boolean;
  /** Two groups of three digits separated by a space, e.g. `123 456`. */
  code: string;
  expiresAt: string;
  metadata: Record<string, string>;
  createdAt: string;
}

/**
 * The deposit of a cash-in, with everything the transactions service needs to auto-create its
 * transaction (spec: rule 3: `cashToCrypto`, precursor `{type: cashIn, id: cashInId}`, source type
 * `cash`, starting `processing`), without reading the cash-in service.
 */
export interface CashInDeposited {
  cashInId: string;
  projectId: string;
  customerId: string;
  /** `txn_` + the cash-in TypeID's body: one transaction per cash-in, whoever creates it. */
  transactionId: string;
  /** The cash the retail partner confirmed. */
  deposit: { asset: 'usd'; amount: string };
  destination: CashInDestination;
  /** Recalculated on the actual deposit: source usd, destination the crypto; fixedAmountSide source. */
  pricing: Pricing;
  location: CashInLocation;
  /** The partner's metadata of the cash-in. */
  metadata: Record<string, string>;
  /** Project time of the deposit (the cash-in's completedAt). */
  at: string;
}

/** How a deposit address pays out (API-CONTRACT: Deposit addresses): the rail, and ACH's optional fields. */
export interface PayoutInstruction {
  /** One of the destination account's payout networks: ach, achSameDay, wire, swift, local. */
  rail: string;
  secCode?: string;
  companyDiscretionaryData?: string;
}

/**
 * Where a deposit's money goes and at what price: the bank account's side as a quote's destination is
 * (type of the external account, category fiat, details {id, asset, network: the rail, accountHolder,
 * last4?}, party), the payout instruction, and the pricing of the deposit's amount to it (source usdc,
 * fixed on the source side, exactly as a quote would price it).
 */
export interface DepositPayoutTarget {
  destination: QuoteSideRecord;
  payout: PayoutInstruction;
  pricing: Pricing;
}

/**
 * What becomes of a deposit when it arrives: paid out (after compliance review when the amount calls for
 * it), held for sender attribution, held for a destination (the address is inactiveActionRequired), or
 * returned to the sender (the address is frozen or closed).
 */
export type DepositDisposition = 'payout' | 'awaitingSenderAttribution' | 'payoutDestinationMissing' | 'returnToSender';

export interface DepositAddressDepositReceived {
  depositAddressId: string;
  projectId: string;
  customerId: string;
  /** The deposit's transaction (a fresh txn_ id the deposit-addresses service records with the deposit). */
  transactionId: string;
  /** The on-chain transfer into the address. */
  deposit: { asset: string; network: string; amount: string; address: string; senderAddress: string; txHash: string };
  /** Who sent it: the customer (its own registered walletExternal), a registered counterparty, or unregistered. */
  sender: Party;
  /** The registered walletExternal the sender address is, when it is one. */
  senderExternalAccountId: string | null;
  disposition: DepositDisposition;
  /** The address's destination now; while it is inactiveActionRequired, the last one it had (the deposit waits for a new one). */
  target: DepositPayoutTarget;
  /** Where a return goes: the address's returnDestination wallet, else the sender. Same asset and network as the deposit. */
  returnTo: {
    address: string;
    network: string;
    externalAccountId: string | null;
    kind?: 'returnDestination' | 'sender';
  };
  /** The senderAttribution hold's deadline (project time), set when the disposition is awaitingSenderAttribution. */
  attributionDeadline: string | null;
  /** The address's metadata when the deposit arrived (the partner's own keys). */
  metadata: Record<string, string>;
  /** The customer's name as the address keeps it: the payout's origin holder. Absent on deposits recorded before it was sent. */
  customerName?: string;
  /** Project time of the deposit. */
  at: string;
}

export interface DepositAddressSenderAttributed {
  depositAddressId: string;
  projectId: string;
  transactionId: string;
  /** The registered walletExternal the sender turned out to be, and who holds it. */
  externalAccountId: string;
  sender: Party;
  /** The address's destination as of now (it may have been re-pointed since the deposit). */
  target: DepositPayoutTarget;
  /** The address is inactiveActionRequired now: the deposit goes on to wait for a destination. */
  destinationMissing: boolean;
  at: string;
}

export interface DepositAddressDestinationRestored {
  depositAddressId: string;
  projectId: string;
  /** Each deposit held for a missing destination, with its payout to the new destination. */
  releases: Array<{ transactionId: string; target: DepositPayoutTarget }>;
  at: string;
}

/** spec: Deposit address, States: statuses seen. */
export type DepositAddressStatus = 'pending' | 'active' | 'inactiveActionRequired' | 'frozen' | 'closed' | 'failed';

/** Where deposits to an address are sent on chain, once provisioned. */
export interface DepositInstructions {
  address: string;
  asset: string;
  network: string;
}

/**
 * A registered external account as a deposit address names it (the v1 instrument
 * `{type, id, asset, network, owner, details}`): the destination bank account (asset and network: the
 * payout's currency and rail) or the return wallet; `owner` the customer or the counterparty that holds
 * it; `details` as a read of the account shows them.
 */
export interface DepositAddressInstrument {
  type: ExternalAccountType;
  id: string;
  asset: string;
  network: string;
  owner: { kind: 'customer' | 'counterparty'; id: string; name: string };
  details: ExternalAccountDetails;
}

/** The destination as the address keeps it: the instrument, who receives the payout, and the rails the account takes. */
export interface DepositAddressDestination {
  instrument: DepositAddressInstrument;
  party: Party;
  supportedDestinations: InstrumentDestination[];
}

export interface DepositAddressCreated {
  depositAddressId: string;
  projectId: string;
  customerId: string;
  /** The customer's name when the address was made: the payout's origin (payoutOrigin.accountHolderName). */
  customerName: string;
  expectedSourceAsset: string;
  expectedSourceNetwork: string;
  destination: DepositAddressDestination;
  payout: PayoutInstruction;
  returnDestination: DepositAddressInstrument | null;
  /** As the request gave them; null when it did not (the response then leaves the field out). */
  requiresCounterpartyWalletRegistration: boolean | null;
  sponsorGas: boolean | null;
  label: string | null;
  metadata: Record<string, string>;
  createdAt: string;
}

export interface DepositAddressStatusChange {
  depositAddressId: string;
  projectId: string;
  previousStatus: DepositAddressStatus;
  status: DepositAddressStatus;
  at: string;
}

export type DepositAddressField = 'destination' | 'payout' | 'returnDestination' | 'label' | 'metadata';

export interface DepositAddressUpdated {
  depositAddressId: string;
  projectId: string;
  changedFields: DepositAddressField[];
  destination?: DepositAddressDestination;
  payout?: PayoutInstruction;
  returnDestination?: DepositAddressInstrument | null;
  label?: string | null;
  metadata?: Record<string, string>;
  at: string;
}

/** The operator money actions that may wait for a second operator (docs/operators.md, Four eyes). */
export type ApprovalAction = 'retry' | 'refund' | 'markFailed' | 'completeRefund';

export interface ApprovalRequested {
  approvalId: string;
  projectId: string;
  transactionId: string;
  action: ApprovalAction;
  /** The action's own fields, as the requester sent them. */
  params: { reason: string | null; amount?: string; to?: 'returnDestination' | 'sender' };
  /** What the action is worth in USD, and the project's threshold it met. */
  value: string;
  threshold: string;
  requestedBy: AuditActor;
  requestedAt: string;
  expiresAt: string;
}
