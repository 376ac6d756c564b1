export * from './platform-config';
export * from './key-ring';
