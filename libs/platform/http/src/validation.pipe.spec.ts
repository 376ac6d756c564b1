// ADR 0023: a body whose only problems are amounts is InvalidAmount, worded as
// the handlers word it; any other problem makes it InvalidRequest naming all.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsIn, IsInt, IsObject, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { ApiError } from '@mm/contracts';
import { validateObject } from './validation.pipe';
import { IsAmount, IsNotBlank } from './validators';

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

class Nested {
  @IsString() @IsNotBlank() @MaxLength(100) firstName!: string;
  @IsIn(['individual']) type!: string;
  @IsInt() @Min(1) @Max(10) count!: number;
  @IsArray() @ArrayMinSize(1) @IsString({ each: true }) @MaxLength(20, { each: true }) names!: string[];
  @IsObject() @ValidateNested() @Type(() => Side) source!: Side;
}

function problems(value: unknown): string {
  try {
    validateObject(Nested, value, '');
  } catch (error) {
    if (error instanceof ApiError) return error.toBody().cause;
    throw error;
  }
  throw new Error('accepted');
}

describe('a missing required field (issue 18 item 5)', () => {
  const valid = { firstName: 'Ada', type: 'individual', count: 2, names: ['a'], source: { asset: 'usdc', amount: '1.5', fee: '0.1' } };

  it('is one "is required", not a message per rule it would break; a field that is present keeps every rule it breaks', () => {
    expect(problems({ ...valid, firstName: undefined })).toBe('firstName: is required');
    expect(problems({ ...valid, firstName: undefined, count: 11, names: 7 })).toBe(
      'firstName: is required; count: must not be greater than 10; names: each value in names must be shorter than or equal to 20 characters; names: each value in names must be a string; names: must contain at least 1 elements; names: must be an array',
    );
    expect(problems({ type: 'individual', count: 2, names: ['a'], source: valid.source })).toBe('firstName: is required');
    expect(problems({})).toBe('firstName: is required; type: is required; count: is required; names: is required; source: is required');
  });

  it('keeps an amount\'s own words, and names a missing field inside an object by its path', () => {
    expect(problems({ ...valid, source: { asset: 'usdc', fee: '1' } })).toBe('source.amount: is required: amounts are decimal strings such as "10.50"');
    expect(problems({ ...valid, source: { amount: '1', fee: '1' } })).toBe('source.asset: is required');
  });
});
