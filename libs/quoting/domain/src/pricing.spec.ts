// Spec: Pricing. The invariant source.amountNet × exchangeRate = destination.amountGross holds
// exactly, for every amount either side may fix; an inexact conversion is refused, never rounded.
import fc from 'fast-check';
import { ApiError } from '@mm/contracts';
import { dec } from '@mm/platform/money';
import { price } from './pricing';

const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;
const cents = fc.integer({ min: 1, max: 10_000_000_00 }).map((n) => dec(n).div(100).toFixed(2));
const micros = fc.integer({ min: 1, max: 10_000_000_000_000 }).map((n) => dec(n).div(1_000_000).toFixed());

describe('pricing', () => {
  it('holds the invariant exactly for every fixed amount that converts exactly, with zero fees', () => {
    const pairs: Array<[string, string, string]> = [
      ['usdc', 'usd', '1.00'],
      ['usd', 'usdc', '1.00'],
      ['usdc', 'usdc', '1.00'],
      ['usdc', 'cad', '1.25'],
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...pairs),
        fc.constantFrom('source' as const, 'destination' as const),
        cents,
        micros,
        ([from, to, rate], side, fiat, crypto) => {
          const amount = (side === 'source' ? from : to) === 'usdc' ? crypto : fiat;
          let p;
          try {
            p = price({
              sourceAsset: from,
              destinationAsset: to,
              amount,
              fixedAmountSide: side,
              sponsorGas: true,
              rate,
            });
          } catch (error) {
            expect(isError('InexactConversion')(error)).toBe(true);
            return;
          }
          expect(dec(p.source.amountNet).times(p.exchangeRate).eq(p.destination.amountGross)).toBe(true);
          expect(dec(side === 'source' ? p.source.amountGross : p.destination.amountGross).eq(amount)).toBe(true);
          for (const s of [p.source, p.destination]) {
            expect(s.amountGross).toBe(s.amountNet);
            expect(Object.values(s.feesDeducted).every((v) => dec(v).isZero())).toBe(true);
          }
        },
      ),
    );
  });

  it('always prices a fixed destination in USD or whole CAD cents', () => {
    fc.assert(
      fc.property(cents, fc.constantFrom(['usd', '1.00'], ['cad', '1.25']), (amount, [asset, rate]) => {
        const p = price({
          sourceAsset: 'usdc',
          destinationAsset: asset,
          amount,
          fixedAmountSide: 'destination',
          sponsorGas: false,
          rate,
        });
        expect(dec(p.source.amountNet).times(rate).eq(amount)).toBe(true);
      }),
    );
  });

  it('refuses a USDC amount whose dollars are not whole cents', () => {
    expect(() =>
      price({
        sourceAsset: 'usdc',
        destinationAsset: 'usd',
        amount: '1.001',
        fixedAmountSide: 'source',
        sponsorGas: true,
        rate: '1.00',
      }),
    ).toThrow(ApiError);
  });
});
