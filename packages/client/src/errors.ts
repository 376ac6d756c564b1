// What the client throws. Every refusal of the API becomes an ApiError carrying
// the error body the API sends ({error, code, msg, cause, status?}) and the
// request's id (the X-Request-Id response header), so that a caller can branch
// on `error` or `code` and quote the id when asking about a request.

/** The error body of the API. */
export interface ErrorBody {
  /** A stable name (`CustomerNotFound`), or on bearer-token refusals an RFC 6750 code (`invalid_token`). */
  error: string;
  /** The numeric code of the catalogue. */
  code: number;
  /** The catalogue's message for the code. */
  msg: string;
  /** What was wrong with this request, in words. */
  cause: string;
  status?: number;
  /** The reason in words, on bearer-token refusals and the token endpoint's. */
  error_description?: string;
  requestId?: string;
}

function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const body = value as Record<string, unknown>;
  return (
    typeof body.error === 'string' &&
    typeof body.code === 'number' &&
    typeof body.msg === 'string' &&
    typeof body.cause === 'string'
  );
}

/** A response of the API that is not a success, as the API described it. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The error's name, as in the body (`CustomerNotFound`, `IdempotencyKeyInFlight`, `invalid_token`, …). */
  readonly error: string;
  /** The catalogue's numeric code; 0 when the response carried no error body (a proxy's page, say). */
  readonly code: number;
  readonly msg: string;
  /** What was wrong with this request, in words. */
  override readonly cause: string;
  /** The HTTP status of the response. */
  readonly status: number;
  /** The response's X-Request-Id: quote it when asking about a request. */
  readonly requestId: string | undefined;
  /** The reason in words, on bearer-token refusals and the token endpoint's. */
  readonly errorDescription: string | undefined;
  /** The response's Retry-After, in seconds, when it sent one. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: { status: number; body: ErrorBody; requestId?: string; retryAfterSeconds?: number }) {
    const { status, body } = init;
    const requestId = init.requestId ?? body.requestId;
    super(
      `${status} ${body.error} (${body.code}): ${body.msg}${body.cause && body.cause !== body.msg ? `: ${body.cause}` : ''}${requestId ? ` [request ${requestId}]` : ''}`,
    );
    this.error = body.error;
    this.code = body.code;
    this.msg = body.msg;
    this.cause = body.cause;
    this.status = status;
    this.requestId = requestId;
    this.errorDescription = body.error_description;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** The error a response stands for, whatever its body: the API's error body when it sent one. */
  static fromResponse(response: { status: number; headers: Headers }, body: unknown, text: string): ApiError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const retryAfterSeconds = parseRetryAfter(response.headers.get('retry-after'));
    if (isErrorBody(body)) return new ApiError({ status: response.status, body, requestId, retryAfterSeconds });
    const excerpt = text.replace(/\s+/g, ' ').trim().slice(0, 200);
    return new ApiError({
      status: response.status,
      body: {
        error: 'UnexpectedResponse',
        code: 0,
        msg: `the server answered ${response.status} without an error body`,
        cause: excerpt || 'empty body',
      },
      requestId,
      retryAfterSeconds,
    });
  }
}

/** Retry-After in seconds (RFC 9110: a number of seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Why a webhook delivery was refused by `webhooks.verify`. */
export type WebhookVerificationReason =
  'missingSignature' | 'malformedSignature' | 'staleTimestamp' | 'badSignature' | 'malformedBody';

/** A webhook delivery that did not verify: do not act on it. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}
