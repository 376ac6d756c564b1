// ADR 0023: a body whose only problems are amounts is InvalidAmount, worded as
// the handlers word it; any other problem makes it InvalidRequest naming all.
import 'reflect-metadata';
import { IsString, MaxLength } from 'class-validator';
import { ApiError } from '@mm/contracts';
import { validateObject } from './validation.pipe';
import { IsAmount } from './validators';

class Side {
  @IsString() @MaxLength(8) asset!: string;
  @IsAmount({ asset: 'usdc' }) amount!: string;
  @IsAmount() fee!: string;
}

function refusal(value: unknown): { error: string; cause: string } {
  try {
    validateObject(Side, value, 'source');
  } catch (error) {
    if (error instanceof ApiError) return { error: error.errorName, cause: error.toBody().cause };
    throw error;
  }
  throw new Error('accepted');
}

describe('validation of amounts', () => {
  it('accepts amounts under the rule', () => {
    expect(validateObject(Side, { asset: 'usdc', amount: '1.500000', fee: '0.1' }, 'source')).toMatchObject({ amount: '1.500000' });
  });

  it('answers InvalidAmount naming the field path and the rule when only amounts are wrong', () => {
    expect(refusal({ asset: 'usdc', amount: '1.0000000', fee: '0.1' })).toEqual({ error: 'InvalidAmount', cause: 'source.amount: usdc amounts have at most 6 decimal places' });
    expect(refusal({ asset: 'usdc', amount: 5, fee: '+1' })).toEqual({
      error: 'InvalidAmount',
      cause:
        'source.amount: amounts are decimal strings such as "10.50", not a JSON number; source.fee: amounts are decimal strings such as "10.50": digits, optionally a point and more digits; no sign, exponent, spaces or leading zeros',
    });
    expect(refusal({ asset: 'usdc', fee: '1' })).toEqual({ error: 'InvalidAmount', cause: 'source.amount: is required: amounts are decimal strings such as "10.50"' });
  });

  it('answers InvalidRequest, naming every problem, when something else is wrong too', () => {
    const { error, cause } = refusal({ asset: 7, amount: '0', fee: '1', extra: true });
    expect(error).toBe('InvalidRequest');
    expect(cause).toContain('source.amount: must be greater than zero');
    expect(cause).toContain('source.asset:');
    expect(cause).toContain('source.extra: unknown field');
  });
});
