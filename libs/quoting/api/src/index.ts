export * from './quoting.module';
export * from './quotes.controllers';
