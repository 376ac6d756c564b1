// The fault run's chain (docs/reliability.md, "The chain"): USDC on a local EVM node, as docs/chain.md runs a
// network on a chain. The cluster starts the node, deploys the test token and puts `meridianchain` on it; every
// replica reaches the node through a link of its own, which the nemesis cuts. The workload's partner holds test
// USDC in an account of its own, outside custody, and pays it in as any sender would (a wallet's funding, a
// deposit address's deposit); the checker reads the token's transfers straight from the node, as anyone can.
import { viem, viemAccounts, type Address, type Hex } from '@mm/platform/chain';
import { DEV_ACCOUNTS, Devnet } from '@mm/platform/testing';

/** The network the workload's wallets and deposit addresses use, put on the chain. */
export const CHAIN_NETWORK = 'meridianchain';
/** Blocks on top of a transfer's, its own included, before the platform counts it. */
export const CHAIN_CONFIRMATIONS = 2;
/** The treasury's float from outside (it pays payouts before any sweep has refilled it), and the partner's funds. */
const TREASURY_FLOAT = '1000000';
const PARTNER_FUNDS = '1000000000';
/** hardhat's second development account: the partner's own, never the platform's. */
const PARTNER = DEV_ACCOUNTS[1];

/** What the workload and the checker reach of the run's chain: the node itself (no link, no fault), the token. */
export interface ChaosChain {
  network: string;
  /** The node's JSON-RPC endpoint, for the workload and the checker; the replicas reach it through their links. */
  rpcUrl: string;
  token: Address;
  /** The partner's own account, outside custody, holding test USDC. */
  partnerPrivateKey: Hex;
}

/** A token transfer as the node records it, its amount in decimal units. */
export interface ChainTransfer {
  hash: string;
  from: string;
  to: string;
  amount: string;
  block: number;
}

/** The run's node with the token on it: a block a second on top of one per transaction, as a live chain mines. */
export async function startChain(log: (line: string) => void): Promise<{ chain: ChaosChain; devnet: Devnet }> {
  const devnet = await Devnet.start();
  try {
    await devnet.intervalMining(1);
    await devnet.mint(PARTNER.address, PARTNER_FUNDS);
    log(`chaos cluster: an EVM node at ${devnet.rpcUrl}, the token at ${devnet.token}`);
    return {
      devnet,
      chain: {
        network: CHAIN_NETWORK,
        rpcUrl: devnet.rpcUrl,
        token: devnet.token,
        partnerPrivateKey: PARTNER.privateKey,
      },
    };
  } catch (error) {
    await devnet.stop();
    throw error;
  }
}

/** The settings that put the network on the chain, the node reached at `rpcUrl` (a replica's link). */
export function chainSettings(chain: ChaosChain, rpcUrl: string): Record<string, string> {
  const prefix = `MM_CHAIN_${chain.network.toUpperCase()}`;
  return {
    [`${prefix}_RPC_URL`]: rpcUrl,
    [`${prefix}_USDC_ADDRESS`]: chain.token,
    [`${prefix}_CONFIRMATIONS`]: String(CHAIN_CONFIRMATIONS),
  };
}

/** The treasury's gas and float, once the platform can say which address it is (GET /admin/chains). */
export async function fundTreasury(devnet: Devnet, treasury: string): Promise<void> {
  await devnet.fundGas(treasury, '1000');
  await devnet.mint(treasury, TREASURY_FLOAT);
}

/** The partner's side of the chain: its own account, which pays in, and a reader of the token's transfers. */
export class ChainParty {
  private readonly reader;
  private readonly wallet;
  /** The sends so far, one after another: a node mining each transaction as it comes refuses a nonce ahead of it. */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(readonly chain: ChaosChain) {
    const definition = viem.defineChain({
      id: 31337,
      name: 'chaos',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [this.chain.rpcUrl] } },
    });
    const transport = viem.http(this.chain.rpcUrl);
    this.reader = viem.createPublicClient({ chain: definition, transport });
    // One process sends from the account: viem counts its nonces here.
    const account = viemAccounts.privateKeyToAccount(this.chain.partnerPrivateKey, {
      nonceManager: viemAccounts.nonceManager,
    });
    this.wallet = viem.createWalletClient({ chain: definition, transport, account });
  }

  get network(): string {
    return this.chain.network;
  }

  get address(): string {
    return this.wallet.account.address;
  }

  /** Sends `amount` (decimal units) to an address; resolves with its hash once mined, and whether it succeeded. */
  async send(to: string, amount: string): Promise<{ txHash: string; succeeded: boolean }> {
    const write = () =>
      this.wallet.writeContract({
        address: this.chain.token,
        abi: viem.erc20Abi,
        functionName: 'transfer',
        args: [to as Address, viem.parseUnits(amount, 6)],
      });
    const sent = this.sending.then(write, write);
    this.sending = sent.catch(() => undefined);
    const hash = await sent;
    const receipt = await this.reader.waitForTransactionReceipt({ hash, timeout: 60_000 });
    return { txHash: hash, succeeded: receipt.status === 'success' };
  }

  /** Every transfer of the token the chain holds, oldest first. */
  async transfers(): Promise<ChainTransfer[]> {
    const logs = await this.reader.getContractEvents({
      address: this.chain.token,
      abi: viem.erc20Abi,
      eventName: 'Transfer',
      fromBlock: 0n,
      toBlock: 'latest',
    });
    return logs.map((entry) => {
      const args = entry.args as { from: Address; to: Address; value: bigint };
      return {
        hash: entry.transactionHash!.toLowerCase(),
        from: args.from.toLowerCase(),
        to: args.to.toLowerCase(),
        amount: viem.formatUnits(args.value, 6),
        block: Number(entry.blockNumber),
      };
    });
  }
}
