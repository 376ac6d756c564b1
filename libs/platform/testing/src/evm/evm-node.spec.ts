// The local EVM node the chain tests run on (evm-node.ts) with the test token (libs/platform/chain): a token
// deployed, minted and transferred through viem, its Transfer logs read back to the unit, and a history taken
// back with evm_snapshot/evm_revert and replaced, as the chain tests reorganise the chain.
import { testUsdc, viem, viemAccounts, type Address } from '@mm/platform/chain';
import { DEV_ACCOUNTS, startEvmNode, type EvmNode } from './evm-node';

jest.setTimeout(120_000);

const { createPublicClient, createWalletClient, defineChain, http, parseEventLogs } = viem;
const { privateKeyToAccount } = viemAccounts;

let node: EvmNode;
beforeAll(async () => {
  node = await startEvmNode();
});
afterAll(() => node?.stop());

function clients() {
  const chain = defineChain({
    id: 31337,
    name: 'local',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.rpcUrl] } },
  });
  const transport = http(node.rpcUrl);
  const owner = privateKeyToAccount(DEV_ACCOUNTS[0].privateKey);
  const holder = privateKeyToAccount(DEV_ACCOUNTS[1].privateKey);
  return {
    chain,
    reader: createPublicClient({ chain, transport }),
    owner: createWalletClient({ chain, transport, account: owner }),
    holder: createWalletClient({ chain, transport, account: holder }),
  };
}

async function deployToken(): Promise<Address> {
  const { reader, owner } = clients();
  const hash = await owner.deployContract({
    abi: testUsdc.abi,
    bytecode: testUsdc.bytecode,
    args: [owner.account.address],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  return receipt.contractAddress!;
}

it('deploys the test token, mints and transfers it, and reads each Transfer to the unit', async () => {
  const { reader, owner, holder } = clients();
  expect(await reader.getChainId()).toBe(31337);
  const token = await deployToken();
  expect(await reader.readContract({ address: token, abi: testUsdc.abi, functionName: 'decimals' })).toBe(6);

  await reader.waitForTransactionReceipt({
    hash: await owner.writeContract({
      address: token,
      abi: testUsdc.abi,
      functionName: 'mint',
      args: [holder.account.address, 100_000_000n],
    }),
  });
  const sent = await reader.waitForTransactionReceipt({
    hash: await holder.writeContract({
      address: token,
      abi: testUsdc.abi,
      functionName: 'transfer',
      args: [DEV_ACCOUNTS[2].address, 12_345_678n],
    }),
  });
  const [transfer] = parseEventLogs({ abi: testUsdc.abi, logs: sent.logs, eventName: 'Transfer' });
  expect(transfer.args).toEqual({ from: holder.account.address, to: DEV_ACCOUNTS[2].address, value: 12_345_678n });
  const balance = (who: Address) =>
    reader.readContract({ address: token, abi: testUsdc.abi, functionName: 'balanceOf', args: [who] });
  expect(await balance(DEV_ACCOUNTS[2].address)).toBe(12_345_678n);
  expect(await balance(holder.account.address)).toBe(100_000_000n - 12_345_678n);
});

it('only the owner mints', async () => {
  const { holder } = clients();
  const token = await deployToken();
  await expect(
    holder.writeContract({
      address: token,
      abi: testUsdc.abi,
      functionName: 'mint',
      args: [holder.account.address, 1n],
    }),
  ).rejects.toThrow(/OwnableUnauthorizedAccount/);
});

it('takes a block back and mines another in its place: a reorganisation as the chain tests make one', async () => {
  const { reader, owner } = clients();
  const token = await deployToken();
  const snapshot = await reader.request({ method: 'evm_snapshot' as never });
  const mint = (to: Address) =>
    owner.writeContract({ address: token, abi: testUsdc.abi, functionName: 'mint', args: [to, 5_000_000n] });
  const first = await reader.waitForTransactionReceipt({ hash: await mint(DEV_ACCOUNTS[1].address) });
  expect(await reader.request({ method: 'evm_revert' as never, params: [snapshot] as never })).toBe(true);
  const second = await reader.waitForTransactionReceipt({ hash: await mint(DEV_ACCOUNTS[2].address) });
  // The same height, another block: the first mint is gone from the chain and from its logs.
  expect(second.blockNumber).toBe(first.blockNumber);
  expect(second.blockHash).not.toBe(first.blockHash);
  const logs = await reader.getContractEvents({
    address: token,
    abi: testUsdc.abi,
    eventName: 'Transfer',
    fromBlock: first.blockNumber,
    toBlock: first.blockNumber,
  });
  expect(logs.map((l) => l.transactionHash)).toEqual([second.transactionHash]);
  await expect(reader.getTransactionReceipt({ hash: first.transactionHash })).rejects.toThrow();
});
