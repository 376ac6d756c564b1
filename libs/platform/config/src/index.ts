export * from './platform-config';
export * from './key-ring';
export * from './chain-settings';
export * from './provider-bindings';
