// Operators on /admin routes (docs/operators.md): people signed in at the deployment's OpenID provider, whose
// access tokens (JWTs, RFC 9068) this process verifies against the provider's published keys, with the role
// their roles claim gives them; or the static admin token, break-glass, accepted in sandbox and in production
// only when MM_ADMIN_TOKEN_IN_PRODUCTION says so. Each service checks the token itself, as it does a partner's.
import { Injectable } from '@nestjs/common';
import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { custom, Issuer } from 'openid-client';
import { ApiError } from '@mm/contracts';
import { PlatformConfig } from '@mm/platform/config';
import { isOperatorRole, OPERATOR_ROLES, type Operator, type OperatorRole } from '@mm/platform/http';
import { sameSecret } from './same-secret';

/** How long a call to the OpenID provider (its discovery document, its keys) may take before the request fails. */
const PROVIDER_TIMEOUT_MS = 5_000;
/** How far the provider's clock may run ahead of this host's. */
const CLOCK_TOLERANCE_SECONDS = 5;

custom.setHttpOptionsDefaults({ timeout: PROVIDER_TIMEOUT_MS });

/** The claim at a dotted path (realm_access.roles), if any. */
function claimAt(claims: JWTPayload, path: string): unknown {
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The highest operator role a roles claim names (an array, or a space- or comma-separated string). */
export function highestRole(claim: unknown): OperatorRole | undefined {
  const named = Array.isArray(claim) ? claim : typeof claim === 'string' ? claim.split(/[\s,]+/) : [];
  const roles = named.filter(isOperatorRole);
  return [...OPERATOR_ROLES].reverse().find((role) => roles.includes(role));
}

type Verifier = (token: string) => Promise<JWTPayload>;

@Injectable()
export class OperatorAuthenticator {
  private verifier?: Promise<Verifier>;

  constructor(private readonly config: PlatformConfig) {}

  /** The operator an Authorization header names, or the error the route answers. */
  async authenticate(credential: string | undefined): Promise<Operator> {
    const { MM_ADMIN_TOKEN: adminToken, MM_OIDC_ISSUER: issuer } = this.config;
    if (!adminToken && !issuer)
      throw new ApiError('Unauthorized', 'operator routes are disabled: set MM_OIDC_ISSUER or MM_ADMIN_TOKEN');
    if (!credential) throw new ApiError('Unauthorized', 'operator token required');
    if (adminToken && sameSecret(credential, adminToken)) {
      if (!this.config.staticAdminTokenAccepted)
        throw new ApiError(
          'Unauthorized',
          'the static admin token is refused in production: sign in through SSO (MM_ADMIN_TOKEN_IN_PRODUCTION=true ' +
            'accepts it as break-glass)',
        );
      return { subject: 'admin-token', name: 'static admin token (break-glass)', role: 'admin', via: 'admin-token' };
    }
    if (!issuer) throw new ApiError('Unauthorized', 'operator token required');
    return this.operatorOf(await this.verified(credential));
  }

  private async verified(token: string): Promise<JWTPayload> {
    // Only a JWT can be one; anything else is refused without asking the provider.
    try {
      decodeJwt(token);
    } catch {
      throw new ApiError('Unauthorized', 'operator token required');
    }
    const verify = await this.providerVerifier();
    try {
      return await verify(token);
    } catch (error) {
      if (error instanceof joseErrors.JWKSTimeout || !(error instanceof joseErrors.JOSEError)) throw unreachable();
      throw new ApiError(
        'Unauthorized',
        error instanceof joseErrors.JWTExpired ? 'operator token expired' : 'operator token invalid',
      );
    }
  }

  /** Who the verified claims name, with their role; a token issued to another client is not one of ours. */
  private operatorOf(claims: JWTPayload): Operator {
    const clientId = this.config.MM_OIDC_CLIENT_ID as string;
    const audience = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
    if (claims.client_id !== clientId && claims.azp !== clientId && !audience.includes(clientId))
      throw new ApiError('Unauthorized', 'operator token invalid: issued to another client');
    if (!claims.sub) throw new ApiError('Unauthorized', 'operator token invalid: no subject');
    const role = highestRole(claimAt(claims, this.config.MM_OIDC_ROLES_CLAIM));
    const name = [claims.name, claims.preferred_username, claims.email].find((v) => typeof v === 'string' && v);
    if (!role)
      throw new ApiError(
        'InsufficientRole',
        `${this.config.MM_OIDC_ROLES_CLAIM} names no operator role (${OPERATOR_ROLES.join(', ')})`,
      );
    return { subject: claims.sub, name: (name as string | undefined) ?? claims.sub, role, via: 'sso' };
  }

  /** The provider's keys and issuer, discovered once; a failed discovery is tried again by the next request. */
  private providerVerifier(): Promise<Verifier> {
    this.verifier ??= Issuer.discover(this.config.MM_OIDC_ISSUER as string).then(
      (provider) => {
        const jwksUri = provider.metadata.jwks_uri;
        if (!jwksUri) throw new Error(`${provider.metadata.issuer} publishes no jwks_uri`);
        const keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: PROVIDER_TIMEOUT_MS });
        return async (token: string) =>
          (
            await jwtVerify(token, keys, {
              issuer: provider.metadata.issuer,
              clockTolerance: CLOCK_TOLERANCE_SECONDS,
            })
          ).payload;
      },
      (error: Error) => {
        this.verifier = undefined;
        throw unreachable(error);
      },
    );
    return this.verifier;
  }
}

function unreachable(error?: Error): ApiError {
  return new ApiError(
    'ServiceUnavailable',
    `the operators' OpenID provider cannot be reached${error ? ` (${error.message})` : ''}; retry shortly`,
    { 'retry-after': '1' },
  );
}
