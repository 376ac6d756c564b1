export * from './transactions.migration';
export * from './transactions.repository';
export * from './sandbox-rails';
export * from './transaction-limits.migration';
export * from './transaction-limits.repository';
export * from './chain-payout-rail';
