export * from './gateway.migration';
export * from './gateway-read-models.repository';
export * from './signing-keys.repository';
export * from './secret-hasher';
export * from './api-key-revocations.migration';
export * from './signing-key-encryption.migration';
export * from './rate-limits.migration';
export * from './postgres-throttler-storage';
