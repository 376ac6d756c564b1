export * from './quoting.module';
export * from './quotes.controller';
