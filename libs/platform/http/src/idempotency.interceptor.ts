// Idempotency-Key on POST and PATCH (spec rule 6; API-CONTRACT: Idempotency).
//
// The whole request runs in ONE database transaction that also records its
// result, so the effect and the stored response commit together or not at all.
// A transaction-scoped advisory lock on (scope, key) tells a concurrent
// duplicate that the first is in flight (409); once the first commits, the
// duplicate finds the stored row and replays it. A crash leaves no marker behind.
// Failed requests store nothing: retrying them with the same key runs them again.
import { hash as digest } from 'node:crypto';
import {
  Injectable,
  Logger,
  Optional,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { ApiError } from '@mm/contracts';
import { lazyKeyRing, PlatformConfig, type KeyRing } from '@mm/platform/config';
import { PrefetchKey, UnitOfWork, type Prefetch, type Statement } from '@mm/platform/database';
import { isRetryable } from '@mm/platform/event-store';
import type { ApiRequest } from './request-context';
import { IDEMPOTENCY, IDEMPOTENCY_SEALED, IDEMPOTENCY_SHOWN_ONCE, type IdempotencyMode } from './route-metadata';
import { HttpMetrics } from './metrics';

const MAX_ATTEMPTS = 5;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;
/** Every response this interceptor sends, the first and its replays: the text of its JSON body. */
const JSON_TYPE = 'application/json; charset=utf-8';

interface Claim {
  locked: boolean;
  request_hash: string | null;
  response_status: number | null;
  /** The response as sent, byte for byte (null in a row written before it was kept: ADR 0059). */
  response_text: string | null;
  /** The same as jsonb, which reorders keys: replayed only from a row without response_text. */
  response_body: unknown;
}

/**
 * The claim of a key as two statements in one round trip: the transaction-scoped advisory lock on (scope,
 * key), then the stored response. Two statements, not one: in READ COMMITTED each takes its snapshot when it
 * starts, so the read, started after the lock was taken, sees whatever the lock's previous holder committed
 * (one statement's snapshot would predate its lock). The lock's key is the text platform.claim_idempotency_key
 * hashes, so processes of either kind exclude each other. (That plpgsql function did the same in one statement
 * at four times the PostgreSQL time: docs/performance.md, round eleven.)
 */
function claimStatements(scope: string, key: string): Statement[] {
  return [
    { sql: `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked`, params: [`${scope}\n${key}`] },
    {
      sql: `SELECT request_hash, response_status, response_text, response_body FROM platform.idempotency_keys WHERE scope = $1 AND key = $2`,
      params: [scope, key],
    },
  ];
}

/** The claim the rows of claimStatements make: a response stored only counts when the lock was taken. */
function claimOf([[lock], [stored]]: Array<Array<Record<string, unknown>>>): Claim {
  const locked = lock.locked === true;
  if (!locked || !stored)
    return { locked, request_hash: null, response_status: null, response_text: null, response_body: null };
  return { locked, ...(stored as Omit<Claim, 'locked'>) };
}

/** The current transaction's claim of its Idempotency-Key, a guard of the transaction (UnitOfWork.prefetch). */
const IDEMPOTENCY_CLAIM = new PrefetchKey<void>('platform.idempotency-claim');

/**
 * Sends the current transaction's claim of its Idempotency-Key now if it has not gone yet, and waits for its
 * judgement (failing as the claim refuses): for a caller about to act where the transaction cannot undo it
 * (another service's port across processes), so that no other service acts on a request this one refuses.
 */
export async function settleIdempotencyClaim(uow: UnitOfWork): Promise<void> {
  await uow.prefetched(IDEMPOTENCY_CLAIM)?.result;
}

/** Stable JSON: object keys sorted, so key order in the body does not change the hash. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The stored response as text: as it was sent, or (a row written before the text was kept) as jsonb gave it back. */
function storedText(stored: Claim): string {
  return stored.response_text ?? JSON.stringify(stored.response_body);
}

/** A stored response kept sealed (SealedReplay). */
interface SealedBody {
  sealed: string;
  keyId: string;
}

@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly keyRing: () => KeyRing;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly reflector: Reflector,
    config: PlatformConfig,
    // The application's /metrics (docs/metrics.md); absent in a module built without one (tests).
    @Optional() private readonly metrics?: HttpMetrics,
  ) {
    this.keyRing = lazyKeyRing(config, new Logger('idempotency'));
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<ApiRequest>();
    if (request.method !== 'POST' && request.method !== 'PATCH') return next.handle();
    const mode =
      this.reflector.getAllAndOverride<IdempotencyMode>(IDEMPOTENCY, [context.getHandler(), context.getClass()]) ??
      'required';
    if (mode === 'none') return next.handle();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const header = request.headers['idempotency-key'];
    const key = Array.isArray(header) ? header[0] : header;
    if (key === undefined)
      throw new ApiError('IdempotencyKeyRequired', 'send an Idempotency-Key header with every POST and PATCH');
    if (!KEY_FORMAT.test(key))
      throw new ApiError('IdempotencyKeyInvalid', 'the key must be 1 to 255 printable ASCII characters');
    const scope = request.caller?.projectId ?? request.caller?.kind ?? 'anonymous';
    const path = request.url.split('?')[0];
    const hash = digest('sha256', `${request.method} ${path}\n${canonicalJson(request.body ?? null)}`, 'hex');
    // The status Nest will send: the route's @HttpCode, else 201 for POST and 200 otherwise.
    const status =
      this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ?? (request.method === 'POST' ? 201 : 200);
    const sealed = this.reflector.get<boolean>(IDEMPOTENCY_SEALED, context.getHandler()) === true;
    const shownOnce = this.reflector.get<string[] | undefined>(IDEMPOTENCY_SHOWN_ONCE, context.getHandler());
    return from(
      this.withRetry(() =>
        this.once(scope, key, hash, status, reply, { sealed, shownOnce }, () =>
          lastValueFrom(next.handle(), { defaultValue: undefined }),
        ),
      ),
    );
  }

  private async once(
    scope: string,
    key: string,
    hash: string,
    status: number,
    reply: FastifyReply,
    { sealed, shownOnce }: { sealed: boolean; shownOnce?: string[] },
    run: () => Promise<unknown>,
  ): Promise<unknown> {
    const context = `idempotent response ${scope} ${key}`;
    const judge = (stored: Claim) => {
      if (!stored.locked)
        throw new ClaimAnswer(
          new ApiError('IdempotencyKeyInFlight', 'a request with this Idempotency-Key has not finished; retry shortly'),
        );
      if (stored.request_hash === null) return;
      if (stored.request_hash !== hash) {
        throw new ClaimAnswer(
          new ApiError('IdempotencyKeyReused', 'this Idempotency-Key was used with a different request; use a new key'),
        );
      }
      if (shownOnce) {
        throw new ClaimAnswer(
          new ApiError(
            'IdempotentReplayUnavailable',
            `this Idempotency-Key already made ${storedText(stored)}; its ${shownOnce.join(' and ')} ${shownOnce.length === 1 ? 'was' : 'were'} shown only in that response and ${shownOnce.length === 1 ? 'is' : 'are'} not kept. If lost, revoke it and send the request again with a new Idempotency-Key`,
          ),
        );
      }
      throw new ClaimAnswer(undefined, stored);
    };
    // The first response's bytes again, under the same Content-Type (API-CONTRACT: Idempotency; ADR 0059): sent
    // as the text it was, never parsed and serialised anew.
    const replay = (stored: Claim) => {
      this.metrics?.replayed();
      void reply.status(stored.response_status!).header('idempotent-replayed', 'true').type(JSON_TYPE);
      if (!sealed) return storedText(stored);
      const { sealed: ciphertext, keyId } = JSON.parse(storedText(stored)) as SealedBody;
      return this.keyRing().open(keyId, Buffer.from(ciphertext, 'base64'), context, context).toString('utf8');
    };
    let claim: Prefetch<void> | undefined;
    try {
      const text = await this.uow.run(async () => {
        // The claim travels with the command's first statement (a guard: UnitOfWork.prefetch): it is judged
        // before that statement answers, and nothing commits before it is.
        claim = this.uow.prefetch({
          key: IDEMPOTENCY_CLAIM,
          guard: claimStatements(scope, key),
          judge: (rows) => judge(claimOf(rows)),
        });
        const result = await run();
        // The body as it is sent (class instances become plain JSON), serialised once: stored from this text
        // and sent as it is.
        const text = result === undefined ? 'null' : JSON.stringify(result);
        const kept = shownOnce
          ? JSON.stringify(
              Object.fromEntries(
                Object.entries(JSON.parse(text) as Record<string, unknown>).filter(
                  ([field]) => !shownOnce.includes(field),
                ),
              ),
            )
          : sealed
            ? JSON.stringify({
                sealed: this.keyRing().seal(Buffer.from(text, 'utf8'), context).toString('base64'),
                keyId: this.keyRing().currentId,
              } satisfies SealedBody)
            : text;
        // Sent with COMMIT: nothing reads it back in this transaction. Kept as the text sent, which a replay
        // sends again; and as jsonb, which a process of the version before replays (ADR 0059).
        await this.uow.defer(
          `INSERT INTO platform.idempotency_keys (scope, key, request_hash, response_status, response_text, response_body) VALUES ($1, $2, $3, $4, $5::text, $5::text::jsonb)`,
          // The route's status, or the one its handler chose on the reply (202: an action waiting for approval).
          [scope, key, hash, reply.statusCode || status, kept],
        );
        return text;
      });
      // Fastify sends a string under a JSON content type as it is, rather than serialise the body again.
      void reply.type(JSON_TYPE);
      return text;
    } catch (error) {
      if (error instanceof ClaimAnswer) {
        if (error.refusal) throw error.refusal;
        return replay(error.stored!);
      }
      // The command failed before its claim was answered (refused before its first statement, or in the
      // batch that carried it): whether the key was taken decides the answer, asked now on its own.
      if (!claim?.answered && !isRetryable(error)) {
        const stored = await this.uow.run(async () => claimOf(await this.uow.batch(claimStatements(scope, key))));
        try {
          judge(stored);
        } catch (answer) {
          if (!(answer instanceof ClaimAnswer)) throw answer;
          if (answer.refusal) throw answer.refusal;
          return replay(answer.stored!);
        }
      }
      throw error;
    }
  }

  /** One transaction per attempt; a lost stream-version race re-runs the whole request. */
  private async withRetry<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (!isRetryable(error) || attempt >= MAX_ATTEMPTS) throw error;
        await new Promise((r) => setTimeout(r, Math.random() * 20 * attempt));
      }
    }
  }
}

/**
 * What the claim of a key decided, thrown from its check so that the command stops there: a refusal to
 * answer (in flight, reused, shown once), or the stored response to replay. Not an ApiError, so that no
 * command's handling of its own refusals mistakes it for one.
 */
class ClaimAnswer extends Error {
  constructor(
    readonly refusal?: ApiError,
    readonly stored?: Claim,
  ) {
    super('the Idempotency-Key was claimed already');
  }
}

/**
 * On every POST and PATCH route (IdempotencyCoverage refuses to start without it):
 * the command runs in one transaction with its Idempotency-Key record. Only those
 * routes carry it, because any interceptor costs every request it wraps (Nest binds
 * an async resource and an observable chain per call) and reads have no key.
 */
export const Idempotent = () => UseInterceptors(IdempotencyInterceptor);
