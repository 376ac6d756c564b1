// Request validation with class-validator: unknown fields, wrong types and
// missing fields are a 400 InvalidRequest naming each problem (a missing field
// once, as "is required"); a body whose
// only problems are amounts is a 400 InvalidAmount (ADR 0023), as a handler
// that checks an amount later answers; a missing body, or one that is not a
// JSON object, is refused before validation.
import { Injectable, ValidationPipe, type ArgumentMetadata, type Type, type ValidationError } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { ApiError } from '@mm/contracts';
import { AMOUNT_CONSTRAINT } from './validators';
import { keepValidationMetadata } from './validation-metadata';

keepValidationMetadata();

/** A constraint's own sentence, without the property name class-validator starts it with. */
const sentence = (error: ValidationError, message: string) => message.replace(new RegExp(`^${error.property} `), '');

/**
 * One line per problem. A required field that is absent is one problem, "is required" (or its own
 * rule's words when they start so, as an amount's do), not one line per rule it would have broken;
 * a field that is present keeps every rule it breaks.
 */
function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {});
    if ('value' in error && error.value === undefined && messages.length > 0 && !messages.some((m) => m.startsWith('property '))) {
      return [`${path}: ${messages.map((m) => sentence(error, m)).find((m) => m.startsWith('is required')) ?? 'is required'}`];
    }
    const own = messages.map((message) => (message.startsWith('property ') ? `${path}: unknown field` : `${path}: ${sentence(error, message)}`));
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
  return new ApiError(onlyAmounts ? 'InvalidAmount' : 'InvalidRequest', summariseProblems(describe(errors, path)) || 'invalid request');
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
      // No bytes at all (or Content-Length: 0, or an empty chunked body): say so, rather than call it malformed.
      if (value === undefined) throw new ApiError('InvalidRequest', 'the request has no body; this route takes a JSON object');
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
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ApiError('InvalidRequest', path ? `${path}: must be an object` : 'the body must be a JSON object');
  let instance: T;
  let errors: ValidationError[];
  try {
    instance = plainToInstance(cls, value);
    errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true, validationError: { target: false, value: true } });
  } catch {
    // class-transformer cannot construct some shapes (an object whose `constructor` is not a function).
    throw new ApiError('InvalidRequest', path ? `${path}: has a field of a shape it cannot have` : 'the body has a field of a shape it cannot have');
  }
  if (errors.length > 0) throw validationError(errors, path);
  return instance;
}
