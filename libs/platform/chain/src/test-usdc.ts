// The test token (contracts/TestUsdc.sol, compiled by tools/chain/compile-test-usdc.ts): what a local chain
// deploys as its USDC, six decimals, minted by its owner (the sandbox faucet).
import artifact from './test-usdc.artifact.json';
import type { Abi, Hex } from './viem';

export const testUsdc = {
  abi: artifact.abi as Abi,
  bytecode: artifact.bytecode as Hex,
  compiler: artifact.compiler,
} as const;
