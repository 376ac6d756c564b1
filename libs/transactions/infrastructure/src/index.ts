export * from './transactions.migration';
export * from './transactions.repository';
export * from './sandbox-rails';
