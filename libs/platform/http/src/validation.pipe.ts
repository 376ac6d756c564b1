// Request validation with class-validator: unknown fields, wrong types and
// missing fields are a 400 InvalidRequest naming each field's problem, one
// message a field (a missing field as "is required", a field of the wrong type
// as its type and what was sent instead, else the first rule it breaks); a body
// whose only problems are amounts is a 400 InvalidAmount (ADR 0023), as a
// handler that checks an amount later answers; a missing body, or one that is
// not a JSON object, is refused before validation.
import { Injectable, ValidationPipe, type ArgumentMetadata, type Type, type ValidationError } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ApiError } from '@mm/contracts';
import { AMOUNT_CONSTRAINT, kindOf } from './validators';
import { keepValidationMetadata } from './validation-metadata';

keepValidationMetadata();

/** A constraint's own sentence, without the property name class-validator starts it with. */
const sentence = (error: ValidationError, message: string) => message.replace(new RegExp(`^${error.property} `), '');

/**
 * The rules about what a value is, most telling first: when one fails, the field is told that alone
 * ("must be an integer number, not a string"), not also the bounds a value of the right type would have
 * to keep, which read as contradictions ("must not be greater than 720; must not be less than 1").
 */
const TYPE_RULES: Record<string, (value: unknown) => boolean> = {
  isObject: (v) => v !== null && typeof v === 'object' && !Array.isArray(v),
  isArray: (v) => Array.isArray(v),
  isString: (v) => typeof v === 'string',
  isInt: (v) => typeof v === 'number',
  isNumber: (v) => typeof v === 'number',
  isBoolean: (v) => typeof v === 'boolean',
  nestedValidation: (v) => v !== null && typeof v === 'object',
};

/**
 * A field's one message (issue 42, item 9). A required field that is absent is "is required" (or its own
 * rule's words when they start so, as an amount's do); a field of the wrong type is told its type and what
 * was sent ("must be a string, not null"); otherwise the first rule it breaks, in the order the DTO writes
 * them (class-validator lists a property's rules last-written first).
 */
function fieldMessage(error: ValidationError, path: string): string {
  const constraints = error.constraints ?? {};
  const names = Object.keys(constraints);
  if (names.some((name) => constraints[name].startsWith('property '))) return `${path}: unknown field`;
  if ('value' in error && error.value === undefined) {
    return `${path}: ${names.map((name) => sentence(error, constraints[name])).find((m) => m.startsWith('is required')) ?? 'is required'}`;
  }
  const typeRule = Object.keys(TYPE_RULES).find((name) => name in constraints);
  if (typeRule) {
    const message = typeRule === 'nestedValidation' ? 'must be an object' : sentence(error, constraints[typeRule]);
    // "each value in names must be a string" is about the items: what the field itself is says nothing.
    const sent =
      !message.startsWith('each value') && !TYPE_RULES[typeRule](error.value) ? `, not ${kindOf(error.value)}` : '';
    return `${path}: ${message}${sent}`;
  }
  return `${path}: ${sentence(error, constraints[names[names.length - 1]])}`;
}

/** One line per field with a problem, at any depth. */
function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.keys(error.constraints ?? {}).length > 0 ? [fieldMessage(error, path)] : [];
    return [...own, ...describe(error.children ?? [], path)];
  });
}

/** Every failed constraint, at any depth. */
function constraintNames(errors: ValidationError[]): string[] {
  return errors.flatMap((error) => [...Object.keys(error.constraints ?? {}), ...constraintNames(error.children ?? [])]);
}

/** InvalidAmount when every problem is an amount's (the same error a handler gives), else InvalidRequest. */
export function validationError(errors: ValidationError[], path = ''): ApiError {
  const names = constraintNames(errors);
  const onlyAmounts = names.length > 0 && names.every((name) => name === AMOUNT_CONSTRAINT);
  return new ApiError(
    onlyAmounts ? 'InvalidAmount' : 'InvalidRequest',
    summariseProblems(describe(errors, path)) || 'invalid request',
  );
}

/** The first problems, within about `budget` characters, then how many more: 60,000 unknown keys are one line. */
export function summariseProblems(problems: string[], budget = 300): string {
  const shown: string[] = [];
  let length = 0;
  for (const problem of problems) {
    if (shown.length > 0 && length + problem.length > budget) break;
    shown.push(problem);
    length += problem.length + 2;
  }
  const more = problems.length - shown.length;
  return shown.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

const BODY_MAY_BE_ABSENT = 'mm:body-may-be-absent';
/**
 * On a request class whose fields are all optional: a request without a body is taken as `{}` (a route that
 * gained optional fields keeps answering the callers that send none).
 */
export const BodyMayBeAbsent = (): ClassDecorator => (target) =>
  Reflect.defineMetadata(BODY_MAY_BE_ABSENT, true, target);

@Injectable()
export class RequestValidationPipe extends ValidationPipe {
  constructor() {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      // The value only tells describe() that a field is absent; no value leaves this file.
      validationError: { target: false, value: true },
      exceptionFactory: (errors) => validationError(errors),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && metadata.metatype && metadata.metatype !== Object) {
      // A body whose every field is optional, on a route that took none before: none is an empty one.
      if (value === undefined && Reflect.getMetadata(BODY_MAY_BE_ABSENT, metadata.metatype)) value = {};
      // No bytes at all (or Content-Length: 0, or an empty chunked body): say so, rather than call it malformed.
      if (value === undefined)
        throw new ApiError('InvalidRequest', 'the request has no body; this route takes a JSON object');
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw new ApiError('InvalidRequest', 'the body must be a JSON object');
      }
    }
    return super.transform(value, metadata);
  }
}

/**
 * Validates one part of a body as the pipe validates a whole one, for a part
 * whose class depends on another field (a per-type object named after `type`):
 * unknown fields, wrong types and missing fields are a 400 naming `path.field`.
 */
export function validateObject<T extends object>(cls: Type<T>, value: unknown, path: string): T {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ApiError('InvalidRequest', path ? `${path}: must be an object` : 'the body must be a JSON object');
  let instance: T;
  let errors: ValidationError[];
  try {
    instance = plainToInstance(cls, value);
    errors = validateSync(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: true },
    });
  } catch {
    // class-transformer cannot construct some shapes (an object whose `constructor` is not a function).
    throw new ApiError(
      'InvalidRequest',
      path ? `${path}: has a field of a shape it cannot have` : 'the body has a field of a shape it cannot have',
    );
  }
  if (errors.length > 0) throw validationError(errors, path);
  return instance;
}
