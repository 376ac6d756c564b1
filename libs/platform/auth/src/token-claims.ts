import type { KeyObject } from 'node:crypto';

export const TOKEN_ISSUER = 'https://auth.money-movement.local';
export const TOKEN_AUDIENCE = 'money-movement-api';
export const TOKEN_ALGORITHM = 'ES256';
export const TOKEN_LIFETIME_SECONDS = 60 * 60;

/**
 * Claims of an access token: sub is the API key; projectId and mode scope every request; a restricted key's
 * token carries its scopes (`<resource>:read|write`), an unrestricted key's none.
 */
export interface AccessTokenClaims {
  sub: string;
  projectId: string;
  mode: 'sdbx' | 'live';
  scopes?: string[];
  iss: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
}

export class KeysetUnavailableError extends Error {}

/** The issuer's public keys by key id. Throws KeysetUnavailableError when the keyset cannot be read. */
export interface SigningKeyset {
  publicKey(kid: string): Promise<KeyObject | undefined>;
}
export const SIGNING_KEYSET = Symbol('SigningKeyset');

/**
 * Until when an API key of the project may be used, in milliseconds since the epoch: Infinity for a key
 * without an expiry, 0 for one revoked or of another project (its tokens stop working), a rolled key's
 * expiry otherwise.
 */
export interface ApiKeyRegistry {
  usableUntil(apiKey: string, projectId: string): Promise<number>;
}
export const API_KEY_REGISTRY = Symbol('ApiKeyRegistry');
