// The HTTP side of a port (ADR 0019): one service posting to another's internal
// route with the internal credential. Errors come back as the owner threw them
// (the catalogue name and cause of its error body); an owner that cannot be
// reached is ServiceUnavailable, so the caller's request fails whole and a retry
// with the same ids is safe.
import { ApiError, ERROR_CATALOGUE, type ErrorName } from '@mm/contracts';
import { API_BASE_PATH } from './base-path';
import { currentRequestId, REQUEST_ID_HEADER } from './request-id';

function requestIdHeader(): Record<string, string> {
  const id = currentRequestId();
  return id ? { [REQUEST_ID_HEADER]: id } : {};
}

export class InternalClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly timeoutMs: number,
    /**
     * Run before each call leaves the process: the caller's transaction sends its idempotency claim if it has
     * not gone yet and waits for its judgement (settleIdempotencyClaim), so that no other service acts on a
     * request this one refuses.
     */
    private readonly beforeCall: () => Promise<void> = async () => undefined,
  ) {}

  async call<T>(route: string, body: unknown): Promise<T> {
    await this.beforeCall();
    const url = `${this.baseUrl.replace(/\/+$/, '')}/${API_BASE_PATH}/${route}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        // The caller's request id travels on, so the owner's log lines and error bodies carry it too.
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}`, ...requestIdHeader() },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new ApiError(
        'ServiceUnavailable',
        `${new URL(url).host} could not be reached: ${(error as Error).message}`,
        { 'retry-after': '1' },
      );
    }
    const text = await response.text();
    const parsed = text ? (JSON.parse(text) as unknown) : undefined;
    if (response.ok) return parsed as T;
    const error = parsed as { error?: string; cause?: string } | undefined;
    if (error?.error && Object.hasOwn(ERROR_CATALOGUE, error.error))
      throw new ApiError(error.error as ErrorName, error.cause);
    throw new ApiError('ServiceUnavailable', `${new URL(url).host} answered ${response.status}`, {
      'retry-after': '1',
    });
  }
}
