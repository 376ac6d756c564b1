import { registerDecorator, type ValidationOptions } from 'class-validator';
import { dec, isDecimalString } from '@mm/platform/money';

/** A decimal string amount (no exponent, no float), strictly positive, with at most `scale` decimals. */
export function IsPositiveAmount(scale = 6, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPositiveAmount',
      target: target.constructor,
      propertyName,
      options: { message: `must be a positive decimal string with at most ${scale} decimals, for example "10.50"`, ...options },
      validator: {
        validate: (value: unknown) =>
          isDecimalString(value) && dec(value).gt(0) && (value.split('.')[1]?.length ?? 0) <= scale,
      },
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
