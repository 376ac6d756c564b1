// One network's node over JSON-RPC (ADR 0064): its chain id, its head, a block's hash, and the USDC token's
// Transfer logs and balances. viem speaks the protocol; this names the few questions the platform asks.
import type { ChainSettings } from '@mm/platform/config';
import { viem, type Address, type Hex } from './viem';

const TRANSFER = () => viem.parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
const TOKEN_READS = () =>
  viem.parseAbi(['function balanceOf(address) view returns (uint256)', 'function decimals() view returns (uint8)']);

/** A token transfer as the chain logged it. */
export interface TokenTransfer {
  transactionHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
  from: Address;
  to: Address;
  /** In the token's smallest unit. */
  value: bigint;
}

export class ChainClient {
  readonly client;

  constructor(readonly settings: ChainSettings) {
    // Retries with backoff on a node's transient errors; every call bounded.
    this.client = viem.createPublicClient({
      transport: viem.http(settings.rpcUrl, { retryCount: 2, timeout: 10_000 }),
    });
  }

  get network() {
    return this.settings.network;
  }

  /** Read once: a node answers for one chain (a failed read is asked again next time). */
  chainId(): Promise<number> {
    return this.once('chainId', () => this.client.getChainId());
  }

  head(): Promise<bigint> {
    return this.client.getBlockNumber({ cacheTime: 0 });
  }

  /** The hash of a block at a height, or undefined where the chain is not that high. */
  async blockHash(number: bigint): Promise<Hex | undefined> {
    try {
      return (await this.client.getBlock({ blockNumber: number })).hash ?? undefined;
    } catch (error) {
      if (error instanceof viem.BlockNotFoundError) return undefined;
      throw error;
    }
  }

  /** The token's decimal places, as its contract says; read once, as the chain id is. */
  decimals(): Promise<number> {
    return this.once('decimals', () =>
      this.client.readContract({ address: this.settings.usdcAddress, abi: TOKEN_READS(), functionName: 'decimals' }),
    );
  }

  balanceOf(address: Address, blockNumber?: bigint): Promise<bigint> {
    return this.client.readContract({
      address: this.settings.usdcAddress,
      abi: TOKEN_READS(),
      functionName: 'balanceOf',
      args: [address],
      ...(blockNumber === undefined ? {} : { blockNumber }),
    });
  }

  /** Every Transfer the token logged in blocks `from` to `to`, in chain order. */
  async transfers(from: bigint, to: bigint): Promise<TokenTransfer[]> {
    const logs = await this.client.getLogs({
      address: this.settings.usdcAddress,
      event: TRANSFER(),
      fromBlock: from,
      toBlock: to,
      strict: true,
    });
    return logs
      .filter((log) => !log.removed)
      .map((log) => ({
        transactionHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
        from: log.args.from,
        to: log.args.to,
        value: log.args.value,
      }));
  }

  private readonly constants = new Map<string, Promise<number>>();

  private once(key: string, read: () => Promise<number>): Promise<number> {
    let value = this.constants.get(key);
    if (!value) {
      value = read().catch((error: unknown) => {
        this.constants.delete(key);
        throw error;
      });
      this.constants.set(key, value);
    }
    return value;
  }
}
