export * from './gateway.module';
export * from './service-routes';
export * from './gateway.port';
