// Cash pickup (spec: rule 8; Resources / Quote, cash destination details; Limits /
// Cash pickup (cash-out)). The amount a limit reads is the cash: the destination
// usd amount of the cryptoToCash quote, whichever side was fixed. Per customer:
//   increment  multiples of $20.00
//   minimum    $20.00, maximum $400.00
//   daily      $1,000.00 when the pickup's location is in California or New Mexico, else $2,000.00
//   monthly    $60,000.00
// Windows are the UTC day and UTC calendar month of the project's clock. The daily
// cap counts every pickup of the customer's day, at any location, against the cap of
// this pickup's location: a customer who collected $1,500 in Texas today may not
// collect in California today. Pure: usage and locations come from the application.
import { ApiError, type CashFlow } from '@mm/contracts';
import { dec, formatAmount } from '@mm/platform/money';

export const CASH_PICKUP_LIMITS = {
  increment: '20.00',
  minimum: '20.00',
  maximum: '400.00',
  /** The two named states of the spec, where the daily maximum is lower. */
  lowDailyStates: ['CA', 'NM'] as readonly string[],
  lowDaily: '1000.00',
  daily: '2000.00',
  monthly: '60000.00',
} as const;

/** A retail location as the quoting service projects it from the cash-in service's log. */
export interface CashPickupLocation {
  locId: string;
  cashLocationReference: string;
  name: string;
  provider: string;
  /** The US state code of its address. */
  state: string;
  flows: CashFlow[];
}

/** The daily maximum at a location in this state. */
export function dailyCashPickupCap(state: string): string {
  return CASH_PICKUP_LIMITS.lowDailyStates.includes(state.toUpperCase())
    ? CASH_PICKUP_LIMITS.lowDaily
    : CASH_PICKUP_LIMITS.daily;
}

/** The location a cash destination names: it exists, its reference matches, and it pays out cash. */
export function checkPickupLocation(
  location: CashPickupLocation | undefined,
  locId: string,
  reference: string,
): CashPickupLocation {
  if (!location)
    throw new ApiError(
      'CashLocationNotFound',
      `no cash location ${locId}; GET /cash-locations?flow=cash_out lists the pickup locations`,
    );
  if (location.cashLocationReference !== reference) {
    throw new ApiError(
      'CashLocationReferenceMismatch',
      `destination.details.cashLocationReference is ${reference.slice(0, 64)}, cash location ${locId} is ${location.cashLocationReference}`,
    );
  }
  if (!location.flows.includes('cash_out')) {
    throw new ApiError(
      'CashLocationFlowUnsupported',
      `cash location ${locId} (${location.cashLocationReference}) takes cash-ins only; GET /cash-locations?flow=cash_out lists the pickup locations`,
    );
  }
  return location;
}

/** Per-transaction rules, in this order so that each refusal names the rule the amount breaks first. */
export function checkCashPickupAmount(amount: string): void {
  const cash = dec(amount);
  const shown = formatAmount(cash, 2);
  if (cash.lt(CASH_PICKUP_LIMITS.minimum))
    throw new ApiError(
      'CashPickupBelowMinimum',
      `${shown} usd is below the cash pickup minimum of ${CASH_PICKUP_LIMITS.minimum}`,
    );
  if (cash.gt(CASH_PICKUP_LIMITS.maximum))
    throw new ApiError(
      'CashPickupAboveMaximum',
      `${shown} usd is above the cash pickup maximum of ${CASH_PICKUP_LIMITS.maximum}`,
    );
  if (!cash.mod(CASH_PICKUP_LIMITS.increment).isZero())
    throw new ApiError(
      'CashPickupIncrement',
      `${shown} usd is not a multiple of ${CASH_PICKUP_LIMITS.increment}: cash is paid out in $20 notes`,
    );
}

/** What the customer's pickups already use of the windows of this one (accepted, not expired). */
export interface CashPickupUsage {
  day: string;
  month: string;
}

/** The caps: this pickup on top of the customer's usage, against its location's daily cap and the monthly one. */
export function checkCashPickupUsage(amount: string, state: string, used: CashPickupUsage): void {
  const dailyCap = dailyCashPickupCap(state);
  const day = dec(used.day).plus(amount);
  if (day.gt(dailyCap)) {
    throw new ApiError(
      'CashPickupDailyLimitExceeded',
      `${formatAmount(amount, 2)} usd on top of ${formatAmount(used.day, 2)} picked up today would pass the daily maximum of ${dailyCap} at a location in ${state}`,
    );
  }
  const month = dec(used.month).plus(amount);
  if (month.gt(CASH_PICKUP_LIMITS.monthly)) {
    throw new ApiError(
      'CashPickupMonthlyLimitExceeded',
      `${formatAmount(amount, 2)} usd on top of ${formatAmount(used.month, 2)} picked up this month would pass the monthly maximum of ${CASH_PICKUP_LIMITS.monthly}`,
    );
  }
}

/** The UTC day and calendar month of a moment of project time, as half-open ISO ranges. */
export function cashPickupWindows(at: string | Date): {
  dayStart: string;
  dayEnd: string;
  monthStart: string;
  monthEnd: string;
} {
  const t = new Date(at);
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth();
  const d = t.getUTCDate();
  return {
    dayStart: new Date(Date.UTC(y, m, d)).toISOString(),
    dayEnd: new Date(Date.UTC(y, m, d + 1)).toISOString(),
    monthStart: new Date(Date.UTC(y, m, 1)).toISOString(),
    monthEnd: new Date(Date.UTC(y, m + 1, 1)).toISOString(),
  };
}
