// The sandbox's faucet on a local EVM node (docs/chain.md, "The sandbox on a chain"): two processes sending from
// the one faucet account at once (the accounts and deposit-addresses services, or two replicas) each get every
// transfer to the node, each landing once, to the unit, though the node mines every transaction as it arrives
// and refuses a nonce that is taken or that runs ahead of the next.
import { loadConfig } from '@mm/platform/config';
import { ChainClient, ChainFaucet, viemAccounts } from '@mm/platform/chain';
import { DEV_ACCOUNTS } from './evm-node';
import { Devnet } from './devnet';

jest.setTimeout(120_000);

const FAUCET = DEV_ACCOUNTS[2];
let devnet: Devnet;

beforeAll(async () => {
  devnet = await Devnet.start();
  await devnet.mint(FAUCET.address, '1000');
});
afterAll(() => devnet?.stop());

it('sends every transfer asked of two processes at once, each landing once to the unit', async () => {
  const config = loadConfig({
    ...devnet.settings('ETHEREUM', 2),
    MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: FAUCET.privateKey,
  });
  const processes = [0, 1].map(() => new ChainFaucet(new ChainClient(config.chains.ethereum!), FAUCET.privateKey));
  const asked = Array.from({ length: 16 }, (_, i) => ({
    faucet: processes[i % 2],
    to: viemAccounts.privateKeyToAccount(viemAccounts.generatePrivateKey()).address,
    amount: `1.00000${i % 10}`,
  }));
  const hashes = await Promise.all(asked.map(({ faucet, to, amount }) => faucet.send(to, amount)));
  expect(new Set(hashes).size).toBe(asked.length);
  const receipts = await Promise.all(hashes.map((hash) => devnet.reader.waitForTransactionReceipt({ hash })));
  expect(receipts.map((r) => r.status)).toEqual(asked.map(() => 'success'));
  expect(await Promise.all(asked.map(({ to }) => devnet.balance(to)))).toEqual(
    asked.map(({ amount }) => String(Number(amount))),
  );
});
