export * from './deposit-address-request';
export * from './deposit-address-view';
export * from './deposit-address.decider';
export * from './deposits';
export * from './deposit.decider';
