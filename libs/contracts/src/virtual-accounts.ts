// Virtual accounts (spec: Virtual account; States / Virtual account; Events, ties 3 to 5;
// API-CONTRACT: Virtual accounts). The virtual-accounts service owns the accounts and records each
// inbound bank transfer; the transactions service makes and runs the transfer's transaction. The two
// meet in `virtualAccount.depositReceived` and the transactions port (createForVirtualAccount,
// unfinishedTransactions). The service's own lifecycle events join this map too.
import type { PayoutInstruction, QuoteSideRecord } from './events';
import type { Pricing } from './ports';

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
  /** Project time of the deposit. */
  at: string;
}

/** Events of the virtual-accounts service that other services act on (joined into EventPayloads). */
export interface VirtualAccountEventPayloads {
  /**
   * An inbound bank transfer reached a virtual account: the transactions service makes its
   * `fiatAccountToCrypto` transaction (precursor virtualAccount) from this event alone, once per
   * transactionId, however often it is delivered.
   */
  'virtualAccount.depositReceived': VirtualAccountDepositReceived;
}
