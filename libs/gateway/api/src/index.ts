export * from './gateway.module';
export * from './service-routes';
