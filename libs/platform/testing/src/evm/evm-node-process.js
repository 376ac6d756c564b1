// Runs hardhat's node in this process (libs/platform/testing/src/evm/evm-node.ts starts it) and ends it when stdin closes:
// whoever started it may die without stopping it, and its end closes the pipe.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
require('hardhat/internal/cli/bootstrap.js');
