// Money is decimal, never binary floating point (ARCHITECTURE: Event sourcing,
// precisely). Amounts travel as decimal strings and are computed with decimal.js.
import Decimal from 'decimal.js';

const Money = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN });
export type DecimalValue = InstanceType<typeof Money>;

export function dec(value: string | number | DecimalValue): DecimalValue {
  if (typeof value === 'number' && !Number.isInteger(value)) {
    throw new TypeError('money values must not come from floating-point numbers');
  }
  return new Money(value);
}

export const ZERO = dec(0);

export function sum(values: Array<string | DecimalValue>): DecimalValue {
  return values.reduce<DecimalValue>((acc, v) => acc.plus(dec(v)), ZERO);
}

/** Fixed-point string with the given number of decimals (sign preserved, banker's rounding). */
export function toFixed(value: string | DecimalValue, decimals: number): string {
  const fixed = dec(value).toFixed(decimals);
  // decimal.js keeps the sign of a negative zero ("-0.00"); money has no negative zero.
  return /^-0(\.0+)?$/.test(fixed) ? fixed.slice(1) : fixed;
}

/** Canonical decimal string: no exponent, no trailing zeros beyond the asset's scale. */
export function toAmount(value: string | DecimalValue, scale = 6): string {
  const fixed = toFixed(dec(value).toDecimalPlaces(scale, Decimal.ROUND_DOWN), scale);
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** An amount for display: at least `minDecimals` (2), at most the asset's scale, no float. */
export function formatAmount(value: string | DecimalValue, scale = 6, minDecimals = 2): string {
  const trimmed = toAmount(value, scale);
  const decimals = trimmed.split('.')[1]?.length ?? 0;
  return decimals >= minDecimals ? trimmed : toFixed(trimmed, minDecimals);
}
