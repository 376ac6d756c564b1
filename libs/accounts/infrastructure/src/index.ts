export * from './accounts.migration';
export * from './accounts-read-models.repository';
export * from './sandbox-providers';
export * from './external-accounts.migration';
export * from './card-expiry-timers.migration';
export * from './external-accounts-read-models.repository';
export * from './instrument-providers';
