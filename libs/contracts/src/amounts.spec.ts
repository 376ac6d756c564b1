import { ApiError } from './errors';
import { requireAmount } from './amounts';

describe('requireAmount (ADR 0023)', () => {
  it('gives the decimal of an amount under the rule', () => {
    expect(requireAmount('21.500000', 'amount', { asset: 'usdc' }).toFixed()).toBe('21.5');
  });

  it.each<[unknown, string]>([
    ['1.0000000', 'source.amount: usdc amounts have at most 6 decimal places'],
    ['0.00', 'source.amount: must be greater than zero'],
    [12, 'source.amount: amounts are decimal strings such as "10.50", not a JSON number'],
  ])('refuses %p with 400 InvalidAmount: %s', (value, cause) => {
    let thrown: unknown;
    try {
      requireAmount(value, 'source.amount', { asset: 'usdc' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).toBody()).toEqual({
      error: 'InvalidAmount',
      code: 11003,
      msg: 'invalid amount',
      cause,
      status: 400,
    });
  });
});
