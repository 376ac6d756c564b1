export * from './transactions.module';
export * from './transactions.port';
