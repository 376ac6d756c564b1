import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { amountProblem, type AmountRule } from '@mm/platform/money';

/** The constraint name of IsAmount: a body whose only problems are amounts answers InvalidAmount (ADR 0023). */
export const AMOUNT_CONSTRAINT = 'isAmount';

/**
 * An amount under the one rule (ADR 0023). Without an asset, every check but the decimal places:
 * the handler checks those, with the same function and wording, once it knows the asset.
 */
export function IsAmount(rule: AmountRule = {}, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: AMOUNT_CONSTRAINT,
      target: target.constructor,
      propertyName,
      options: { message: (args) => amountProblem(args.value, rule) ?? '', ...options },
      validator: { validate: (value: unknown) => amountProblem(value, rule) === undefined },
    });
}

/**
 * A string with at least one visible character: "   ", tabs or zero-width
 * characters alone are not a name. IsString and MaxLength still apply.
 */
export function IsNotBlank(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isNotBlank',
      target: target.constructor,
      propertyName,
      options: { message: 'must contain a visible character, not only whitespace', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && /[^\s\p{Cc}\p{Cf}]/u.test(value) },
    });
}

/** Stripe's metadata bounds: up to 50 keys of at most 40 characters, string values of at most 500. */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/**
 * A metadata object: string keys and string values within METADATA_LIMITS. With
 * `removable`, a value may be null or "" (an update that removes the key).
 */
export function IsMetadata(options: { removable?: boolean } = {}, validation?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isMetadata',
      target: target.constructor,
      propertyName,
      options: {
        message: `must be an object of at most ${METADATA_LIMITS.keys} keys (each at most ${METADATA_LIMITS.keyLength} characters) with string values of at most ${METADATA_LIMITS.valueLength} characters${options.removable ? ' (null or "" removes a key)' : ''}`,
        ...validation,
      },
      validator: {
        validate: (value: unknown) => {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
          const entries = Object.entries(value);
          return (
            entries.length <= METADATA_LIMITS.keys &&
            entries.every(
              ([key, v]) =>
                key.length > 0 &&
                key.length <= METADATA_LIMITS.keyLength &&
                ((typeof v === 'string' && v.length <= METADATA_LIMITS.valueLength) || (options.removable === true && v === null)),
            )
          );
        },
      },
    });
}

/**
 * Optional, but not nullable: absent skips the field's checks, null goes through them (and fails).
 * IsOptional lets null through, which a column that is NOT NULL would then refuse with a 500.
 */
export const IsOptionalNotNull = () => ValidateIf((_object: object, value: unknown) => value !== undefined);
