export * from './errors';
export * from './amounts';
export * from './events';
export * from './sandbox';
export * from './partner-events';
export * from './services';
export * from './webhook-signature';
export * from './ports';
