import { applyDecorators } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { registerDecorator, ValidateIf, type ValidationOptions } from 'class-validator';
import { amountProblem, type AmountRule } from '@mm/platform/money';

/** What a JSON value is, in words, for a message that says what was sent instead. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

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

/**
 * Unicode's bidirectional formatting characters (UAX #9): the Arabic letter mark, the left-to-right and
 * right-to-left marks, the embeddings and overrides (U+202A to U+202E) and the isolates (U+2066 to U+2069).
 * In a label shown to people they reorder what is displayed around them ("Trojan Source").
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** C0 controls (line breaks and tabs included), DEL and C1 controls. */
const CONTROLS = /\p{Cc}/u;

/** Why a label (already trimmed) is refused, or undefined: one sentence, the first rule it breaks. */
export function labelProblem(value: unknown, maxLength: number): string | undefined {
  if (typeof value !== 'string') return `must be a string, not ${kindOf(value)}`;
  if (!/[^\s\p{Cc}\p{Cf}]/u.test(value)) return 'must contain a visible character, not be empty or only spaces';
  if (CONTROLS.test(value)) return 'must be one line, without control characters (line breaks, tabs)';
  if (BIDI_CONTROLS.test(value))
    return 'must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069)';
  if (value.length > maxLength) return `must be at most ${maxLength} characters`;
  return undefined;
}

/**
 * A label or description partners show to people (issue 42, item 9): trimmed, then refused when empty, when it
 * holds a control character or a bidirectional formatting character, or when longer than `maxLength`; one
 * message, the first rule broken. Absence and null are the field's own business (IsOptionalNotNull, or
 * IsOptional where null removes it).
 */
export function IsLabel(maxLength: number, options?: ValidationOptions) {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value)),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: 'isLabel',
        target: target.constructor,
        propertyName: propertyName as string,
        options: { message: (args) => labelProblem(args.value, maxLength) ?? '', ...options },
        validator: { validate: (value: unknown) => labelProblem(value, maxLength) === undefined },
      }),
  );
}

/** Stripe's metadata bounds: up to 50 keys of at most 40 characters, string values of at most 500. */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500 } as const;

/**
 * A metadata object: string keys and string values within METADATA_LIMITS. With
 * `removable`, a value may be null or "" (an update that removes the key). Whether
 * the whole field may be null (a PATCH that removes every key) is the field's own
 * decorators' business: IsOptional lets it through, IsOptionalNotNull does not.
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
                ((typeof v === 'string' && v.length <= METADATA_LIMITS.valueLength) ||
                  (options.removable === true && v === null)),
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
