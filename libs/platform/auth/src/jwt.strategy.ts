// Bearer tokens verified with passport-jwt against the issuer's keyset
// (spec: Authentication). Every failure becomes one of the spec's rows.
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { decode } from 'jsonwebtoken';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { BEARER_ERRORS, type Caller } from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import {
  API_KEY_REGISTRY,
  KeysetUnavailableError,
  SIGNING_KEYSET,
  TOKEN_ALGORITHM,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  type AccessTokenClaims,
  type ApiKeyRegistry,
  type SigningKeyset,
} from './token-claims';

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(SIGNING_KEYSET) keyset: SigningKeyset,
    @Inject(API_KEY_REGISTRY) private readonly apiKeys: ApiKeyRegistry,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: [TOKEN_ALGORITHM],
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      secretOrKeyProvider: (_request: unknown, rawJwt: string, done: (error: unknown, key?: string) => void) => {
        const header = decode(rawJwt, { complete: true })?.header;
        if (!header?.kid) return done(BEARER_ERRORS.invalid());
        keyset
          .publicKey(header.kid)
          .then((key) => (key ? done(null, key.export({ type: 'spki', format: 'pem' }).toString()) : done(BEARER_ERRORS.badSignature())))
          .catch((error: unknown) => done(error instanceof KeysetUnavailableError ? BEARER_ERRORS.keysetUnavailable() : error));
      },
    });
  }

  async validate(claims: Partial<AccessTokenClaims>): Promise<Caller> {
    if (typeof claims.projectId !== 'string' || !isId('project', claims.projectId) || typeof claims.sub !== 'string' || (claims.mode !== 'sdbx' && claims.mode !== 'live')) {
      throw BEARER_ERRORS.missingClaims();
    }
    if (!(await this.apiKeys.isActive(claims.sub, claims.projectId))) throw BEARER_ERRORS.invalid();
    return { kind: 'partner', projectId: claims.projectId, apiKey: claims.sub };
  }
}
