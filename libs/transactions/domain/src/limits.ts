// Project limits on bank payouts (spec: Limits, Bank payouts and others): none
// by default; where a project sets a per-transaction minimum, maximum or
// multiple, they apply to the fiat leg of a source-pinned crypto-to-fiat sell,
// and so do its daily and monthly caps. A payout is never split to fit.
import { ApiError, type ProjectLimits, type TransactionCreated } from '@mm/contracts';
import { dec } from '@mm/platform/money';

/** The fiat leg the limits apply to, or undefined when this transaction is not such a sell. */
export function limitedFiatLeg(
  record: Pick<TransactionCreated, 'sourceToDestination' | 'pricing' | 'destination'>,
): { asset: string; amount: string } | undefined {
  if (
    record.sourceToDestination !== 'cryptoToFiatAccount' ||
    record.pricing.fixedAmountSide !== 'source' ||
    record.destination.category !== 'fiat'
  )
    return undefined;
  return { asset: record.pricing.destination.asset, amount: record.pricing.destination.amountGross };
}

export function checkPerTransaction(limits: ProjectLimits, leg: { asset: string; amount: string }): void {
  const amount = dec(leg.amount);
  const refuse = (cause: string) => {
    throw new ApiError('TransactionLimitExceeded', cause);
  };
  if (limits.perTransactionMin && amount.lt(limits.perTransactionMin))
    refuse(`${leg.amount} ${leg.asset} is below the project's per-transaction minimum of ${limits.perTransactionMin}`);
  if (limits.perTransactionMax && amount.gt(limits.perTransactionMax))
    refuse(`${leg.amount} ${leg.asset} is above the project's per-transaction maximum of ${limits.perTransactionMax}`);
  if (limits.perTransactionMultiple && !amount.mod(limits.perTransactionMultiple).isZero())
    refuse(`${leg.amount} ${leg.asset} is not a multiple of ${limits.perTransactionMultiple}`);
}

/** The usage periods of a moment of project time: its UTC day and month. */
export function capPeriods(at: string): { day: string; month: string } {
  return { day: `day:${at.slice(0, 10)}`, month: `month:${at.slice(0, 7)}` };
}
