// Every request the page sends: the API's own routes on this origin, typed by the OpenAPI document's
// generated types (the client package's; only its types, since its runtime is made for Node). The
// credential lives in the session (session.ts), never in a URL; POST and PATCH carry a new
// Idempotency-Key per action (a click is a new intent); refusals become ApiProblem with the API's words.
import type { ApiPath, HttpMethod, QueryParams, RequestBody, ResponseBody } from '@meridian/money-movement/types';
import { currentSession, expireSession } from './session';

export type { Schemas } from '@meridian/money-movement/types';

/** A refusal in the API's error body, or a failure to reach it. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly code: number,
    readonly cause: string,
    readonly requestId?: string,
  ) {
    super(cause ? `${error}: ${cause}` : error);
  }
}

function newIdempotencyKey(): string {
  // getRandomValues works on plain-HTTP origins too, where randomUUID does not.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash_${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`no ${name} for ${path}`);
    return encodeURIComponent(value);
  });
}

export interface CallOptions<P extends ApiPath, M extends HttpMethod> {
  params?: Record<string, string>;
  query?: Partial<Record<keyof QueryParams<P, M> & string, string | number | boolean | undefined>>;
  body?: RequestBody<P, M>;
  /** For sign-in: the credential to send instead of the session's (null: none). */
  token?: string | null;
}

/** Attempts of a request that got no answer at all: the first, then two more a moment apart. */
const ATTEMPTS = 3;

/**
 * A request, sent again when no answer came (the browser drops requests in flight when the machine's network
 * changes, for one): a write carries the same idempotency key each time, so the platform acts on it once.
 */
async function send(url: URL, init: RequestInit): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init);
    } catch {
      if (attempt === ATTEMPTS)
        throw new ApiProblem(0, 'Unreachable', 0, 'the API did not answer: is the platform running?');
      await new Promise((resume) => setTimeout(resume, 250 * attempt));
    }
  }
}

export async function call<P extends ApiPath, M extends HttpMethod>(
  method: M,
  path: P,
  options: CallOptions<P, M> = {},
): Promise<ResponseBody<P, M>> {
  const url = new URL(fillPath(path, options.params), location.origin);
  for (const [key, value] of Object.entries(options.query ?? {}))
    if (value !== undefined && value !== '') url.searchParams.set(key, String(value));
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = options.token === undefined ? currentSession()?.token : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  if ((method === 'post' || method === 'patch') && !path.endsWith('/auth/token'))
    headers['idempotency-key'] = newIdempotencyKey();
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await send(url, {
    method: method.toUpperCase(),
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const e = (body ?? {}) as {
      error?: string;
      code?: number;
      cause?: string;
      msg?: string;
      error_description?: string;
      requestId?: string;
    };
    const problem = new ApiProblem(
      response.status,
      e.error ?? `HTTP ${response.status}`,
      e.code ?? 0,
      e.cause ?? e.error_description ?? e.msg ?? text.slice(0, 200),
      e.requestId ?? response.headers.get('x-request-id') ?? undefined,
    );
    // An expired or revoked credential: back to sign-in, saying why.
    if (response.status === 401 && token && options.token === undefined) expireSession(problem.cause);
    throw problem;
  }
  return body as ResponseBody<P, M>;
}

export const get = <P extends ApiPath>(path: P, options?: CallOptions<P, 'get'>) => call('get', path, options);
export const post = <P extends ApiPath>(path: P, options?: CallOptions<P, 'post'>) => call('post', path, options);
export const patch = <P extends ApiPath>(path: P, options?: CallOptions<P, 'patch'>) => call('patch', path, options);
export const del = <P extends ApiPath>(path: P, options?: CallOptions<P, 'delete'>) => call('delete', path, options);
