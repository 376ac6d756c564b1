// How the dashboard writes amounts and times (issue 22, item 5): decimals as the API sent them, never through
// a binary float, with their asset; UTC for the title of a time shown in the viewer's zone.
import { formatAmount, formatUtc } from './format';

describe('amounts on the dashboard', () => {
  it('keeps every digit the API sent, groups the integer part, and names the asset', () => {
    expect(formatAmount('1234567.50', 'usd')).toBe('1,234,567.50 USD');
    expect(formatAmount('0.000001', 'usdc')).toBe('0.000001 USDC');
    // Beyond a double's precision: a float would print 9007199254740993 as ...992.
    expect(formatAmount('9007199254740993.123456', 'usdc')).toBe('9,007,199,254,740,993.123456 USDC');
    expect(formatAmount('100', undefined)).toBe('100');
    expect(formatAmount('-25.00', 'usd')).toBe('-25.00 USD');
  });

  it('shows a dash for no amount, and anything it cannot read as it came', () => {
    expect(formatAmount(null, 'usd')).toBe('—');
    expect(formatAmount(undefined)).toBe('—');
    expect(formatAmount('n/a', 'usd')).toBe('n/a USD');
  });
});

describe('times on the dashboard', () => {
  it('titles a time with its UTC reading, to the second', () => {
    expect(formatUtc('2026-11-25T06:45:22.123Z')).toBe('2026-11-25 06:45:22 UTC');
    expect(formatUtc('2026-11-25T08:45:22+02:00')).toBe('2026-11-25 06:45:22 UTC');
    expect(formatUtc('not a time')).toBe('not a time');
  });
});
