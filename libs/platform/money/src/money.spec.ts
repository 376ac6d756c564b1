import { dec, formatAmount, sum, toAmount, toFixed } from './money';

describe('money', () => {
  it('adds without binary floating-point error', () => {
    expect(sum(['0.1', '0.2']).toString()).toBe('0.3');
  });

  it('formats to 2 decimals with the sign preserved and no negative zero', () => {
    expect(toFixed('-12.345', 2)).toBe('-12.34');
    expect(toFixed('-0.001', 2)).toBe('0.00');
    expect(toFixed('7', 2)).toBe('7.00');
  });

  it('canonicalises amounts to the asset scale', () => {
    expect(toAmount('10.500000')).toBe('10.5');
    expect(toAmount('10')).toBe('10');
    expect(toAmount('0.0000001')).toBe('0');
    expect(toAmount('-100', 0)).toBe('-100');
  });

  it('formats display amounts with at least two decimals', () => {
    expect(formatAmount('25')).toBe('25.00');
    expect(formatAmount('10.5')).toBe('10.50');
    expect(formatAmount('0.123456')).toBe('0.123456');
    expect(formatAmount('0.1234567')).toBe('0.123456');
  });

  it('refuses floating-point inputs', () => {
    expect(() => dec(0.1)).toThrow(TypeError);
  });
});
