export * from './custodian';
export * from './deposit-addresses.migration';
export * from './deposit-addresses.repository';
export * from './chain-custody';
