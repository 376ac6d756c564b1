// Spec: Cash-in, depositInstructions.code: two groups of three digits separated by a space.
import fc from 'fast-check';
import { codeExpiresAt, formatDepositCode, isDepositCode } from './deposit-code';

describe('deposit codes', () => {
  it('are two groups of three digits separated by a space, for every draw, and tell draws apart', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999_999 }), (n) => {
        const code = formatDepositCode(n);
        expect(code).toMatch(/^[0-9]{3} [0-9]{3}$/);
        expect(isDepositCode(code)).toBe(true);
        expect(Number(code.replace(' ', ''))).toBe(n);
      }),
    );
    expect(formatDepositCode(4521)).toBe('004 521');
  });

  it('refuses draws outside the million', () => {
    for (const n of [-1, 1_000_000, 1.5]) expect(() => formatDepositCode(n)).toThrow(RangeError);
  });

  it.each(['123456', '123-456', '12 3456', '123 45a', ' 123 456', 42])('does not take %p for a code', (value) =>
    expect(isDepositCode(value)).toBe(false),
  );

  it('lapse one hour after issue or refresh', () =>
    expect(codeExpiresAt('2030-01-01T23:30:00.000Z')).toBe('2030-01-02T00:30:00.000Z'));
});
