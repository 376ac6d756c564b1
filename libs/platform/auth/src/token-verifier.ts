// Bearer tokens verified with jsonwebtoken against the issuer's keyset (spec:
// Authentication). Every failure becomes one of the spec's rows. An injectable
// of each application, not a strategy in a process-wide registry, so two
// applications in one process (tests) never verify with each other's keyset.
import type { KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { decode, verify, type JwtPayload } from 'jsonwebtoken';
import { isApiKeyScope } from '@mm/contracts';
import { PlatformConfig } from '@mm/platform/config';
import { BEARER_ERRORS, type BearerAuthError, type Caller } from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import {
  API_KEY_REGISTRY,
  KeysetUnavailableError,
  SIGNING_KEYSET,
  TOKEN_ALGORITHM,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  TOKEN_LIFETIME_SECONDS,
  type AccessTokenClaims,
  type ApiKeyRegistry,
  type SigningKeyset,
} from './token-claims';

/** How far ahead of this host's clock an issuer's clock may run. */
export const CLOCK_SKEW_SECONDS = 5;

/** What a verified token yields: the caller, and until when the token is valid. */
export interface VerifiedToken {
  caller: Caller;
  expiresAtMs: number;
}

/** jsonwebtoken's failure, as the spec's row. */
function rowFor(error: unknown): BearerAuthError {
  const e = error as { name?: string; message?: string };
  if (e?.name === 'TokenExpiredError') return BEARER_ERRORS.expired();
  if (e?.message === 'invalid signature') return BEARER_ERRORS.badSignature();
  return BEARER_ERRORS.invalid();
}

@Injectable()
export class TokenVerifier {
  constructor(
    @Inject(SIGNING_KEYSET) private readonly keyset: SigningKeyset,
    @Inject(API_KEY_REGISTRY) private readonly apiKeys: ApiKeyRegistry,
    private readonly config: PlatformConfig,
  ) {}

  /** Signature, issuer, audience and expiry, then the claims, then the API key: or the spec's error. */
  async verify(token: string): Promise<VerifiedToken> {
    const kid = decode(token, { complete: true })?.header.kid;
    if (!kid) throw BEARER_ERRORS.invalid();
    let key: KeyObject | undefined;
    try {
      key = await this.keyset.publicKey(kid);
    } catch (error) {
      throw error instanceof KeysetUnavailableError ? BEARER_ERRORS.keysetUnavailable() : error;
    }
    if (!key) throw BEARER_ERRORS.badSignature();
    let claims: Partial<Omit<AccessTokenClaims, 'aud'>> & JwtPayload;
    try {
      // The KeyObject itself: no PEM is exported and parsed again per token.
      claims = verify(token, key, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
      }) as JwtPayload;
    } catch (error) {
      throw rowFor(error);
    }
    if (
      typeof claims.projectId !== 'string' ||
      !isId('project', claims.projectId) ||
      typeof claims.sub !== 'string' ||
      (claims.mode !== 'sdbx' && claims.mode !== 'live')
    ) {
      throw BEARER_ERRORS.missingClaims();
    }
    // Only what this issuer mints is accepted, even under its own signature: a lifetime of at
    // most 60 minutes (spec: Authentication 2), issued in the past, for this host's mode.
    const now = Math.floor(Date.now() / 1000);
    const { exp, iat } = claims;
    if (
      typeof exp !== 'number' ||
      typeof iat !== 'number' ||
      iat > now + CLOCK_SKEW_SECONDS ||
      exp - iat > TOKEN_LIFETIME_SECONDS
    ) {
      throw BEARER_ERRORS.invalid();
    }
    if (claims.mode !== this.config.keyMode) throw BEARER_ERRORS.invalid();
    const { scopes } = claims;
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every(isApiKeyScope)))
      throw BEARER_ERRORS.missingClaims();
    // A rolled key's token is remembered no longer than the key works.
    const usableUntil = await this.apiKeys.usableUntil(claims.sub, claims.projectId);
    if (usableUntil <= Date.now()) throw BEARER_ERRORS.invalid();
    return {
      caller: { kind: 'partner', projectId: claims.projectId, apiKey: claims.sub, scopes: scopes ?? null },
      expiresAtMs: Math.min(exp * 1000, usableUntil),
    };
  }
}
