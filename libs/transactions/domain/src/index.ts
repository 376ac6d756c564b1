export * from './transaction.decider';
export * from './rails';
export * from './transaction-view';
export * from './limits';
export * from './leg-accounts';
export * from './deposit-address-legs';
export * from './deposit-transactions';
