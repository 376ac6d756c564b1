// The one rule for an amount a partner sends (ADR 0023), on every route that
// takes one: a JSON string of plain decimal digits, greater than zero, at most
// AMOUNT_MAX (or the field's own lower maximum), with at most as many decimal
// places as its asset has: written places, so trailing zeros count. Every DTO
// and every handler that learns the asset later asks this one function, in
// this order, so the same string gets the same answer wherever it is sent.
import { dec, type DecimalValue } from './money';

/** Decimal places of each asset's smallest unit: the one table every amount rule and display reads. */
export const ASSET_SCALE: Readonly<Record<string, number>> = Object.freeze({ usdc: 6, usd: 2, cad: 2 });

/** Largest amount any route accepts (a field may set a lower one, for example a sandbox funding). */
export const AMOUNT_MAX = '1000000000';

/**
 * Longest amount text looked at: refused before any parsing. The longest amount any asset
 * could take (10 integer digits, a point, 18 places) fits; no valid amount is cut by it.
 */
export const AMOUNT_MAX_LENGTH = 32;

export interface AmountRule {
  /**
   * The asset whose decimal places apply; omitted while it is not known yet (checked again once it
   * is). Several assets when the field applies to each of them (project limits: usd and cad legs).
   */
  asset?: string | readonly string[];
  /** The field's own maximum, when lower than AMOUNT_MAX. */
  max?: string;
  /** Zero is an amount here (an operator's refund that returns nothing). */
  allowZero?: boolean;
}

// Linear: one optional group, no nested quantifiers, and only ever run on at most AMOUNT_MAX_LENGTH characters.
const UNSIGNED = /^(?:0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

export const AMOUNT_EXAMPLE = '"10.50"';

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return 'a JSON number';
  if (typeof value === 'boolean') return 'a boolean';
  return typeof value === 'object' ? 'an object' : typeof value;
}

/** Decimal places the rule allows, and what to call them in a message; undefined while the asset is unknown. */
function places(rule: AmountRule): { decimals: number; of: string } | undefined {
  if (rule.asset === undefined) return undefined;
  const assets = typeof rule.asset === 'string' ? [rule.asset] : rule.asset;
  return { decimals: Math.min(...assets.map(assetDecimals)), of: `${assets.join(' and ')} amounts` };
}

/** The asset's decimal places; an asset missing from ASSET_SCALE is a defect, not bad input. */
export function assetDecimals(asset: string): number {
  if (!Object.hasOwn(ASSET_SCALE, asset)) throw new Error(`no decimal places known for asset ${asset}`);
  return ASSET_SCALE[asset];
}

/**
 * Why `value` is not an amount under `rule`, or undefined when it is. The checks that need no
 * asset come first, so a message given before the asset is known is the one given after.
 */
export function amountProblem(value: unknown, rule: AmountRule = {}): string | undefined {
  if (value === undefined) return `is required: amounts are decimal strings such as ${AMOUNT_EXAMPLE}`;
  if (typeof value !== 'string') return `amounts are decimal strings such as ${AMOUNT_EXAMPLE}, not ${jsonKind(value)}`;
  if (value.length > AMOUNT_MAX_LENGTH) return `amounts are decimal strings of at most ${AMOUNT_MAX_LENGTH} characters`;
  const negative = value.startsWith('-') && UNSIGNED.test(value.slice(1));
  const match = negative ? null : UNSIGNED.exec(value);
  if (!negative && !match) {
    return `amounts are decimal strings such as ${AMOUNT_EXAMPLE}: digits, optionally a point and more digits; no sign, exponent, spaces or leading zeros`;
  }
  const amount = dec(value);
  if (negative) return rule.allowZero ? 'must be zero or more' : 'must be greater than zero';
  if (amount.isZero() && !rule.allowZero) return 'must be greater than zero';
  const max = rule.max ?? AMOUNT_MAX;
  if (amount.gt(max)) return `must be at most ${max}`;
  const allowed = places(rule);
  const written = match![1]?.length ?? 0;
  if (allowed && written > allowed.decimals) return `${allowed.of} have at most ${allowed.decimals} decimal places`;
  return undefined;
}

/** The amount as a decimal, or why it is not one. */
export function parseAmount(
  value: unknown,
  rule: AmountRule = {},
): { ok: true; value: DecimalValue } | { ok: false; problem: string } {
  const problem = amountProblem(value, rule);
  return problem === undefined ? { ok: true, value: dec(value as string) } : { ok: false, problem };
}
