export * from './start-platform';
export * from './migrations';
export * from './platform.module';
