// A chain of one's own for the tests, the bench and `npm run start:devnet`: a local EVM node (evm-node.ts) with
// the test token deployed by hardhat's first development account, which mints it. Blocks are mined one per
// transaction, and on demand (`mine`), so a test says how many confirmations a deposit has.
import { testUsdc, viem, viemAccounts, type Address, type Hex } from '@mm/platform/chain';
import { DEV_ACCOUNTS, startEvmNode, type EvmNode } from './evm-node';

export class Devnet {
  private constructor(
    readonly node: EvmNode,
    readonly token: Address,
    private readonly clients: ReturnType<typeof clientsOf>,
  ) {}

  static async start(existing?: EvmNode): Promise<Devnet> {
    const node = existing ?? (await startEvmNode());
    const clients = clientsOf(node.rpcUrl);
    const hash = await clients.minter.deployContract({
      abi: testUsdc.abi,
      bytecode: testUsdc.bytecode,
      args: [clients.minter.account.address],
    });
    const receipt = await clients.reader.waitForTransactionReceipt({ hash });
    return new Devnet(node, receipt.contractAddress!, clients);
  }

  get rpcUrl(): string {
    return this.node.rpcUrl;
  }

  get reader() {
    return this.clients.reader;
  }

  /** The settings that put a network on this chain (MM_CHAIN_<NETWORK>_*). */
  settings(network: 'ETHEREUM' | 'MERIDIANCHAIN', confirmations: number): Record<string, string> {
    return {
      [`MM_CHAIN_${network}_RPC_URL`]: this.rpcUrl,
      [`MM_CHAIN_${network}_USDC_ADDRESS`]: this.token,
      [`MM_CHAIN_${network}_CONFIRMATIONS`]: String(confirmations),
    };
  }

  /** Mints test USDC (decimal units) to an address; resolves once it is mined. */
  async mint(to: string, amount: string): Promise<Hex> {
    return this.tokenCall(this.clients.minter, undefined, 'mint', to, amount);
  }

  /** Sends test USDC (decimal units) from a development account (DEV_ACCOUNTS) to an address; resolves once mined. */
  async transfer(from: (typeof DEV_ACCOUNTS)[number], to: string, amount: string): Promise<Hex> {
    const sender = viem.createWalletClient({
      chain: this.clients.minter.chain,
      transport: viem.http(this.rpcUrl),
      account: viemAccounts.privateKeyToAccount(from.privateKey),
    });
    return this.tokenCall(sender, undefined, 'transfer', to, amount);
  }

  /**
   * Sends test USDC from any address, signed by no key: the node is told to accept the address's transactions
   * (hardhat_impersonateAccount), as money leaving custody behind the platform's back would. Pays its own gas.
   */
  async transferAs(from: string, to: string, amount: string): Promise<Hex> {
    const sender = from as Address;
    await this.fundGas(sender);
    await this.clients.test.impersonateAccount({ address: sender });
    try {
      return await this.tokenCall(this.clients.minter, sender, 'transfer', to, amount);
    } finally {
      await this.clients.test.stopImpersonatingAccount({ address: sender });
    }
  }

  /** The token's mint or transfer of `amount` (decimal units) to `to`, sent by `wallet` (as `account`); once mined. */
  private async tokenCall(
    wallet: ReturnType<typeof viem.createWalletClient>,
    account: Address | undefined,
    functionName: 'mint' | 'transfer',
    to: string,
    amount: string,
  ): Promise<Hex> {
    const hash = await wallet.writeContract({
      account: account ?? wallet.account!,
      chain: wallet.chain,
      address: this.token,
      abi: testUsdc.abi,
      functionName,
      args: [to as Address, viem.parseUnits(amount, 6)],
    });
    await this.clients.reader.waitForTransactionReceipt({ hash });
    return hash;
  }

  /** Whether each transaction is mined as it is sent; off, transactions wait in the pool until `mine`. */
  async automine(on: boolean): Promise<void> {
    await this.clients.test.setAutomine(on);
  }

  /** Mines a block every `seconds` as well as one per transaction (a chain whose confirmations come on their own). */
  async intervalMining(seconds: number): Promise<void> {
    await this.clients.test.setIntervalMining({ interval: seconds });
  }

  /** Gives an address native currency for gas (hardhat_setBalance). */
  async fundGas(address: string, ether = '10'): Promise<void> {
    await this.clients.test.setBalance({ address: address as Address, value: viem.parseEther(ether) });
  }

  /** Mines `blocks` empty blocks. */
  async mine(blocks: number): Promise<void> {
    await this.clients.test.mine({ blocks });
  }

  async head(): Promise<bigint> {
    return this.clients.reader.getBlockNumber({ cacheTime: 0 });
  }

  async balance(address: string): Promise<string> {
    const value = await this.clients.reader.readContract({
      address: this.token,
      abi: testUsdc.abi,
      functionName: 'balanceOf',
      args: [address as Address],
    });
    return viem.formatUnits(value as bigint, 6);
  }

  /** The chain as it is now, to return to with `revert` (a reorganisation, as the tests make one). */
  snapshot(): Promise<Hex> {
    return this.clients.test.snapshot();
  }

  async revert(id: Hex): Promise<void> {
    await this.clients.test.revert({ id });
  }

  stop(): Promise<void> {
    return this.node.stop();
  }
}

function clientsOf(rpcUrl: string) {
  const chain = viem.defineChain({
    id: 31337,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const transport = viem.http(rpcUrl);
  return {
    reader: viem.createPublicClient({ chain, transport }),
    minter: viem.createWalletClient({
      chain,
      transport,
      account: viemAccounts.privateKeyToAccount(DEV_ACCOUNTS[0].privateKey),
    }),
    test: viem.createTestClient({ chain, transport, mode: 'hardhat' }),
  };
}
