// Virtual accounts (spec: Virtual account; States / Virtual account; Events, ties 3 to 5;
// API-CONTRACT: Virtual accounts). The virtual-accounts service owns the accounts and records each
// inbound bank transfer; the transactions service makes and runs the transfer's transaction. The two
// meet in `virtualAccount.depositReceived` and the transactions port (createForVirtualAccount,
// unfinishedTransactions). The service's own lifecycle events join this map too.
import type { InstrumentDestination, PayoutInstruction, QuoteSideRecord } from './events';
import type { Party, Pricing } from './ports';

/** The rails an inbound transfer reaches a virtual account on (API-CONTRACT: simulate inbound-transfer). */
export type InboundRail = 'ach' | 'wire' | 'internationalWire';
export const INBOUND_RAILS: readonly InboundRail[] = ['ach', 'wire', 'internationalWire'];

/**
 * What becomes of an inbound transfer when it arrives: delivered to the account's destination (after
 * compliance review when the amount calls for it), or sent back to the sender by the bank because the
 * account no longer takes deposits (frozen, closed, deleting or deleted).
 */
export type VirtualAccountDisposition = 'deliver' | 'returnToSender';

/** Where a virtual account deposit's money goes and at what price (source usd, fixed on the source side). */
export interface VirtualAccountTarget {
  /** The destination as a transaction's side: walletExternal, walletOms, or the bank account (category fiat, network: the payout rail). */
  destination: QuoteSideRecord;
  /** A bank destination's payout instruction; null for a wallet. */
  payout: PayoutInstruction | null;
  pricing: Pricing;
}

/** Where a refund of the deposit goes: the returnDestination bank account on returnPayout.rail, else back to the sender on the inbound rail. */
export interface VirtualAccountReturnTo {
  externalAccountId: string | null;
  /** The bank rail the refund is sent on (ach, achSameDay, wire, or the inbound rail when it goes back to the sender). */
  rail: string;
}

export interface VirtualAccountDepositReceived {
  virtualAccountId: string;
  projectId: string;
  customerId: string;
  /** The deposit's transaction (a fresh txn_ id the virtual-accounts service records with the deposit). */
  transactionId: string;
  /**
   * The inbound bank transfer: always usd; the rail it came on; the sender's name as the bank reported it
   * (null when none); the bank's reference (an ACH trace number, or a wire's IMAD or an international
   * wire's instruction id).
   */
  deposit: { asset: 'usd'; rail: InboundRail; amount: string; senderName: string | null; reference: string };
  disposition: VirtualAccountDisposition;
  /** The account's destination when the deposit arrived, and the deposit priced to it. */
  target: VirtualAccountTarget;
  returnTo: VirtualAccountReturnTo;
  /** The account's metadata when the deposit arrived (the partner's own keys). */
  metadata: Record<string, string>;
  /** The customer's name as the account keeps it: a bank payout's origin holder. Absent on deposits recorded before it was sent. */
  customerName?: string;
  /** Project time of the deposit. */
  at: string;
}

/** spec: States / Virtual account, statuses seen. */
export type VirtualAccountStatus = 'pending' | 'active' | 'frozen' | 'closed' | 'deleting' | 'deleted' | 'failed';

/** The statuses a DELETE is taken from: the account exists at the bank (ADR 0032). */
export const VIRTUAL_ACCOUNT_DELETABLE: readonly VirtualAccountStatus[] = ['active', 'frozen', 'closed'];

/** The bank rails a virtual account's bank destination is paid on, and a refund goes back on (bankUs). */
export const VIRTUAL_ACCOUNT_PAYOUT_RAILS = ['ach', 'achSameDay', 'wire'] as const;

/**
 * An instrument as a virtual account names it (the v1 instrument `{type, id, asset, network, owner, details}`):
 * a walletExternal (asset usdc on its network), a custodial wallet (walletOms, details {address}), or a
 * bank account (asset usd, network the payout rail; details as a read of the account shows them).
 */
export interface VirtualAccountInstrument {
  type: string;
  id: string;
  asset: string;
  network: string;
  owner: { kind: 'customer' | 'counterparty'; id: string; name: string };
  details: Record<string, unknown>;
}

/**
 * The destination as the account keeps it: the instrument, who receives what is delivered, a bank
 * account's payout instruction (null for a wallet) and the rails the bank account takes (empty for a wallet).
 */
export interface VirtualAccountDestination {
  instrument: VirtualAccountInstrument;
  party: Party;
  payout: PayoutInstruction | null;
  supportedDestinations: InstrumentDestination[];
}

/** Where refunds go: a bank account of the customer or a counterparty, on one of its rails. */
export interface VirtualAccountReturnDestination {
  instrument: VirtualAccountInstrument;
  rail: string;
  supportedDestinations: InstrumentDestination[];
}

/** The account's own deposit details, from the bank that holds it (shown to its project in full; never logged). */
export interface VirtualAccountBankDetails {
  bankName: string;
  accountHolderName: string;
  accountNumber: string;
  routingNumber: string;
  bic: string;
}

export interface VirtualAccountCreated {
  virtualAccountId: string;
  projectId: string;
  customerId: string;
  /** The customer's name when the account was made: the bank account's holder. */
  customerName: string;
  /** The rail the partner expects (source.network); deposits are taken on every supported source. */
  sourceNetwork: InboundRail;
  destination: VirtualAccountDestination;
  returnDestination: VirtualAccountReturnDestination | null;
  /** As the request gave it; shown only when true. */
  sponsorGas: boolean | null;
  label: string | null;
  metadata: Record<string, string>;
  createdAt: string;
}

export interface VirtualAccountStatusChange {
  virtualAccountId: string;
  projectId: string;
  previousStatus: VirtualAccountStatus;
  status: VirtualAccountStatus;
  at: string;
}

export type VirtualAccountField = 'destination' | 'returnDestination' | 'returnPayout' | 'label' | 'metadata';

export interface VirtualAccountUpdated {
  virtualAccountId: string;
  projectId: string;
  changedFields: VirtualAccountField[];
  destination?: VirtualAccountDestination;
  /** null: removed (refunds then go back to the sender on the inbound rail). */
  returnDestination?: VirtualAccountReturnDestination | null;
  label?: string | null;
  metadata?: Record<string, string>;
  at: string;
}

/** Events of the virtual-accounts service (joined into EventPayloads). */
export interface VirtualAccountEventPayloads {
  // The account's own stream (`virtualAccount-<va_id>`), each status change with the status before it.
  /** POST /virtual-accounts: pending, bankDetails null; the simulated bank provisions it. */
  'virtualAccount.created': VirtualAccountCreated;
  /** The bank opened the deposit account: active, with its bank details. */
  'virtualAccount.provisioned': VirtualAccountStatusChange & { bankDetails: VirtualAccountBankDetails };
  /** The bank could not open it: failed, terminal; it never takes deposits. */
  'virtualAccount.provisioningFailed': VirtualAccountStatusChange & { failure: { code: string; message: string } };
  /** The bank froze the account: deposits to it are returned to their sender. */
  'virtualAccount.frozen': VirtualAccountStatusChange;
  /** The bank unfroze it: active again. */
  'virtualAccount.unfrozen': VirtualAccountStatusChange;
  /** The bank closed it: deposits to it are returned to their sender. */
  'virtualAccount.closed': VirtualAccountStatusChange;
  /** PATCH /virtual-accounts/{id}: what changed, each with its new value. */
  'virtualAccount.updated': VirtualAccountUpdated;
  /**
   * DELETE accepted: deleting, deletionRequestedAt set; the bank is asked to close the account and a
   * sweeper is due on the project clock (ADR 0032).
   */
  'virtualAccount.deletionRequested': VirtualAccountStatusChange & { deletionRequestedAt: string };
  /** The bank could not close the account now (temporary): the status before the delete is back. */
  'virtualAccount.deletionRestored': VirtualAccountStatusChange & { reason: string };
  /** The bank closed the account: deleted, terminal. `by`: its answer, or the sweeper that read the bank's account. */
  'virtualAccount.deleted': VirtualAccountStatusChange & { by: 'bank' | 'sweeper' };
  /** The bank refused to close the account: failed, terminal. */
  'virtualAccount.closeRefused': VirtualAccountStatusChange & { failure: { code: string; message: string } };

  /**
   * An inbound bank transfer reached a virtual account: the transactions service makes its
   * `fiatAccountToCrypto` transaction (precursor virtualAccount) from this event alone, once per
   * transactionId, however often it is delivered.
   */
  'virtualAccount.depositReceived': VirtualAccountDepositReceived;
  /**
   * Deposits whose transactions wait for a destination (awaitingAction.payoutDestinationMissing) are released
   * to the account's destination as it is now, each priced to it: a PATCH gave the account a new destination,
   * or a deposit was held for one the account had already replaced (ADR 0056).
   */
  'virtualAccount.destinationRestored': VirtualAccountDestinationRestored;
}

export interface VirtualAccountDestinationRestored {
  virtualAccountId: string;
  projectId: string;
  releases: Array<{ transactionId: string; target: VirtualAccountTarget }>;
  at: string;
}
