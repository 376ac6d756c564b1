// ADR 0023: a body whose only problems are amounts is InvalidAmount, worded as
// the handlers word it; any other problem makes it InvalidRequest naming all.
import 'reflect-metadata';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { ApiError } from '@mm/contracts';
import { validateObject } from './validation.pipe';
import { ListQuery } from './pagination';
import { IsAmount, IsLabel, IsNotBlank } from './validators';

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
    expect(validateObject(Side, { asset: 'usdc', amount: '1.500000', fee: '0.1' }, 'source')).toMatchObject({
      amount: '1.500000',
    });
  });

  it('answers InvalidAmount naming the field path and the rule when only amounts are wrong', () => {
    expect(refusal({ asset: 'usdc', amount: '1.0000000', fee: '0.1' })).toEqual({
      error: 'InvalidAmount',
      cause: 'source.amount: usdc amounts have at most 6 decimal places',
    });
    expect(refusal({ asset: 'usdc', amount: 5, fee: '+1' })).toEqual({
      error: 'InvalidAmount',
      cause:
        'source.amount: amounts are decimal strings such as "10.50", not a JSON number; source.fee: amounts are decimal strings such as "10.50": digits, optionally a point and more digits; no sign, exponent, spaces or leading zeros',
    });
    expect(refusal({ asset: 'usdc', fee: '1' })).toEqual({
      error: 'InvalidAmount',
      cause: 'source.amount: is required: amounts are decimal strings such as "10.50"',
    });
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
  const valid = {
    firstName: 'Ada',
    type: 'individual',
    count: 2,
    names: ['a'],
    source: { asset: 'usdc', amount: '1.5', fee: '0.1' },
  };

  it('is one "is required", not a message per rule it would break', () => {
    expect(problems({ ...valid, firstName: undefined })).toBe('firstName: is required');
    expect(problems({ ...valid, firstName: undefined, count: 11, names: 7 })).toBe(
      'firstName: is required; count: must not be greater than 10; names: must be an array, not a number',
    );
    expect(problems({ type: 'individual', count: 2, names: ['a'], source: valid.source })).toBe(
      'firstName: is required',
    );
    expect(problems({})).toBe(
      'firstName: is required; type: is required; count: is required; names: is required; source: is required',
    );
  });

  it("keeps an amount's own words, and names a missing field inside an object by its path", () => {
    expect(problems({ ...valid, source: { asset: 'usdc', fee: '1' } })).toBe(
      'source.amount: is required: amounts are decimal strings such as "10.50"',
    );
    expect(problems({ ...valid, source: { amount: '1', fee: '1' } })).toBe('source.asset: is required');
  });
});

describe('one message a field (issue 42, item 9)', () => {
  const valid = {
    firstName: 'Ada',
    type: 'individual',
    count: 2,
    names: ['a'],
    source: { asset: 'usdc', amount: '1.5', fee: '0.1' },
  };

  it('tells a field of the wrong type its type and what was sent, and nothing about the bounds it would then keep', () => {
    expect(problems({ ...valid, count: '2' })).toBe('count: must be an integer number, not a string');
    expect(problems({ ...valid, count: null })).toBe('count: must be an integer number, not null');
    expect(problems({ ...valid, firstName: null })).toBe('firstName: must be a string, not null');
    expect(problems({ ...valid, source: null })).toBe('source: must be an object, not null');
    expect(problems({ ...valid, source: 'usdc' })).toBe('source: must be an object, not a string');
    expect(problems({ ...valid, names: { a: 1 } })).toBe('names: must be an array, not an object');
  });

  it('gives a value of the right type the first rule it breaks, as the DTO writes them', () => {
    expect(problems({ ...valid, count: 11 })).toBe('count: must not be greater than 10');
    expect(problems({ ...valid, count: 0 })).toBe('count: must not be less than 1');
    expect(problems({ ...valid, count: 1.5 })).toBe('count: must be an integer number');
    expect(problems({ ...valid, firstName: ' '.repeat(101) })).toBe(
      'firstName: must contain a visible character, not only whitespace',
    );
    expect(problems({ ...valid, names: ['a', 7] })).toBe('names: each value in names must be a string');
    expect(problems({ ...valid, names: [] })).toBe('names: must contain at least 1 elements');
  });

  it('names each field with a problem, once', () => {
    expect(problems({ ...valid, count: '2', firstName: null, extra: 1 })).toBe(
      'extra: unknown field; firstName: must be a string, not null; count: must be an integer number, not a string',
    );
  });
});

class Labelled {
  @IsLabel(20) label!: string;
}

function label(value: unknown): { label?: unknown; refused?: string } {
  try {
    return { label: validateObject(Labelled, { label: value }, '').label };
  } catch (error) {
    if (error instanceof ApiError) return { refused: error.toBody().cause };
    throw error;
  }
}

describe('labels (issue 42, item 9)', () => {
  it('are kept trimmed', () => {
    expect(label('  Payroll  ')).toEqual({ label: 'Payroll' });
    expect(label('\tRent\n')).toEqual({ label: 'Rent' });
    expect(label('Café — 東京 ✓')).toEqual({ label: 'Café — 東京 ✓' });
  });

  it('are refused empty, blank or invisible', () => {
    for (const value of ['', '   ', '\n', '\u200B', '\u00A0'])
      expect(label(value)).toEqual({ refused: 'label: must contain a visible character, not be empty or only spaces' });
  });

  it('are refused with a control character inside: a line break, a tab, DEL, a C1 control', () => {
    for (const value of ['a\nb', 'a\rb', 'a\tb', 'a\u0000b', 'a\u007Fb', 'a\u0085b', 'a\u009Bb']) {
      expect(label(value)).toEqual({
        refused: 'label: must be one line, without control characters (line breaks, tabs)',
      });
    }
  });

  it('are refused with a bidirectional formatting character: overrides, embeddings, isolates and marks', () => {
    for (const c of [
      '\u202A',
      '\u202B',
      '\u202C',
      '\u202D',
      '\u202E',
      '\u2066',
      '\u2067',
      '\u2068',
      '\u2069',
      '\u200E',
      '\u200F',
      '\u061C',
    ]) {
      expect(label(`invoice${c}fdp.exe`)).toEqual({
        refused:
          'label: must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)',
      });
    }
  });

  it('are refused longer than their bound (once trimmed), or not a string, with one message', () => {
    expect(label(`  ${'x'.repeat(20)}  `)).toEqual({ label: 'x'.repeat(20) });
    expect(label('x'.repeat(21))).toEqual({ refused: 'label: must be at most 20 characters' });
    expect(label(5)).toEqual({ refused: 'label: must be a string, not a number' });
    expect(label(null)).toEqual({ refused: 'label: must be a string, not null' });
  });
});

describe('limit of every list (issue 42, item 9)', () => {
  const limit = (value: unknown) => {
    try {
      return validateObject(ListQuery, { limit: value }, '').limit;
    } catch (error) {
      if (error instanceof ApiError) return `${error.errorName}: ${error.toBody().cause}`;
      throw error;
    }
  };

  it('is a plain base-10 integer from 1 to 100', () => {
    expect([limit('1'), limit('20'), limit('100'), limit(undefined)]).toEqual([1, 20, 100, undefined]);
  });

  it('is refused, with one message, in any other form or out of range', () => {
    const refused =
      'InvalidRequest: limit: must be a whole number from 1 to 100 in plain digits (no sign, exponent, decimal point, spaces or leading zero)';
    for (const value of [
      '1e2',
      '0x10',
      ' 5',
      '5 ',
      '5.0',
      '+5',
      '05',
      '-1',
      '0',
      '101',
      '',
      '1_0',
      'ten',
      '１０',
      ['5', '6'],
    ])
      expect(limit(value)).toBe(refused);
  });
});
