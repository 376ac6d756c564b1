export * from './cash-in.module';
export * from './cash-ins.controller';
