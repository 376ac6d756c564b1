export * from './accounts.migration';
export * from './accounts-read-models.repository';
export * from './sandbox-providers';
