import type { KeyObject } from 'node:crypto';

export const TOKEN_ISSUER = 'https://auth.money-movement.local';
export const TOKEN_AUDIENCE = 'money-movement-api';
export const TOKEN_ALGORITHM = 'ES256';
export const TOKEN_LIFETIME_SECONDS = 60 * 60;

/** Claims of an access token: sub is the API key; projectId and mode scope every request. */
export interface AccessTokenClaims {
  sub: string;
  projectId: string;
  mode: 'sdbx' | 'live';
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

/** Whether an API key may still be used (a revoked key's tokens stop working). */
export interface ApiKeyRegistry {
  isActive(apiKey: string, projectId: string): Promise<boolean>;
}
export const API_KEY_REGISTRY = Symbol('ApiKeyRegistry');
