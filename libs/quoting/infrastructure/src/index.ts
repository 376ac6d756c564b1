export * from './quoting.migration';
export * from './quotes.repository';
export * from './price-provider';
export * from './cash-pickup.migration';
export * from './cash-pickup.repository';
