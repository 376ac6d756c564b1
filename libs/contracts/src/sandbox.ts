// Sandbox magic values (API-CONTRACT: every failure row must be reachable in
// the sandbox). docs/sandbox.md lists the same table.

/** The operator's identifier (spec placeholder <operator>) and its chain (<chain_l2>). */
export const OPERATOR = 'meridian';
export const CHAIN_L2 = 'meridianchain';

/** Custodial wallets offered: asset -> networks. */
export const WALLET_NETWORKS: Record<string, readonly string[]> = { usdc: [CHAIN_L2, 'ethereum'] };

/**
 * A customer whose lastName is one of these makes the simulated balance
 * provider answer GET /customers/{id}/balance with that error.
 */
export const BALANCE_PROVIDER_MAGIC_LAST_NAMES = {
  Unprovisioned: 'ProviderUserAccountNotFound',
  InvalidBalance: 'Provider',
  Unreachable: 'ProviderUnreachable',
} as const;

/** A customer whose lastName is this has a fiat balance that cannot be read: totalBalance is omitted. */
export const FIAT_UNAVAILABLE_LAST_NAME = 'FiatUnavailable';

/** A customer whose lastName is this has every endorsement request rejected by the sandbox. */
export const ENDORSEMENT_REJECT_LAST_NAME = 'Rejected';

/** Sandbox rates: the custodian's USD estimate of one unit, and USD to other currencies. */
export const SANDBOX_USD_PRICE: Record<string, string> = { usdc: '1.00' };
export const SANDBOX_FX_FROM_USD: Record<string, string> = { USD: '1', CAD: '1.25' };

/** Largest single sandbox funding, per call. */
export const SANDBOX_MAX_FUNDING = '1000000';

/**
 * External accounts: the last four digits (characters, for an IBAN) of the account number, IBAN or
 * card number choose how the simulated provider answers provisioning. Any other ending is provisioned.
 */
export const EXTERNAL_ACCOUNT_MAGIC_LAST4 = {
  /** The provider rejects the account: `failed`, failure.code provider_rejected (card_declined for a card). */
  '0002': 'reject',
  /** The provider never answers: `failed`, failure.code provisioning_timeout, once the deadline passes on the sandbox clock. */
  '0003': 'noAnswer',
} as const;

/** How long an external account may stay pending before it fails with provisioning_timeout (sandbox clock). */
export const EXTERNAL_ACCOUNT_PROVISIONING_TIMEOUT_SECONDS = 15 * 60;

/**
 * Payout screening (rule 9): a bank account holder name with one of these words is a hit of the
 * simulated sanctions or AML screening: `failed`, with the failure code given.
 */
export const SCREENING_MAGIC_NAMES = {
  Sanctioned: 'sanctions_screening_hit',
  AmlFlagged: 'aml_screening_hit',
} as const;

/** The failure code POST /external-accounts/{id}/simulate/invalidate records unless one is given. */
export const DEFAULT_INVALIDATION_CODE = 'account_closed';
