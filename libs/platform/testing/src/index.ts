export * from './test-database';
export * from './guides';
export * from './container-engine';
export * from './postgres-container';
export * from './kafka-names';
export * from './outage-broker';
export * from './evm/evm-node';
export * from './evm/devnet';
