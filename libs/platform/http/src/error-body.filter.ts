// Every failure leaves as the spec's error body {error, code, msg, cause, status?},
// with the request's id in requestId (ADR 0026):
// domain errors, validation, unknown routes, body-parser and framework errors.
// Anything unexpected is a 500 with no internals in the body, and is logged.
import { ArgumentsHost, Catch, HttpException, Logger, NotFoundException, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { ApiError, ERROR_CATALOGUE, type ErrorBody, type ErrorName } from '@mm/contracts';
import { ConcurrencyError } from '@mm/platform/event-store';
import { API_BASE_PATH, OUTSIDE_BASE_PATH } from './base-path';
import { BearerAuthError } from './bearer-auth.error';
import { lingerUntilTheBodyArrives } from './connection-limits';
import { allowedMethods } from './method-not-allowed';
import { REQUEST_ID_HEADER } from './request-id';

export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
}

const FASTIFY_CODES: Record<string, ErrorName> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PayloadTooLarge',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UnsupportedMediaType',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'MalformedJson',
  FST_ERR_CTP_INVALID_JSON_BODY: 'MalformedJson',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'InvalidRequest',
  FST_ERR_CTP_INVALID_TYPE: 'UnsupportedMediaType',
};

const STATUS_NAMES: Record<number, ErrorName> = {
  400: 'InvalidRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'RateLimited',
  503: 'ServiceUnavailable',
};

function named(name: ErrorName, cause?: string): ErrorResponse {
  const error = new ApiError(name, cause);
  return { status: error.definition.status, body: error.toBody(), headers: {} };
}

/** Longest cause (and msg, error_description) sent: causes can echo what the client sent. */
export const MAX_CAUSE_LENGTH = 500;

export function boundText(text: string, max = MAX_CAUSE_LENGTH): string {
  if (text.length <= max) return text;
  // Never cut a surrogate pair in half.
  const end = /[\ud800-\udbff]/.test(text[max - 1]) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

const BASE_PATH = `/${API_BASE_PATH}`;
/** A first path segment that names a version: v1, V2, v0.12, v0.13.1. */
const VERSION_SEGMENT = /^\/v\d+(\.\d+)*(?=\/|$)/i;

/**
 * The cause of a 404 for a path no route serves (the framework says "Cannot GET /v1/customers"). A
 * path outside the base path is most likely a client configured with another version or none: the
 * cause says where the API lives, and the path it probably meant.
 */
export function noRouteCause(frameworkMessage: string): string {
  const cause = frameworkMessage.replace(/^Cannot /, 'no route ');
  const match = /^no route ([A-Z]+) (\S+)$/.exec(cause);
  if (!match) return cause;
  const path = match[2].split('?')[0];
  if (
    path === BASE_PATH ||
    path.startsWith(`${BASE_PATH}/`) ||
    OUTSIDE_BASE_PATH.some((p) => path === `/${p}` || path.startsWith(`/${p}/`))
  )
    return cause;
  const meant = VERSION_SEGMENT.test(path)
    ? path.replace(VERSION_SEGMENT, BASE_PATH)
    : `${BASE_PATH}${path === '/' ? '' : path}`;
  return `no route ${match[1]} ${path}: this API lives under ${BASE_PATH} (${match[1]} ${meant || BASE_PATH})`;
}

/** Maps any thrown value to the status, body and headers the partner sees. */
export function toErrorResponse(exception: unknown): ErrorResponse {
  const response = describeError(exception);
  const body: ErrorBody = {
    ...response.body,
    msg: boundText(response.body.msg),
    cause: boundText(response.body.cause),
  };
  if (body.error_description !== undefined) body.error_description = boundText(body.error_description);
  return { ...response, body };
}

function describeError(exception: unknown): ErrorResponse {
  if (exception instanceof ApiError) {
    return { status: exception.definition.status, body: exception.toBody(), headers: exception.headers };
  }
  if (exception instanceof BearerAuthError) {
    const unauthorized = ERROR_CATALOGUE.Unauthorized;
    return {
      status: exception.status,
      body: {
        error: exception.errorCode,
        error_description: exception.description,
        code: unauthorized.code,
        msg: unauthorized.msg,
        cause: exception.description,
        status: exception.status,
      },
      headers: { 'www-authenticate': exception.wwwAuthenticate },
    };
  }
  if (exception instanceof ConcurrencyError) return named('Conflict');
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const name = STATUS_NAMES[status];
    // The throttler's own text names its class; Retry-After is already on the reply.
    if (status === 429)
      return named(
        'RateLimited',
        'too many requests from this client; retry after the number of seconds in Retry-After',
      );
    const response = exception.getResponse();
    const message =
      typeof response === 'object' && response && 'message' in response
        ? (response as { message: unknown }).message
        : exception.message;
    const cause = Array.isArray(message) ? message.join('; ') : String(message);
    if (name) return named(name, status === 404 ? noRouteCause(cause) : cause);
    return {
      status,
      body: { error: 'HttpError', code: ERROR_CATALOGUE.InternalError.code, msg: cause, cause, status },
      headers: {},
    };
  }
  const fastifyError = exception as { code?: string; statusCode?: number; message?: string } | null;
  if (fastifyError && typeof fastifyError.code === 'string' && FASTIFY_CODES[fastifyError.code]) {
    return named(FASTIFY_CODES[fastifyError.code], fastifyError.message);
  }
  if (exception instanceof SyntaxError && fastifyError?.statusCode === 400)
    return named('MalformedJson', exception.message);
  if (fastifyError?.statusCode && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return named(STATUS_NAMES[fastifyError.statusCode] ?? 'InvalidRequest', fastifyError.message);
  }
  return named('InternalError');
}

/** No route for this method and path (the router's 404, "Cannot DELETE /v0.13/customers"). */
function isNoRoute(exception: unknown): boolean {
  return exception instanceof NotFoundException && /^Cannot [A-Z]+ /.test(exception.message);
}

/** The router's 404 for a path that takes other methods: 405 with Allow. */
function methodNotAllowed(reply: FastifyReply): ApiError | undefined {
  const allowed = allowedMethods(reply.request);
  if (!allowed) return undefined;
  const path = reply.request.url.split('?')[0];
  return new ApiError('MethodNotAllowed', `${path} takes ${allowed.join(', ')}, not ${reply.request.method}`, {
    allow: allowed.join(', '),
  });
}

export function sendError(reply: FastifyReply, exception: unknown, logger: Logger): void {
  const response = toErrorResponse((isNoRoute(exception) && methodNotAllowed(reply)) || exception);
  // The request's id (ADR 0026): Fastify gives every request one before any hook or handler runs.
  const requestId = String(reply.request.id);
  if (response.status >= 500 && !(exception instanceof BearerAuthError) && !(exception instanceof ApiError)) {
    logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
  }
  // Refused before its body had arrived (too large, malformed): let the client read the answer.
  if (!reply.request.raw.complete && reply.getHeader('connection') === 'close')
    lingerUntilTheBodyArrives(reply.request.raw);
  void reply
    .status(response.status)
    .headers({ ...response.headers, [REQUEST_ID_HEADER]: requestId })
    .type('application/json')
    .send({ ...response.body, requestId });
}

@Catch()
export class ErrorBodyFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    sendError(host.switchToHttp().getResponse<FastifyReply>(), exception, this.logger);
  }
}
