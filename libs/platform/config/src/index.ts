export * from './platform-config';
