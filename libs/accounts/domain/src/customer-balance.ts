// The customer balance (spec: Customer balance): valued from what the
// providers report, with the spec's omission rules.
import { dec, sum, toFixed, type DecimalValue } from '@mm/platform/money';

export interface CustodialHolding {
  asset: string;
  balance: string;
  /** The custodian's USD estimate of one unit. */
  usdPrice: string;
  /** When the provider last reported this balance. */
  updatedAt: string;
}

/** One component as the provider reported it, or undefined when it could not be read. */
export interface BalanceReadings {
  crypto?: CustodialHolding[];
  fiatUsd?: Array<{ balance: string; updatedAt: string }>;
}

export interface CustomerBalance {
  customerId: string;
  estimatedBalanceValue: string;
  estimatedBalanceCurrencyCode: string;
  updatedAt?: string;
  totalBalance?: { totalUsd: string; fiatUsd: string; cryptoUsd: string };
}

export function customerBalance(
  customerId: string,
  readings: BalanceReadings,
  currency: string,
  usdToCurrency: string,
): CustomerBalance {
  const cryptoUsd: DecimalValue = sum((readings.crypto ?? []).map((h) => dec(h.balance).times(h.usdPrice)));
  const fiatUsd: DecimalValue = sum((readings.fiatUsd ?? []).map((f) => f.balance));
  const totalUsd = cryptoUsd.plus(fiatUsd);
  const timestamps = [...(readings.crypto ?? []), ...(readings.fiatUsd ?? [])].map((r) => r.updatedAt).sort();
  const result: CustomerBalance = {
    customerId,
    estimatedBalanceValue: toFixed(totalUsd.times(usdToCurrency), 2),
    estimatedBalanceCurrencyCode: currency,
  };
  if (timestamps.length > 0) result.updatedAt = timestamps[timestamps.length - 1];
  // Only in USD, and never partial: both components must have been read.
  if (currency === 'USD' && readings.crypto !== undefined && readings.fiatUsd !== undefined) {
    result.totalBalance = {
      totalUsd: toFixed(totalUsd, 2),
      fiatUsd: toFixed(fiatUsd, 2),
      cryptoUsd: toFixed(cryptoUsd, 2),
    };
  }
  return result;
}
