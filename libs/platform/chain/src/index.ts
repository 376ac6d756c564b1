export * from './test-usdc';
export * from './viem';
