// Cash-in limits (spec: Limits / Cash-in), per customer: a transaction minimum
// and maximum (more at the large retailer's locations), and caps on the amount
// and the count of completed cash-ins per UTC day, ISO week (Monday to Sunday,
// UTC) and UTC calendar month of the project's clock (ADR 0020). Pending
// cash-ins reserve nothing: a cap counts completed deposits, checked at
// creation (completed + this one) and again, atomically, at the deposit.
import { ApiError, type ErrorName } from '@mm/contracts';
import { dec, type DecimalValue } from '@mm/platform/money';
import { LARGE_RETAILER } from './cash-locations';

export const CASH_IN_LIMITS = {
  minimum: '20.00',
  maximum: '500.00',
  largeRetailerMaximum: '1000.00',
  day: { amount: '1500.00', count: 3 },
  week: { amount: '3500.00', count: 12 },
  month: { amount: '5000.00', count: 20 },
} as const;

export type LimitWindow = 'day' | 'week' | 'month';
export const LIMIT_WINDOWS: readonly LimitWindow[] = ['day', 'week', 'month'];

/** Completed cash-ins of one customer in one window. */
export interface WindowUsage {
  count: number;
  amount: string;
}

export type CashInUsage = Record<LimitWindow, WindowUsage>;

export const NO_USAGE: CashInUsage = {
  day: { count: 0, amount: '0' },
  week: { count: 0, amount: '0' },
  month: { count: 0, amount: '0' },
};

/** Where each window that contains `at` begins (UTC): the day, the ISO week (Monday), the month. */
export function windowStarts(at: string): Record<LimitWindow, string> {
  const t = new Date(at);
  const day = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate());
  const sinceMonday = (t.getUTCDay() + 6) % 7;
  return {
    day: new Date(day).toISOString(),
    week: new Date(day - sinceMonday * 86_400_000).toISOString(),
    month: new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1)).toISOString(),
  };
}

/** The largest single cash-in at a location's provider. */
export function maximumAt(provider: string): string {
  return provider === LARGE_RETAILER ? CASH_IN_LIMITS.largeRetailerMaximum : CASH_IN_LIMITS.maximum;
}

const WINDOW_NAMES: Record<LimitWindow, { label: string; amount: ErrorName; count: ErrorName }> = {
  day: { label: 'daily', amount: 'CashInDailyAmountExceeded', count: 'CashInDailyCountExceeded' },
  week: { label: 'weekly', amount: 'CashInWeeklyAmountExceeded', count: 'CashInWeeklyCountExceeded' },
  month: { label: 'monthly', amount: 'CashInMonthlyAmountExceeded', count: 'CashInMonthlyCountExceeded' },
};

function usd(value: DecimalValue | string): string {
  return dec(value).toFixed(2);
}

/** Refuses an amount below the minimum or above the location's maximum. */
export function checkTransactionAmount(amount: string, provider: string): void {
  const value = dec(amount);
  if (value.lt(CASH_IN_LIMITS.minimum)) {
    throw new ApiError(
      'CashInBelowMinimum',
      `${usd(value)} USD is below the cash-in minimum of ${CASH_IN_LIMITS.minimum} USD`,
    );
  }
  const maximum = maximumAt(provider);
  if (value.gt(maximum)) {
    const where =
      provider === LARGE_RETAILER
        ? `at ${LARGE_RETAILER} locations`
        : `at this location (${CASH_IN_LIMITS.largeRetailerMaximum} USD at ${LARGE_RETAILER} locations)`;
    throw new ApiError(
      'CashInAboveMaximum',
      `${usd(value)} USD is above the cash-in maximum of ${maximum} USD ${where}`,
    );
  }
}

/**
 * Refuses one more cash-in of `amount` on top of the customer's completed ones: the count first,
 * then the amount, the shortest window first.
 */
export function checkCaps(usage: CashInUsage, amount: string): void {
  for (const window of LIMIT_WINDOWS) {
    const cap = CASH_IN_LIMITS[window];
    const used = usage[window];
    const names = WINDOW_NAMES[window];
    if (used.count + 1 > cap.count) {
      throw new ApiError(
        names.count,
        `the customer has ${used.count} completed cash-ins this ${window}; the ${names.label} limit is ${cap.count}`,
      );
    }
    const total = dec(used.amount).plus(amount);
    if (total.gt(cap.amount)) {
      throw new ApiError(
        names.amount,
        `${usd(amount)} USD would take the customer's ${names.label} cash-ins to ${usd(total)} USD, over the ${names.label} limit of ${cap.amount} USD`,
      );
    }
  }
}

/**
 * At creation: the indicated amount against the transaction limits, and the caps with this cash-in
 * counted at the indicated amount, or at the minimum (the least any deposit can be) when none is given.
 */
export function checkCashInCreation(indicatedAmount: string | null, provider: string, usage: CashInUsage): void {
  if (indicatedAmount !== null) checkTransactionAmount(indicatedAmount, provider);
  checkCaps(usage, indicatedAmount ?? CASH_IN_LIMITS.minimum);
}

/** At the deposit: the actual amount against every limit. */
export function checkDeposit(amount: string, provider: string, usage: CashInUsage): void {
  checkTransactionAmount(amount, provider);
  checkCaps(usage, amount);
}
