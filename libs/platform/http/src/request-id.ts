// Every request has an id (ADR 0026): the caller's X-Request-Id when it is a
// valid one, else a new one. The response carries it in X-Request-Id, error
// bodies in `requestId`, and every log line written while the request is
// handled in `requestId` (the logger reads it from the request's async
// context). The gateway and the service ports forward it, so one request is one
// id in every process it reaches. One access line per request, at info.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { typeid } from 'typeid-js';
import { currentScope, inRequestScope } from '@mm/platform/database';
import type { ApiRequest } from './request-context';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * A caller's id is kept when it is 1 to 128 characters, each a letter, a digit or one of `- . _ ~ : + = @ /`:
 * UUIDs, ULIDs, TypeIDs, base64 and trace ids fit; spaces, quotes, commas (two headers joined), control
 * characters and anything outside ASCII do not. Anything else is replaced, never echoed.
 */
export const VALID_REQUEST_ID = /^[A-Za-z0-9._~:+=@/-]{1,128}$/;

/** A new id: `req_` and a time-sortable TypeID body, like the platform's other ids. */
export function newRequestId(): string {
  return typeid('req').toString();
}

/** The id of a request with this X-Request-Id header (absent, repeated or invalid: a new one). */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === 'string' && VALID_REQUEST_ID.test(header) ? header : newRequestId();
}

/** Fastify's genReqId: the id every request gets before anything else runs. */
export function genRequestId(request: IncomingMessage): string {
  return requestIdFor(request.headers[REQUEST_ID_HEADER]);
}

/** The id of the request being handled here, if any (the logger's mixin; the service ports forward it). */
export function currentRequestId(): string | undefined {
  return currentScope()?.requestId;
}

/** Runs fn as the request with this id: its log lines carry it. (The unit of work's transactions travel in the same async scope.) */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return inRequestScope(requestId, fn);
}

export interface AccessLogger {
  info(fields: Record<string, unknown>, message: string): void;
  /** Whether info lines are written at all (pino's): when not, the line is not even composed. */
  isLevelEnabled?(level: string): boolean;
}

/** The longest unmatched path an access line carries. */
const MAX_LOGGED_PATH = 200;

/**
 * The access line of a request: method, route pattern (the path, without its query, only when no route
 * matched), status, duration, the project when a partner token was accepted, and the request id. Never
 * a body, a query string or a header.
 */
export function accessLine(
  request: FastifyRequest,
  reply: FastifyReply,
): { fields: Record<string, unknown>; message: string } {
  const route = request.routeOptions.url;
  const durationMs = Math.round(reply.elapsedTime * 10) / 10;
  const fields: Record<string, unknown> = { requestId: request.id, method: request.method, route: route ?? null };
  if (route === undefined) fields.path = request.url.split('?')[0].slice(0, MAX_LOGGED_PATH);
  fields.status = reply.statusCode;
  fields.durationMs = durationMs;
  const projectId = (request as ApiRequest).caller?.projectId;
  if (projectId) fields.projectId = projectId;
  return { fields, message: `${request.method} ${route ?? fields.path} ${reply.statusCode} ${durationMs} ms` };
}

/**
 * On the Fastify instance before any route or plugin, so its hooks run first: the X-Request-Id response
 * header, the request's async context (everything after this hook runs in it: Fastify reads the body in
 * the request's async resource, not the socket's), and the access line once the response is sent.
 */
export function traceRequests(fastify: FastifyInstance, accessLog: AccessLogger): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    withRequestId(request.id, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    if (accessLog.isLevelEnabled?.('info') !== false) {
      const { fields, message } = accessLine(request, reply);
      accessLog.info(fields, message);
    }
    done();
  });
}
