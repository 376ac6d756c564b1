export * from './customer.decider';
export * from './wallet.decider';
export * from './customer-balance';
export * from './external-account.decider';
export * from './counterparty.decider';
export * from './instrument';
export * from './transaction-ledger.decider';
