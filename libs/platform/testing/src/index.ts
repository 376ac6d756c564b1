export * from './test-database';
export * from './guides';
