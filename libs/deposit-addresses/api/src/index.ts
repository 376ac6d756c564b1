export * from './deposit-addresses.module';
export * from './deposit-addresses.controller';
