// ADR 0023: the one amount rule, against an oracle written independently of it
// (character by character, compared in BigInt, no regular expression and no
// decimal.js), over generated strings: valid ones, hostile near-misses and any
// text at all.
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { AMOUNT_MAX, AMOUNT_MAX_LENGTH, amountProblem, ASSET_SCALE, parseAmount, type AmountRule } from './amount';
import { toAmount } from './money';

const DIGITS = '0123456789';
const isDigits = (s: string) => s.length > 0 && [...s].every((c) => DIGITS.includes(c));

/** The value of an unsigned decimal string scaled to `places` decimals, as an integer. */
function scaled(intPart: string, fraction: string, places: number): bigint {
  return BigInt(intPart + fraction.padEnd(places, '0').slice(0, places));
}

/** The rule as ADR 0023 states it, for a string `s`. */
function oracle(s: unknown, decimals: number | undefined, max: string): boolean {
  if (typeof s !== 'string' || s.length > AMOUNT_MAX_LENGTH) return false;
  const parts = s.split('.');
  if (parts.length > 2) return false;
  const [intPart, fraction = ''] = parts;
  if (!isDigits(intPart) || (intPart.length > 1 && intPart[0] === '0')) return false;
  if (parts.length === 2 && !isDigits(fraction)) return false;
  if (decimals !== undefined && fraction.length > decimals) return false;
  const places = Math.max(fraction.length, 1);
  const [maxInt, maxFraction = ''] = max.split('.');
  return (
    scaled(intPart, fraction, places) > 0n && scaled(intPart, fraction, places) <= scaled(maxInt, maxFraction, places)
  );
}

const RULES: Array<{ rule: AmountRule; decimals: number | undefined; max: string }> = [
  { rule: {}, decimals: undefined, max: AMOUNT_MAX },
  { rule: { asset: 'usdc' }, decimals: 6, max: AMOUNT_MAX },
  { rule: { asset: 'usd' }, decimals: 2, max: AMOUNT_MAX },
  { rule: { asset: 'cad' }, decimals: 2, max: AMOUNT_MAX },
  { rule: { asset: ['usd', 'cad'] }, decimals: 2, max: AMOUNT_MAX },
  { rule: { asset: 'usdc', max: '1000000' }, decimals: 6, max: '1000000' },
  { rule: { max: '1000000' }, decimals: undefined, max: '1000000' },
];

const digits = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...DIGITS), minLength: min, maxLength: max });
const integerPart = fc.oneof(
  fc.constant('0'),
  fc.tuple(fc.constantFrom(...'123456789'), digits(0, 11)).map(([a, b]) => a + b),
);
/** Amounts that are valid or miss the rule by one thing: places, magnitude, zero. */
const plausible = fc
  .tuple(integerPart, fc.option(digits(0, 9), { nil: undefined }))
  .map(([i, f]) => (f === undefined ? i : `${i}.${f}`));
/** What partners and attackers send instead. */
const hostile = fc.oneof(
  plausible.map((s) => `-${s}`),
  plausible.map((s) => `+${s}`),
  plausible.map((s) => `0${s}`),
  plausible.map((s) => `${s}e3`),
  fc.tuple(plausible, fc.constantFrom('e', 'E', 'e-', 'E+'), digits(1, 3)).map(([s, e, n]) => `${s}${e}${n}`),
  plausible.map((s) => `.${s.replace('.', '')}`),
  plausible.map((s) => `${s.split('.')[0]}.`),
  fc
    .tuple(plausible, fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u200b'))
    .chain(([s, w]) => fc.constantFrom(`${w}${s}`, `${s}${w}`, s.replace(/^(.)/, `$1${w}`))),
  plausible.map((s) => s.replace('.', ',')),
  plausible.map((s) => `${s}.5`),
  plausible.map((s) => s.replace(/^(\d)/, '$1_')),
  fc.tuple(plausible, fc.constantFrom('١', '１', '٫', '𝟏')).map(([s, c]) => `${s}${c}`),
  fc.constantFrom(
    '',
    '.',
    '-',
    '+',
    '-0',
    '0',
    '0.0',
    '0.000000',
    'NaN',
    'Infinity',
    '-Infinity',
    '0x10',
    '0b1',
    '1e3',
    '1.0e2',
    '01.00',
    '1..0',
    '1.0.0',
    'null',
    'true',
  ),
  fc.integer({ min: AMOUNT_MAX_LENGTH + 1, max: 2000 }).map((n) => '1'.repeat(n)),
  fc.integer({ min: 1, max: 40 }).map((n) => `1.${'0'.repeat(n)}`),
  fc.integer({ min: 1, max: 40 }).map((n) => `0.${'0'.repeat(n)}1`),
);
const anyString = fc.oneof(
  { weight: 4, arbitrary: plausible },
  { weight: 4, arbitrary: hostile },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);

describe('the amount rule (ADR 0023)', () => {
  it('accepts exactly the strings the rule describes, for every asset and maximum', () => {
    fc.assert(
      fc.property(anyString, fc.constantFrom(...RULES), (s, { rule, decimals, max }) => {
        expect({ s, accepted: amountProblem(s, rule) === undefined }).toEqual({
          s,
          accepted: oracle(s, decimals, max),
        });
      }),
      { numRuns: 5000 },
    );
  });

  it("gives an accepted amount back exactly as decimal.js reads it, and canonically at its asset's places", () => {
    fc.assert(
      fc.property(plausible, fc.constantFrom('usdc', 'usd', 'cad'), (s, asset) => {
        const parsed = parseAmount(s, { asset });
        fc.pre(parsed.ok);
        if (!parsed.ok) return;
        const places = s.split('.')[1]?.length ?? 0;
        expect(parsed.value.toFixed(places)).toBe(s);
        expect(parsed.value.eq(new Decimal(s))).toBe(true);
        expect(new Decimal(toAmount(parsed.value, ASSET_SCALE[asset])).eq(new Decimal(s))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('words a refusal the same before the asset is known and after: the decimal places are checked last', () => {
    fc.assert(
      fc.property(anyString, fc.constantFrom('usdc', 'usd', 'cad'), (s, asset) => {
        const early = amountProblem(s);
        const late = amountProblem(s, { asset });
        if (early !== undefined) expect(late).toBe(early);
        else expect([undefined, `${asset} amounts have at most ${ASSET_SCALE[asset]} decimal places`]).toContain(late);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses anything that is not a JSON string, saying amounts are decimal strings', () => {
    fc.assert(
      fc.property(
        fc.anything().filter((v) => typeof v !== 'string'),
        (v) => {
          expect(amountProblem(v, { asset: 'usdc' })).toMatch(/amounts are decimal strings such as "10\.50"/);
        },
      ),
    );
  });

  it.each<[unknown, AmountRule, string | undefined]>([
    ['100.25', { asset: 'usdc' }, undefined],
    ['1.000000', { asset: 'usdc' }, undefined],
    ['1.50', { asset: 'usd' }, undefined],
    ['0.000001', { asset: 'usdc' }, undefined],
    ['1000000000', { asset: 'usd' }, undefined],
    ['1000000000.00', { asset: 'usd' }, undefined],
    ['1.0000000', { asset: 'usdc' }, 'usdc amounts have at most 6 decimal places'],
    ['1.0000001', { asset: 'usdc' }, 'usdc amounts have at most 6 decimal places'],
    ['50.001', { asset: 'usd' }, 'usd amounts have at most 2 decimal places'],
    ['1.500', { asset: ['usd', 'cad'] }, 'usd and cad amounts have at most 2 decimal places'],
    ['0', { asset: 'usd' }, 'must be greater than zero'],
    ['0.00', { asset: 'usd' }, 'must be greater than zero'],
    ['0.000', { asset: 'usd' }, 'must be greater than zero'],
    ['-5', { asset: 'usd' }, 'must be greater than zero'],
    ['-0', {}, 'must be greater than zero'],
    ['1000000000.01', { asset: 'usd' }, 'must be at most 1000000000'],
    ['1000000.000001', { asset: 'usdc', max: '1000000' }, 'must be at most 1000000'],
    ['1'.repeat(AMOUNT_MAX_LENGTH + 1), {}, `amounts are decimal strings of at most ${AMOUNT_MAX_LENGTH} characters`],
    [10, { asset: 'usd' }, 'amounts are decimal strings such as "10.50", not a JSON number'],
    [null, {}, 'amounts are decimal strings such as "10.50", not null'],
    [true, {}, 'amounts are decimal strings such as "10.50", not a boolean'],
    [{}, {}, 'amounts are decimal strings such as "10.50", not an object'],
    [['1'], {}, 'amounts are decimal strings such as "10.50", not an array'],
    [undefined, {}, 'is required: amounts are decimal strings such as "10.50"'],
  ])('%p under %p: %p', (value, rule, problem) => {
    expect(amountProblem(value, rule)).toBe(problem);
  });

  it.each(['1e3', '+1', '01.00', '.5', '1.', ' 1', '1 ', '1,5', '1_000', 'NaN', 'Infinity', '0x10', '', '١'])(
    'refuses the form %p by its shape',
    (s) => {
      expect(amountProblem(s, { asset: 'usdc' })).toBe(
        'amounts are decimal strings such as "10.50": digits, optionally a point and more digits; no sign, exponent, spaces or leading zeros',
      );
    },
  );

  it('reads no further than its length limit: a megabyte of digits is refused at once', () => {
    const started = process.hrtime.bigint();
    expect(amountProblem('9'.repeat(1_000_000), { asset: 'usdc' })).toMatch(/at most 32 characters/);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(50);
  });

  it('knows no asset it was not told of: a missing one is a defect, not bad input', () => {
    expect(() => amountProblem('1', { asset: 'doge' })).toThrow(/no decimal places known for asset doge/);
    expect(() => amountProblem('1', { asset: '__proto__' })).toThrow(/no decimal places/);
  });
});
