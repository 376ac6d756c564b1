export * from './token-claims';
export * from './token-verifier';
export * from './api-auth.guard';
export * from './verified-tokens';
export * from './revocation-feed';
export * from './jwks-keyset';
export * from './api-key-directory';
export * from './gateway-check';
