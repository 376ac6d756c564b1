export * from './token-claims';
export * from './jwt.strategy';
export * from './api-auth.guard';
export * from './verified-tokens';
export * from './revocation-feed';
