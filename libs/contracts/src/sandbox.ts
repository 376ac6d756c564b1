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
export const SANDBOX_FX_FROM_USD: Record<string, string> = { USD: '1', CAD: '1.37' };

/** Largest single sandbox funding, per call. */
export const SANDBOX_MAX_FUNDING = '1000000';
