// Spec: Limits / Cash-in, each limit at its boundary and one cent or one count past it.
import { ApiError } from '@mm/contracts';
import {
  checkCaps,
  checkCashInCreation,
  checkDeposit,
  checkTransactionAmount,
  NO_USAGE,
  windowStarts,
  type CashInUsage,
} from './cash-in-limits';

const refusal = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    if (error instanceof ApiError) return error.errorName;
    throw error;
  }
};
const usage = (window: keyof CashInUsage, count: number, amount: string): CashInUsage => ({
  ...NO_USAGE,
  [window]: { count, amount },
});

describe('cash-in limits (spec: Limits / Cash-in)', () => {
  it.each([
    ['19.99', 'quickstop', 'CashInBelowMinimum'],
    ['20.00', 'quickstop', undefined],
    ['500.00', 'quickstop', undefined],
    ['500.01', 'quickstop', 'CashInAboveMaximum'],
    ['1000.00', 'bigmart', undefined],
    ['1000.01', 'bigmart', 'CashInAboveMaximum'],
  ])('a single cash-in of %s at %s: %s', (amount, provider, expected) =>
    expect(refusal(() => checkTransactionAmount(amount, provider))).toBe(expected),
  );

  it.each([
    ['day', 2, '0', undefined],
    ['day', 3, '0', 'CashInDailyCountExceeded'],
    ['week', 11, '0', undefined],
    ['week', 12, '0', 'CashInWeeklyCountExceeded'],
    ['month', 19, '0', undefined],
    ['month', 20, '0', 'CashInMonthlyCountExceeded'],
  ] as const)('the %s count with %i completed', (window, count, amount, expected) =>
    expect(refusal(() => checkCaps(usage(window, count, amount), '20.00'))).toBe(expected),
  );

  it.each([
    ['day', '1480.00', '20.00', undefined],
    ['day', '1480.00', '20.01', 'CashInDailyAmountExceeded'],
    ['week', '3480.00', '20.00', undefined],
    ['week', '3480.00', '20.01', 'CashInWeeklyAmountExceeded'],
    ['month', '4980.00', '20.00', undefined],
    ['month', '4980.00', '20.01', 'CashInMonthlyAmountExceeded'],
  ] as const)('the %s amount with %s completed, then %s', (window, used, amount, expected) =>
    expect(refusal(() => checkCaps(usage(window, 1, used), amount))).toBe(expected),
  );

  it('names the shortest window first, and the count before the amount', () => {
    const full: CashInUsage = {
      day: { count: 3, amount: '1500' },
      week: { count: 12, amount: '3500' },
      month: { count: 20, amount: '5000' },
    };
    expect(refusal(() => checkCaps(full, '20.00'))).toBe('CashInDailyCountExceeded');
    expect(refusal(() => checkCaps({ ...full, day: { count: 1, amount: '1500' } }, '20.00'))).toBe(
      'CashInDailyAmountExceeded',
    );
  });

  it('at creation counts the cash-in at its indicated amount, or at the minimum without one', () => {
    expect(refusal(() => checkCashInCreation(null, 'quickstop', usage('day', 2, '1480.00')))).toBeUndefined();
    expect(refusal(() => checkCashInCreation(null, 'quickstop', usage('day', 2, '1480.01')))).toBe(
      'CashInDailyAmountExceeded',
    );
    expect(refusal(() => checkCashInCreation('20.01', 'quickstop', usage('day', 2, '1480.00')))).toBe(
      'CashInDailyAmountExceeded',
    );
    expect(refusal(() => checkCashInCreation('10.00', 'quickstop', NO_USAGE))).toBe('CashInBelowMinimum');
    expect(refusal(() => checkDeposit('600.00', 'bigmart', NO_USAGE))).toBeUndefined();
  });

  it('counts UTC calendar windows of project time: the day, the ISO week from Monday, the month', () => {
    // Wednesday 2030-01-02: the week began on Monday 2029-12-31, in the month before.
    expect(windowStarts('2030-01-02T23:59:59.999Z')).toEqual({
      day: '2030-01-02T00:00:00.000Z',
      week: '2029-12-31T00:00:00.000Z',
      month: '2030-01-01T00:00:00.000Z',
    });
    // A Sunday belongs to the week that began the Monday before; a Monday begins its own.
    expect(windowStarts('2030-01-06T12:00:00.000Z').week).toBe('2029-12-31T00:00:00.000Z');
    expect(windowStarts('2030-01-07T00:00:00.000Z').week).toBe('2030-01-07T00:00:00.000Z');
  });
});
