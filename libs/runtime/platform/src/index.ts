export * from './start-platform';
export * from './migrations';
export * from './platform.module';
export * from './services';
export * from './banner';
export { dashboardLine, DASHBOARD_PATH } from './dashboard';
export * from './run-service';
export { freeLoopbackPort } from './listen-address';
export * from './lifeline';
