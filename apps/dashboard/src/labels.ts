// The words the page shows for the API's values: statuses, sub-statuses, kinds, instrument types and rails
// read as English, and ids shortened to their prefix and last four characters. The raw value stays one
// hover (title) or one copy away, so that a partner can still match it against the API reference.

const WORDS: Record<string, string> = {
  // Transaction kinds (spec: Transactions, sourceToDestination).
  cryptoToCrypto: 'Crypto to crypto',
  cryptoToCash: 'Crypto to cash pickup',
  cryptoToFiatAccount: 'Crypto to bank account',
  cashToCrypto: 'Cash to crypto',
  fiatAccountToCrypto: 'Bank account to crypto',
  // Instrument types.
  walletOms: 'Wallet',
  walletCrypto: 'Crypto wallet',
  walletExternal: 'External wallet',
  bankUs: 'US bank account',
  bankIban: 'IBAN bank account',
  bankCanada: 'Canadian bank account',
  card: 'Card',
  cash: 'Cash',
  virtualAccount: 'Virtual account',
  depositAddress: 'Deposit address',
  cashIn: 'Cash-in',
  quote: 'Quote',
  // Rails.
  ach: 'ACH',
  achSameDay: 'Same-day ACH',
  wire: 'Wire',
  swift: 'SWIFT',
  internationalWire: 'International wire',
  local: 'Local transfer',
  crypto: 'On chain',
  // Statuses whose camel case would read oddly.
  awaitingAction: 'Awaiting action',
  inactiveActionRequired: 'Inactive, action required',
  // Sub-statuses (spec: Transactions, the closed set), without their status prefix.
  fundsPulled: 'Funds pulled',
  underReview: 'Under review',
  payoutRetrying: 'Payout retrying',
  payoutUnconfirmed: 'Payout unconfirmed',
  returningToSender: 'Returning to sender',
  awaitingCryptoOut: 'Awaiting crypto out',
  cashPickupReady: 'Cash pickup ready',
  cashPickupCollected: 'Cash pickup collected',
  cashPickupExpired: 'Cash pickup expired',
  awaitingSenderAttribution: 'Awaiting sender attribution',
  payoutDestinationMissing: 'Payout destination missing',
  attributionTimeout: 'Attribution timed out',
  returnedToSender: 'Returned to sender',
  providerDeclined: 'Provider declined',
  outboundFailed: 'Payout failed',
  inboundFailed: 'Deposit failed',
};

/** "processing.payoutUnconfirmed" → "Payout unconfirmed"; "cryptoToFiatAccount" → "Crypto to bank account". */
export function label(value: string | null | undefined): string {
  if (!value) return '—';
  const last = value.includes('.') ? value.slice(value.lastIndexOf('.') + 1) : value;
  const known = WORDS[last];
  if (known) return known;
  // Anything else: its camel case as words, the first capitalised ("already_completed" → "Already completed").
  const words = last
    .replace(/_/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A TypeID (prefix, underscore, 26 characters) as its prefix and last four: "cst_…abcd"; a leg's id (its
 * transaction's and a number) keeps its number: "txn_…abcd.1". Anything else as it is.
 */
export function shortId(id: string): string {
  const match = /^([a-z]+)_([0-9a-z]{26})(\.\d+)?$/.exec(id);
  return match ? `${match[1]}_…${match[2].slice(-4)}${match[3] ?? ''}` : id;
}

/** How long ago, in the largest whole unit: "3 min", "2 h", "4 d" (never negative). */
export function age(sinceIso: string, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((nowMs - new Date(sinceIso).getTime()) / 1000));
  if (Number.isNaN(seconds)) return '—';
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}
