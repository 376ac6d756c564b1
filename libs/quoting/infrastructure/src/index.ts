export * from './quoting.migration';
export * from './quotes.repository';
export * from './price-provider';
