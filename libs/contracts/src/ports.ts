// Synchronous ports between services (ADR 0019). Services otherwise talk only
// through events; where one needs an answer from another at once (the
// instruments of a quote, accepting a quote exactly once, pulling a wallet's
// funds before a transaction exists) it calls a port declared here. In one
// process the owning service implements it directly, joining the caller's
// database transaction; across processes an HTTP client posts to the owner's
// internal route, with every call idempotent on the ids it carries. A port says
// what is asked, never how: what one process saves in round trips is its
// in-process adapter's business (the runtime's ports module).
import {
  EXTERNAL_ACCOUNT_TYPES,
  type EndorsementName,
  type EndorsementStatus,
  type DepositAddressDepositReceived,
  type EventPayloads,
  type ExternalAccountDetails,
  type ExternalAccountFailure,
  type ExternalAccountStatus,
  type ExternalAccountType,
  type InstrumentDestination,
  type ProjectFeatures,
  type ProjectLimits,
} from './events';
import type { ServiceName } from './services';
import type { VirtualAccountDepositReceived } from './virtual-accounts';

/** Who is on one side of a quote or transaction (spec: Party). */
export type Party =
  | { relationship: 'customer'; customerId: string; entityType: 'individual' }
  | { relationship: 'otherCustomer'; customerId: string; entityType: 'individual' }
  | {
      relationship: 'externalRegistered';
      counterpartyId: string | null;
      entityType: 'individual' | 'business';
      name: string | null;
    }
  | { relationship: 'externalUnregistered' };

export interface CustomerView {
  id: string;
  entityType: 'individual';
  /** First and last name, as the customer was registered. */
  name: string;
  /** The customer's endorsements as of now (a cash-in needs an active `usd` one). */
  endorsements: Array<{ name: EndorsementName; status: EndorsementStatus }>;
}

export interface WalletView {
  id: string;
  customerId: string;
  asset: string;
  network: string;
  address: string;
}

export interface ExternalAccountView {
  id: string;
  customerId: string;
  /** The customer's name (the holder when no counterparty owns the account). */
  customerName: string;
  counterpartyId: string | null;
  counterpartyEntityType: 'individual' | 'business' | null;
  counterpartyName: string | null;
  type: ExternalAccountType;
  status: ExternalAccountStatus;
  /** Why it is failed or invalid (the provider's or the screening's code); null while it is usable. */
  failure: ExternalAccountFailure | null;
  details: ExternalAccountDetails;
  supportedDestinations: InstrumentDestination[];
}

export interface PullFundsRequest {
  /** The reservation key: a wallet is debited once per transaction, however often this is called. */
  transactionId: string;
  walletId: string;
  amount: string;
  at: string;
}

export interface PullFundsResult {
  postingId: string;
  /** The wallet's balance after the pull. */
  balance: string;
}

/** The accounts service: customers, wallets, external accounts and the ledger. Errors are ApiErrors. */
export abstract class AccountsPort {
  abstract customer(projectId: string, customerId: string): Promise<CustomerView>;
  abstract wallet(projectId: string, walletId: string): Promise<WalletView>;
  /** ExternalAccountNotFound for one this project does not have, or has deleted. */
  abstract externalAccount(projectId: string, externalAccountId: string): Promise<ExternalAccountView>;
  /** Moves the amount from the wallet to the transaction's transit account, or refuses with InsufficientFunds. */
  abstract pullFunds(projectId: string, request: PullFundsRequest): Promise<PullFundsResult>;
  /**
   * The active walletExternal registered for the customer or one of its counterparties at this address
   * (compared case-insensitively) on this network, or null: who sent a deposit (ADR 0030).
   */
  abstract registeredWallet(
    projectId: string,
    customerId: string,
    network: string,
    address: string,
  ): Promise<ExternalAccountView | null>;
}

/** One side of a quote as the transaction takes it over. */
export interface QuoteSide {
  type: string;
  category: 'crypto' | 'fiat' | 'cash';
  details: Record<string, unknown>;
  party: Party;
}

/**
 * The registered external account a quote's (or its transaction's) side names, if any: a bank
 * account or an external wallet by `details.id`, a card by `details.externalAccountId`. Custodial
 * wallets and cash name none.
 */
export function sideExternalAccountId(side: Pick<QuoteSide, 'type' | 'details'>): string | undefined {
  if (!(EXTERNAL_ACCOUNT_TYPES as readonly string[]).includes(side.type)) return undefined;
  const id = side.type === 'card' ? side.details.externalAccountId : side.details.id;
  return typeof id === 'string' ? id : undefined;
}

export interface PricingSide {
  asset: string;
  amountGross: string;
  amountNet: string;
  feesDeducted: Record<string, string>;
}

export interface Pricing {
  source: PricingSide;
  destination: PricingSide;
  pair: string;
  exchangeRate: string;
  effectiveRate: string;
  fixedAmountSide: 'source' | 'destination';
  sponsorGas: boolean;
  sponsorGasCost: string;
}

export type Corridor =
  'cryptoToCrypto' | 'cryptoToCash' | 'cryptoToFiatAccount' | 'cashToCrypto' | 'fiatAccountToCrypto';

/** An accepted quote: what a transaction is made from. */
export interface AcceptedQuote {
  quoteId: string;
  customerId: string;
  sourceToDestination: Corridor;
  source: QuoteSide;
  destination: QuoteSide;
  pricing: Pricing;
  settlementType: 'internal' | 'external' | null;
  metadata: Record<string, string>;
  /** The quote owner's name, the holder of a fiat payout's origin; null when the quote did not keep it. */
  customerName: string | null;
  /**
   * This call accepted the quote (false: it had been accepted for this transaction before, a repeat). A
   * quote accepted now has no transaction yet: only the caller that accepted it makes that transaction first.
   */
  acceptedNow: boolean;
}

export interface AcceptQuoteRequest {
  quoteId: string;
  /** Accepting again for the same transaction answers the same quote. */
  transactionId: string;
  at: string;
}

/** The quoting service. */
export abstract class QuotesPort {
  /**
   * Accepts an open quote for this transaction, or refuses (QuoteNotFound, QuoteExpired, QuoteAlreadyAccepted,
   * or ExternalAccountNotActive when an external account it names was invalidated or deleted since).
   */
  abstract accept(projectId: string, request: AcceptQuoteRequest): Promise<AcceptedQuote>;
  /** Undoes an acceptance whose transaction could not be made (it was refused after the quote was accepted). */
  abstract release(projectId: string, request: AcceptQuoteRequest): Promise<void>;
}

/** A project as the gateway, which owns it, knows it now. */
export interface ProjectSettings {
  projectId: string;
  features: ProjectFeatures;
  limits: ProjectLimits;
  /** Hours a deposit waits for its sender to be registered (spec: the attribution timeout; default 72). */
  attributionTimeoutHours: number;
  /** USD: operator money actions on amounts at or above it wait for a second operator; null, none do. */
  fourEyesThreshold: string | null;
}

/** Who acted on an operator route (docs/operators.md): their IdP's subject and name, and their role. */
export interface AuditActor {
  subject: string;
  name: string;
  role: string;
  /** `sso` for a signed-in operator, `admin-token` for the static token (break-glass). */
  via: string;
}

/**
 * One entry of the operators' audit log, as the process that served the route records it: `request` before it
 * acts (an action whose request cannot be recorded is refused), `response` once it answered, naming the request
 * entry it completes.
 */
export interface AuditEntryInput {
  phase: 'request' | 'response';
  /** On a response entry: the request entry it completes. */
  requestEntryId?: string;
  actor: AuditActor;
  /** The route, as `METHOD /v0.13/admin/...` with its pattern (`:id`), which names the action. */
  action: string;
  targetType: string;
  targetId: string | null;
  reason: string | null;
  requestId: string;
  sourceAddress: string | null;
  /** The request's body, its secrets removed. */
  request: unknown;
  /** On a response entry: its status. */
  status: number | null;
  /** What the target was before the action, where the route read it; null otherwise. */
  before: unknown;
  /** On a response entry: its body, secrets removed. */
  after: unknown;
}

/**
 * The gateway, which owns projects and API keys. Its events reach other services a moment after the
 * operator's command was answered; a decision that must follow the operator's last answer (a feature
 * turned off or on, a limit lowered or raised, a key revoked) is asked here where it is made (ADR 0057).
 */
export abstract class GatewayPort {
  /** The project's features and limits as they are now; ProjectNotFound for an unknown one. */
  abstract project(projectId: string): Promise<ProjectSettings>;
  /** Whether the API key may be used now for the project: it exists, is of that project and is not revoked. */
  abstract apiKeyActive(apiKey: string, projectId: string): Promise<boolean>;
  /** Appends an entry to the operators' audit log, chained to the one before it; answers its id. */
  abstract appendAudit(entry: AuditEntryInput): Promise<{ id: string }>;
}

/** The transaction a confirmed cash deposit makes (spec: rule 3), created at once by the transactions service. */
export type CashInTransactionRequest = EventPayloads['cashIn.deposited'];

/** The transactions service. */
export abstract class TransactionsPort {
  /**
   * Creates the cash-in's transaction (its id is the cash-in's own), or finds it made already: the cash-in
   * announces the id only once the transaction exists, so a partner who follows it never meets a 404.
   */
  abstract createForCashIn(projectId: string, deposit: CashInTransactionRequest): Promise<{ transactionId: string }>;
  /**
   * Creates a deposit address deposit's transaction, or finds it made: the deposit-addresses service
   * answers the simulated deposit with the transaction id only once it exists.
   */
  abstract createForDepositAddress(
    projectId: string,
    deposit: DepositAddressDepositReceived,
  ): Promise<{ transactionId: string }>;
  /**
   * Creates a virtual account deposit's transaction, or finds it made: the virtual-accounts service
   * answers the simulated inbound transfer with the transaction id only once it exists.
   */
  abstract createForVirtualAccount(
    projectId: string,
    deposit: VirtualAccountDepositReceived,
  ): Promise<{ transactionId: string }>;
  /**
   * Of these transactions, those that still hold money or may still move it: not yet made, processing,
   * awaitingAction, or failed with the money held for an operator (failed.outboundFailed). A virtual
   * account with any is not deleted (VirtualAccountNotEmpty).
   */
  abstract unfinishedTransactions(projectId: string, transactionIds: string[]): Promise<string[]>;
  /**
   * Of these transactions, those that wait for a payout destination (awaitingAction.payoutDestinationMissing):
   * the deposits a new destination releases, whichever service held them (ADR 0056).
   */
  abstract heldForDestination(projectId: string, transactionIds: string[]): Promise<string[]>;
}

/**
 * Which services call each owner's port (ADR 0019): what distributed mode wires as HTTP clients, and what
 * the Kubernetes NetworkPolicies admit besides the gateway.
 */
export const PORT_CALLERS: Record<ServiceName, readonly ServiceName[]> = {
  // Every service: each asks whether an API key is still active for a request that did not come through the gateway.
  gateway: ['accounts', 'quoting', 'transactions', 'webhooks', 'cash-in', 'deposit-addresses', 'virtual-accounts'],
  accounts: ['quoting', 'transactions', 'cash-in', 'deposit-addresses', 'virtual-accounts'],
  quoting: ['transactions'],
  transactions: ['cash-in', 'deposit-addresses', 'virtual-accounts'],
  webhooks: [],
  'cash-in': [],
  'deposit-addresses': [],
  'virtual-accounts': [],
};

/** The internal routes behind the ports, under the base path; the gateway never forwards them. */
export const PORT_ROUTES = {
  gateway: {
    project: 'internal/gateway/project',
    apiKeyActive: 'internal/gateway/api-key',
    appendAudit: 'internal/gateway/audit-entries',
  },
  transactions: {
    createForCashIn: 'internal/transactions/cash-in',
    createForDepositAddress: 'internal/transactions/deposit-address',
    createForVirtualAccount: 'internal/transactions/virtual-account',
    unfinishedTransactions: 'internal/transactions/unfinished',
    heldForDestination: 'internal/transactions/held-for-destination',
  },
  accounts: {
    customer: 'internal/accounts/customer',
    wallet: 'internal/accounts/wallet',
    externalAccount: 'internal/accounts/external-account',
    pullFunds: 'internal/accounts/pull-funds',
    registeredWallet: 'internal/accounts/registered-wallet',
  },
  quoting: {
    accept: 'internal/quoting/accept',
    release: 'internal/quoting/release',
  },
} as const;
