export * from './customer.decider';
export * from './wallet.decider';
export * from './customer-balance';
