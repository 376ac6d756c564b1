export * from './transactions.module';
