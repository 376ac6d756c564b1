export * from './virtual-accounts.module';
export * from './virtual-accounts.controller';
