// The local EVM node of the tests and `npm run start:devnet` (libs/platform/testing/src/evm/evm-node.ts): hardhat 2.x's node,
// nothing compiled by hardhat (the test token is compiled by solc, tools/chain/compile-test-usdc.ts).
module.exports = {
  networks: {
    hardhat: {
      // Hardhat's own chain id: wallets and viem know it as a local chain.
      chainId: 31337,
      // Each transaction in a block of its own as it is sent; tests mine more blocks when they need depth.
      mining: { auto: true },
      // Room for a thousand token transfers in one block (the bench's on-chain section); 30 million by default.
      blockGasLimit: 120_000_000,
    },
  },
};
