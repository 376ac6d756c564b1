export * from './cash-locations';
export * from './cash-in-limits';
export * from './cash-in-pricing';
export * from './cash-in-request';
export * from './cash-in-view';
export * from './cash-in.decider';
export * from './deposit-code';
