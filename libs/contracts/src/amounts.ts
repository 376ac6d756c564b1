// Amounts refused the same way wherever they arrive (ADR 0023): 400 InvalidAmount
// whose cause is the field's path and the rule it breaks, from the one rule in
// @mm/platform/money. The validation pipe words its refusals the same way.
import { amountProblem, dec, type AmountRule, type DecimalValue } from '@mm/platform/money';
import { ApiError } from './errors';

/** The cause of an InvalidAmount: `source.amount: usdc amounts have at most 6 decimal places`. */
export function amountCause(field: string, problem: string): string {
  return `${field}: ${problem}`;
}

/** The amount at `field`, or 400 InvalidAmount naming the field and the rule it breaks. */
export function requireAmount(value: unknown, field: string, rule: AmountRule = {}): DecimalValue {
  const problem = amountProblem(value, rule);
  if (problem !== undefined) throw new ApiError('InvalidAmount', amountCause(field, problem));
  return dec(value as string);
}
