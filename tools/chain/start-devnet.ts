// `npm run start:devnet`: the platform on a chain of its own (docs/chain.md). A local hardhat node mining a block
// a second, the test token deployed on it, ethereum on that chain (two confirmations), a faucet with test USDC
// for the sandbox's simulations, and the treasury given gas and a float; then `npm start` against it, in a data
// directory of the devnet's own. The node keeps its chain in memory: each start is a new chain, so the devnet's
// data directory starts empty each time too (the rest of MM_DATA_DIR is left alone).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CustodySigner, custodyMnemonic, HdCustody } from '@mm/platform/chain';
import { loadConfig } from '@mm/platform/config';
import { DEV_ACCOUNTS, Devnet } from '@mm/platform/testing';

const CONFIRMATIONS = 2;
const FAUCET = DEV_ACCOUNTS[2];

async function main(): Promise<void> {
  const dataDir = resolve(process.env.MM_DATA_DIR ?? './.data', 'devnet');
  rmSync(dataDir, { recursive: true, force: true });
  const devnet = await Devnet.start();
  await devnet.intervalMining(1);
  const settings = {
    ...devnet.settings('ETHEREUM', CONFIRMATIONS),
    MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: FAUCET.privateKey,
    MM_DATA_DIR: dataDir,
  };
  // The seed the platform will find in its data directory, made now so the treasury can be funded first.
  const custody: CustodySigner = new HdCustody(custodyMnemonic(loadConfig({ ...process.env, ...settings })));
  const treasury = custody.address(custody.treasury('ethereum'));
  await devnet.fundGas(treasury, '100');
  await devnet.mint(treasury, '1000000');
  await devnet.mint(FAUCET.address, '1000000');
  process.stdout.write(
    [
      `Devnet: a hardhat node at ${devnet.rpcUrl} (chain id 31337, a block a second)`,
      `  USDC       ${devnet.token} (6 decimals; mint with hardhat's first development account)`,
      `  Treasury   ${treasury} (1,000,000 USDC and gas)`,
      `  Faucet     ${FAUCET.address} (1,000,000 USDC; the sandbox's fund and deposit simulations pay from it)`,
      `  ethereum runs on it with ${CONFIRMATIONS} confirmations; meridianchain stays simulated`,
      '',
    ].join('\n'),
  );
  const platform = spawn(
    process.execPath,
    ['-r', './tools/register.js', '-r', './apps/platform/src/instrument.ts', 'apps/platform/src/main.ts'],
    { cwd: join(__dirname, '..', '..'), env: { ...process.env, ...settings }, stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => platform.kill(signal));
  const code = await new Promise<number>((done) => platform.once('exit', (exitCode) => done(exitCode ?? 1)));
  await devnet.stop();
  process.exit(code);
}

main().catch((error: unknown) => {
  process.stderr.write(`start:devnet failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
