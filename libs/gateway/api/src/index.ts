export * from './gateway.module';
export * from './service-routes';
export * from './gateway.port';
export * from './request-log-hooks';
export * from './request-logs.controller';
