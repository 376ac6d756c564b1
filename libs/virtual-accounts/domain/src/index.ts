export * from './virtual-account-request';
export * from './virtual-account-view';
export * from './virtual-account.decider';
export * from './deposits';
export * from './deposit.decider';
