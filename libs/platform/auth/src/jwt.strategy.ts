// Bearer tokens verified with passport-jwt against the issuer's keyset
// (spec: Authentication). Every failure becomes one of the spec's rows.
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { KeyObject } from 'node:crypto';
import { decode } from 'jsonwebtoken';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { PlatformConfig } from '@mm/platform/config';
import { BEARER_ERRORS, type Caller } from '@mm/platform/http';
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

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(SIGNING_KEYSET) keyset: SigningKeyset,
    @Inject(API_KEY_REGISTRY) private readonly apiKeys: ApiKeyRegistry,
    private readonly config: PlatformConfig,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: [TOKEN_ALGORITHM],
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      secretOrKeyProvider: (_request: unknown, rawJwt: string, done: (error: unknown, key?: string | Buffer) => void) => {
        const header = decode(rawJwt, { complete: true })?.header;
        if (!header?.kid) return done(BEARER_ERRORS.invalid());
        keyset
          .publicKey(header.kid)
          // The KeyObject itself (passport-jwt's types say string or Buffer; jsonwebtoken takes a
          // KeyObject as is), so no PEM is exported and parsed again on every request.
          .then((key?: KeyObject) => (key ? done(null, key as unknown as Buffer) : done(BEARER_ERRORS.badSignature())))
          .catch((error: unknown) => done(error instanceof KeysetUnavailableError ? BEARER_ERRORS.keysetUnavailable() : error));
      },
    });
  }

  /** Runs after the signature, issuer, audience and expiry checks passed. */
  async validate(claims: Partial<AccessTokenClaims>): Promise<VerifiedToken> {
    if (typeof claims.projectId !== 'string' || !isId('project', claims.projectId) || typeof claims.sub !== 'string' || (claims.mode !== 'sdbx' && claims.mode !== 'live')) {
      throw BEARER_ERRORS.missingClaims();
    }
    // Only what this issuer mints is accepted, even under its own signature: a lifetime of at
    // most 60 minutes (spec: Authentication 2), issued in the past, for this host's mode.
    const now = Math.floor(Date.now() / 1000);
    const { exp, iat } = claims;
    if (typeof exp !== 'number' || typeof iat !== 'number' || iat > now + CLOCK_SKEW_SECONDS || exp - iat > TOKEN_LIFETIME_SECONDS) {
      throw BEARER_ERRORS.invalid();
    }
    if (claims.mode !== this.config.keyMode) throw BEARER_ERRORS.invalid();
    if (!(await this.apiKeys.isActive(claims.sub, claims.projectId))) throw BEARER_ERRORS.invalid();
    return { caller: { kind: 'partner', projectId: claims.projectId, apiKey: claims.sub }, expiresAtMs: exp * 1000 };
  }
}
