// Hostile input stops at the door (ADR 0008): every JSON body, path parameter
// and query parameter is checked before any handler, pipe or query runs, so a
// deep, duplicated or un-storable value is a 400 and never a stack overflow or
// a PostgreSQL refusal (500).
//
// Authentication comes before the body (ADR 0008, issue 17): a body the parsers
// refuse is kept with the request and raised by the auth guard once it has
// decided the caller, so an unauthenticated request is a 401 whatever it sent.
// An empty body (zero bytes, by Content-Length: 0 or an empty chunked body) is
// no body, whatever its Content-Type says.
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '@mm/contracts';
import { sendError } from './error-body.filter';

/** Containers (objects and arrays) one inside another; the deepest DTO needs 3. */
export const MAX_JSON_DEPTH = 32;
/**
 * Width, which costs CPU further on (class-transformer's key de-duplication
 * is quadratic: 60,000 keys held the event loop for 3 s). Our DTOs need tens.
 */
export const MAX_JSON_OBJECT_KEYS = 1000;
export const MAX_JSON_VALUES = 10_000;

// PostgreSQL text cannot hold NUL, and an unpaired UTF-16 surrogate has no UTF-8 encoding.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be accepted as text, or undefined when it can. */
export function unstorableText(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (LONE_SURROGATE.test(value)) return 'must not contain an unpaired UTF-16 surrogate';
  return undefined;
}

interface Frame {
  /** Keys seen so far: objects only. */
  keys?: Set<string>;
  key?: string;
  index: number;
  expectKey: boolean;
}

function pathOf(stack: Frame[]): string {
  const path = stack.map((f) => (f.keys ? `.${f.key ?? ''}` : `[${f.index}]`)).join('');
  return path.startsWith('.') ? path.slice(1) : path || 'body';
}

/**
 * The problem with syntactically valid JSON text that JSON.parse accepts
 * silently: too deep, a key twice (the last would win), text PostgreSQL cannot
 * store. Iterative, one pass over the text: nothing recursive runs on a hostile body.
 */
export function jsonTextProblem(text: string): string | undefined {
  const stack: Frame[] = [];
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if ((c === '{' || c === '[' || c === ',') && ++values > MAX_JSON_VALUES)
      return `the body holds more than ${MAX_JSON_VALUES} values`;
    if (c === '{' || c === '[') {
      if (stack.length >= MAX_JSON_DEPTH)
        return `the body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`;
      stack.push(c === '{' ? { keys: new Set(), index: 0, expectKey: true } : { index: 0, expectKey: false });
    } else if (c === '}' || c === ']') {
      stack.pop();
    } else if (c === ',') {
      const top = stack[stack.length - 1];
      top.index++;
      top.expectKey = top.keys !== undefined;
    } else if (c === '"') {
      let end = i + 1;
      let escaped = false;
      while (text[end] !== '"') {
        if (text[end] === '\\') {
          escaped = true;
          end++;
        }
        end++;
      }
      const value: string = escaped ? JSON.parse(text.slice(i, end + 1)) : text.slice(i + 1, end);
      i = end;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        top.expectKey = false;
        top.key = value;
        if (top.keys.has(value)) return `${pathOf(stack)}: duplicate key`;
        top.keys.add(value);
        if (top.keys.size > MAX_JSON_OBJECT_KEYS)
          return `${pathOf(stack.slice(0, -1))}: an object with more than ${MAX_JSON_OBJECT_KEYS} keys`;
        const problem = unstorableText(value);
        if (problem) return `${pathOf(stack)}: the key ${problem}`;
      } else {
        const problem = unstorableText(value);
        if (problem) return `${pathOf(stack)}: ${problem}`;
      }
    }
  }
  return undefined;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The charset parameter of a Content-Type, lower case, or undefined when absent. */
function charsetOf(contentType: string | undefined): string | undefined {
  for (const parameter of (contentType ?? '').split(';').slice(1)) {
    const [name, value = ''] = parameter.split('=');
    if (name.trim().toLowerCase() === 'charset')
      return value
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
  }
  return undefined;
}

const DEFERRED_BODY = Symbol('mm.deferredBody');

/** A body the parsers refused: why, and its bytes as they came. */
export interface DeferredBody {
  problem: unknown;
  bytes: Buffer;
}

type WithDeferredBody = FastifyRequest & { [DEFERRED_BODY]?: DeferredBody };

/** The body the parsers refused, if they did; the request's body is then undefined. */
export function deferredBody(request: FastifyRequest): DeferredBody | undefined {
  return (request as WithDeferredBody)[DEFERRED_BODY];
}

/** Throws why the parsers refused the body, if they did: called once authentication has decided the caller. */
export function raiseBodyProblem(request: FastifyRequest): void {
  const deferred = deferredBody(request);
  if (deferred) throw deferred.problem;
}

type Done = (error: Error | null, body?: unknown) => void;

function refuseLater(request: FastifyRequest, bytes: Buffer, problem: unknown, done: Done): void {
  (request as WithDeferredBody)[DEFERRED_BODY] = { problem, bytes };
  done(null, undefined);
}

/** The media type of a Content-Type header, lower case, without parameters. */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * application/json parsed our way: UTF-8 only and strictly decoded, then
 * Fastify's own parser (secure-json-parse: __proto__ and constructor poisoning
 * refused), then the checks JSON.parse does not make. Every other media type
 * is read (within the body limit) and refused as 415, later, like a bad body.
 */
function installBodyParsers(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  const parse = fastify.getDefaultJsonParser('error', 'error');
  // Through Nest, which otherwise registers its own JSON (and form) parser at init.
  app.useBodyParser('application/json', {}, (request: FastifyRequest, body: Buffer, done: Done) => {
    if (body.length === 0) return done(null, undefined);
    const charset = charsetOf(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return refuseLater(
        request,
        body,
        new ApiError('UnsupportedMediaType', `send JSON in UTF-8, not charset=${charset.slice(0, 40)}`),
        done,
      );
    }
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      return refuseLater(request, body, new ApiError('MalformedJson', 'the body is not valid UTF-8'), done);
    }
    parse(request, text, (error, value) => {
      if (error) return refuseLater(request, body, error, done);
      const problem = jsonTextProblem(text);
      if (problem) return refuseLater(request, body, new ApiError('InvalidRequest', problem), done);
      done(null, value);
    });
  });
  // Fastify's text/plain parser would hand handlers a string; '*' also takes a body without a Content-Type.
  fastify.removeContentTypeParser('text/plain');
  fastify.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer, done: Done) => {
    if (body.length === 0) return done(null, undefined);
    const type = mediaTypeOf(request.headers['content-type']);
    refuseLater(
      request,
      body,
      new ApiError(
        'UnsupportedMediaType',
        `send the body as application/json, not ${type.slice(0, 80) || 'an untyped body'}`,
      ),
      done,
    );
  });
}

function parameterProblem(values: unknown, kind: string): string | undefined {
  if (!values || typeof values !== 'object') return undefined;
  for (const [name, value] of Object.entries(values)) {
    // A gateway's forwarding route ('*'): the service that owns the path checks it, by name.
    if (name === '*') continue;
    const nameProblem = unstorableText(name);
    if (nameProblem) return `a ${kind} name ${nameProblem}`;
    for (const item of Array.isArray(value) ? value : [value]) {
      const problem = typeof item === 'string' ? unstorableText(item) : undefined;
      if (problem) return `${kind} ${name}: ${problem}`;
    }
  }
  return undefined;
}

/** Installs the body parsers and the path and query parameter check on every route. */
export function guardRequestInput(app: NestFastifyApplication): void {
  installBodyParsers(app);
  const logger = new Logger('http');
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', async (request, reply) => {
      const problem =
        parameterProblem(request.params, 'path parameter') ?? parameterProblem(request.query, 'query parameter');
      if (!problem) return;
      sendError(reply, new ApiError('InvalidRequest', problem), logger);
      return reply;
    });
}
