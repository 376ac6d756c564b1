// The chain watcher (ARCHITECTURE: providers; spec: Deposit addresses, Wallet; ADR 0064): follows one network's
// head and hands its reader every USDC transfer of a block once the block has the network's confirmations,
// in bounded ranges, in chain order. Blocks with fewer confirmations are never read, so a reorganisation
// before confirmation drops what its blocks carried before anybody saw it. The cursor (the last block handed
// over and its hash) is kept in PostgreSQL and moves in the transaction that records what the reader made of
// the range, so a restart neither skips nor (the reader's postings being keyed by chain id, transaction hash
// and log index) credits twice. A confirmed block whose hash has changed is a reorganisation deeper than the
// confirmations: the watcher stops there and says so to operators, and never reverses what it credited.
import { Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import type { ChainClient, TokenTransfer } from './chain-client';
import type { ChainNetworks } from './chain-networks';
import { viem, type Hex } from './viem';

/** A confirmed transfer of the token, its amount in decimal units of the token. */
export interface ConfirmedTransfer extends Omit<TokenTransfer, 'value'> {
  network: string;
  chainId: number;
  amount: string;
}

/** The ledger key of one transfer: the chain's own identifiers. */
export const transferKey = (t: Pick<ConfirmedTransfer, 'chainId' | 'transactionHash' | 'logIndex'>) =>
  `chain:${t.chainId}:${t.transactionHash.toLowerCase()}:${t.logIndex}`;

/** What a reader does with a confirmed range's transfers, inside the transaction that moves its cursor. */
export type TransferReader = (transfers: ConfirmedTransfer[]) => Promise<void>;

export interface WatcherStatus {
  network: string;
  chainId: number | null;
  /** The head as of the watcher's last completed step. */
  head: string | null;
  confirmedThrough: string | null;
  confirmations: number;
  /** A confirmed block whose hash changed: the watcher stopped there. */
  reorganised?: { block: string; recordedHash: string; foundHash: string | null };
}

/** Blocks read in one step at most: public nodes cap a log query's range. */
const MAX_RANGE = 500n;

export class ChainWatcher {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running = false;
  private chainId: number | null = null;
  private decimals = 6;
  private lastHead: bigint | null = null;
  private reorganised?: WatcherStatus['reorganised'];

  constructor(
    private readonly uow: UnitOfWork,
    private readonly client: ChainClient,
    /** The cursor's name, unique per reader (`accounts.wallets`). */
    private readonly reader: string,
    private readonly read: TransferReader,
    private readonly pollMs: number,
  ) {
    this.logger = new Logger(`chain-watcher ${reader} ${client.network}`);
  }

  get confirmations(): number {
    return this.client.settings.confirmations;
  }

  /** Reads the node's chain id and the token's decimals, places the cursor on first start, and polls. */
  async start(): Promise<void> {
    this.chainId = await this.client.chainId();
    this.decimals = await this.client.decimals();
    const head = await this.client.head();
    // First start: what is confirmed already came before any address this reader could have made.
    const from = head - BigInt(this.confirmations) + 1n > 0n ? head - BigInt(this.confirmations) + 1n : 0n;
    const hash = (await this.client.blockHash(from)) ?? '0x';
    await this.uow.query(
      `INSERT INTO platform.chain_cursors (reader, network, chain_id, block_number, block_hash)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (reader, network) DO NOTHING`,
      [this.reader, this.client.network, this.chainId, from.toString(), hash],
    );
    const [cursor] = await this.cursor();
    if (Number(cursor.chain_id) !== this.chainId)
      throw new Error(
        `${this.client.network}: the node answers chain id ${this.chainId}, but ${this.reader} followed chain id ${cursor.chain_id}`,
      );
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
  }

  async status(): Promise<WatcherStatus> {
    const [cursor] = this.chainId === null ? [] : await this.cursor();
    return {
      network: this.client.network,
      chainId: this.chainId,
      head: this.lastHead?.toString() ?? null,
      confirmedThrough: cursor ? String(cursor.block_number) : null,
      confirmations: this.confirmations,
      ...(this.reorganised ? { reorganised: this.reorganised } : {}),
    };
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    let more = false;
    try {
      more = await this.step();
    } catch (error) {
      this.logger.warn(`reading the chain failed, trying again: ${(error as Error).message}`);
    }
    this.schedule(more ? 0 : this.pollMs);
  }

  /**
   * One range: returns whether more confirmed blocks wait. The head it worked from is shown once the step is
   * done, so a status whose head is H has credited everything H confirms.
   */
  async step(): Promise<boolean> {
    const head = await this.client.head();
    const more = await this.readTowards(head);
    this.lastHead = head;
    return more;
  }

  private async readTowards(head: bigint): Promise<boolean> {
    const [cursor] = await this.cursor();
    const at = BigInt(cursor.block_number);
    const found = await this.client.blockHash(at);
    if (found !== cursor.block_hash && cursor.block_hash !== '0x') {
      if (!this.reorganised)
        this.logger.error(
          `block ${at} was confirmed with hash ${cursor.block_hash} and now has ${found ?? 'no block'}: a reorganisation deeper than ${this.confirmations} confirmations; nothing credited is reversed, and reading stops here until an operator looks`,
        );
      this.reorganised = { block: at.toString(), recordedHash: cursor.block_hash, foundHash: found ?? null };
      return false;
    }
    this.reorganised = undefined;
    const confirmed = head - BigInt(this.confirmations) + 1n;
    if (confirmed <= at) return false;
    const to = confirmed - at > MAX_RANGE ? at + MAX_RANGE : confirmed;
    const transfers = await this.client.transfers(at + 1n, to);
    const toHash = await this.client.blockHash(to);
    if (!toHash) return false;
    // A log of a block that is no longer at its height (a reorganisation while this step read) waits.
    if (transfers.some((t) => t.blockNumber === to && t.blockHash !== toHash)) return false;
    const confirmedTransfers: ConfirmedTransfer[] = transfers.map(({ value, ...t }) => ({
      ...t,
      network: this.client.network,
      chainId: this.chainId!,
      amount: viem.formatUnits(value, this.decimals),
    }));
    await this.uow.run(async () => {
      // Moved only from where this step began: another replica that took the range first wins, this one rolls back.
      const moved = await this.uow.query(
        `UPDATE platform.chain_cursors SET block_number = $3, block_hash = $4, updated_at = now()
          WHERE reader = $1 AND network = $2 AND block_number = $5 RETURNING 1`,
        [this.reader, this.client.network, to.toString(), toHash, at.toString()],
      );
      if (moved.length === 0) return;
      if (confirmedTransfers.length > 0) await this.read(confirmedTransfers);
    });
    return to < confirmed;
  }

  private cursor() {
    return this.uow.query<{ chain_id: string; block_number: string; block_hash: Hex | '0x' }>(
      `SELECT chain_id, block_number, block_hash FROM platform.chain_cursors WHERE reader = $1 AND network = $2`,
      [this.reader, this.client.network],
    );
  }
}

export class PlatformChainCursors1700000000400 implements MigrationInterface {
  name = 'PlatformChainCursors1700000000400';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS platform`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS platform.chain_cursors (
        reader       text        NOT NULL,
        network      text        NOT NULL,
        chain_id     bigint      NOT NULL,
        block_number bigint      NOT NULL,
        block_hash   text        NOT NULL,
        updated_at   timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (reader, network)
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE platform.chain_cursors`);
  }
}

/**
 * A service's reader of the chains (wallets, deposit addresses): one watcher per network on a chain, started
 * and stopped with the service, handing over each confirmed range's transfers (transfers of nothing left out:
 * ERC-20 allows them, and they move nothing) in the transaction that moves the cursor.
 */
export abstract class ChainTransferReader implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly watchers = new Map<string, ChainWatcher>();

  protected constructor(uow: UnitOfWork, chains: ChainNetworks, config: PlatformConfig, reader: string) {
    for (const client of chains.clientsOnChain) {
      const watcher = new ChainWatcher(
        uow,
        client,
        reader,
        async (transfers) => {
          const moving = transfers.filter((t) => Number(t.amount) > 0);
          if (moving.length > 0) await this.read(client.network, moving);
        },
        config.MM_CHAIN_POLL_INTERVAL_MS,
      );
      this.watchers.set(client.network, watcher);
      chains.metrics.watching(reader, client.network, () => watcher.status());
    }
  }

  /** What the reader makes of a confirmed range's transfers, in the transaction that moves its cursor. */
  protected abstract read(network: string, transfers: ConfirmedTransfer[]): Promise<void>;

  async onApplicationBootstrap(): Promise<void> {
    for (const watcher of this.watchers.values()) await watcher.start();
  }

  async onApplicationShutdown(): Promise<void> {
    for (const watcher of this.watchers.values()) await watcher.stop();
  }

  /** Where the network's watcher stands; undefined for a simulated network. */
  status(network: string): Promise<WatcherStatus> | undefined {
    return this.watchers.get(network)?.status();
  }
}
