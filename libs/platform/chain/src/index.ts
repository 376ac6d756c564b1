export * from './test-usdc';
export * from './viem';
export * from './custody';
export * from './chain-client';
export * from './chain-watcher';
export * from './chain-networks';
export * from './chain-sender';
export * from './chain-faucet';
