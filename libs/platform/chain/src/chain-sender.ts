// The chain sender (ARCHITECTURE: providers; docs/chain.md): ERC-20 transfers of USDC from a network's
// treasury, in three steps that each survive a crash.
//   submit  in the caller's transaction (a payout leg's initiation): the treasury's next nonce, allocated in
//           PostgreSQL under the nonce row's lock, and the payout queued with it. A rollback returns the nonce,
//           so no two payouts share one and none is skipped.
//   sign    the transaction signed at the node's current fees, and kept; sent only once kept. A process
//           killed before the signature is kept signs again (nothing was sent); after, whoever follows sends
//           the kept bytes, which have one hash and one nonce: the payout is paid once either way.
//   follow  each poll: the receipts of every signature of the payout (a replacement keeps the nonce, so only
//           one can ever land); once one has the confirmations, the outcome is recorded with the payout's
//           status in one transaction. A signature the node does not hold is broadcast again; one not mined
//           within MM_CHAIN_REPLACE_AFTER_SECONDS is replaced at higher fees on the same nonce, and the first
//           replacement tells the owner the payout is unconfirmed (it may still land, under any signature).
import { Logger } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { ChainNetwork } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import type { ChainClient } from './chain-client';
import type { CustodyPath, CustodySigner } from './custody';
import { viem, type Address, type Hex } from './viem';

/** Gas for one ERC-20 transfer with room to spare (a standard transfer takes 35,000 to 52,000). */
export const TRANSFER_GAS = 100_000n;
/** Gas for a transfer of the native currency to an address with no code. */
const NATIVE_TRANSFER_GAS = 21_000n;
/** A replacement's fees over the last: nodes take a replacement only at 10% more. */
const REPLACEMENT_BUMP_PERCENT = 25n;

/**
 * What a transfer is for: a payout, or the return of a deposit (which the ledger counts as gone when it starts:
 * reconciliation), both from the treasury; a sweep of a derived address's tokens to the treasury, or the gas
 * the treasury sends a derived address for it (chain-sweeper.ts), both within custody.
 */
export type TransferPurpose = 'payout' | 'return' | 'sweep' | 'gas';

export interface PayoutRequest {
  /** The payout's own id (a transaction leg's): one transfer per id, however often submitted. */
  id: string;
  purpose: TransferPurpose;
  network: ChainNetwork;
  to: string;
  /** Decimal units of the token, or of the chain's native currency for `asset: 'native'`. */
  amount: string;
  /** What the owner needs to record the outcome (its project and transaction). */
  context: Record<string, string>;
  /** The address that pays, by its custody path: the treasury unless given (a sweep: the address it empties). */
  from?: CustodyPath;
  /** The token (by default), or the chain's native currency (gas). */
  asset?: 'token' | 'native';
}

export type PayoutOutcome = { id: string; purpose: TransferPurpose; context: Record<string, string> } & (
  | {
      /** The transfer that landed with its confirmations: confirmed, or reverted by the token. */
      kind: 'confirmed' | 'reverted';
      txHash: Hex;
      blockNumber: bigint;
    }
  | {
      /** Not mined in time (its first replacement): it may land yet, under any of its signatures. */
      kind: 'unconfirmed';
    }
);

/** What the sender holds of a payout now (docs/chain.md, Payouts): the lookup by the payout's id. */
export type PayoutLookup =
  | { kind: 'landed'; status: 'confirmed' | 'reverted'; txHash: Hex }
  /** Queued or signed, not landed with its confirmations: it may land yet. */
  | { kind: 'underWay'; nonce: number; signatures: number }
  | { kind: 'unknown' };

interface Attempt {
  hash: Hex;
  raw: Hex;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  signedAt: string;
}

interface PayoutRow {
  id: string;
  network: string;
  from_address: string;
  nonce: string;
  to_address: string;
  amount: string;
  status: 'queued' | 'sent' | 'confirmed' | 'reverted';
  attempts: Attempt[];
  context: Record<string, string>;
  landed_hash: string | null;
  purpose: TransferPurpose;
  /** The paying address's custody path; null for the treasury. */
  signer_purpose: CustodyPath['purpose'] | null;
  signer_index: number | null;
  asset: 'token' | 'native';
}

export class ChainSender {
  private readonly logger: Logger;
  private timer?: NodeJS.Timeout;
  private running = false;
  /** A step under way: a wake meanwhile waits for the next. */
  private busy = false;
  private chainId = 0;
  private decimals = 6;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly client: ChainClient,
    private readonly custody: CustodySigner,
    /** Records an outcome, in the transaction that marks the payout settled. */
    private readonly record: (outcome: PayoutOutcome) => Promise<void>,
    private readonly options: { pollMs: number; replaceAfterMs: number },
  ) {
    this.logger = new Logger(`chain-sender ${client.network}`);
  }

  get treasury(): Address {
    return this.custody.address(this.custody.treasury(this.client.network));
  }

  /** Places the treasury's nonce row (from the node's count, on first start) and follows what is under way. */
  async start(): Promise<void> {
    this.chainId = await this.client.chainId();
    this.decimals = await this.client.decimals();
    const pending = await this.client.client.getTransactionCount({ address: this.treasury, blockTag: 'pending' });
    await this.uow.query(
      `INSERT INTO platform.chain_nonces (network, address, next_nonce) VALUES ($1, $2, $3)
       ON CONFLICT (network, address) DO NOTHING`,
      [this.client.network, this.treasury, pending],
    );
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
  }

  /**
   * Queues a transfer with its payer's next nonce (the treasury's unless `from` says), in the caller's
   * transaction; a second submit of the id is none.
   */
  async submit(request: PayoutRequest): Promise<void> {
    if (request.network !== this.client.network) throw new Error(`${request.network} is not this sender's network`);
    const from = request.from ? this.custody.address(request.from) : this.treasury;
    // A derived address's first transfer: its nonce row starts from the node's count (nothing else sends from it).
    const first = request.from
      ? await this.client.client.getTransactionCount({ address: from, blockTag: 'pending' })
      : undefined;
    await this.uow.run(async () => {
      const [existing] = await this.uow.query(`SELECT 1 FROM platform.chain_payouts WHERE id = $1`, [request.id]);
      if (existing) return;
      if (first !== undefined)
        await this.uow.query(
          `INSERT INTO platform.chain_nonces (network, address, next_nonce) VALUES ($1, $2, $3)
           ON CONFLICT (network, address) DO NOTHING`,
          [this.client.network, from, first],
        );
      const [{ nonce }] = await this.uow.query<{ nonce: string }>(
        `UPDATE platform.chain_nonces SET next_nonce = next_nonce + 1
          WHERE network = $1 AND address = $2 RETURNING next_nonce - 1 AS nonce`,
        [this.client.network, from],
      );
      await this.uow.query(
        `INSERT INTO platform.chain_payouts
           (id, network, from_address, nonce, to_address, amount, status, attempts, context, purpose, signer_purpose, signer_index, asset)
         VALUES ($1, $2, $3, $4, $5, $6, 'queued', '[]', $7, $8, $9, $10, $11)`,
        [
          request.id,
          request.network,
          from,
          nonce,
          request.to,
          request.amount,
          JSON.stringify(request.context),
          request.purpose,
          request.from?.purpose ?? null,
          request.from?.index ?? null,
          request.asset ?? 'token',
        ],
      );
    });
    // Signed and sent at once by this process; the poll covers a process that stops first.
    await this.uow.afterCommit(async () => this.wake());
  }

  /** Follows what is under way now (the poll does it anyway). */
  wake(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.schedule(0);
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = setTimeout(() => void this.tick(), ms);
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.step();
    } catch (error) {
      this.logger.warn(`following payouts failed, trying again: ${(error as Error).message}`);
    } finally {
      this.busy = false;
      this.schedule(this.options.pollMs);
    }
  }

  /** One round: every queued payout signed and kept, then every one under way followed, in nonce order. */
  async step(): Promise<void> {
    await this.signQueued();
    const rows = await this.open('sent');
    for (const row of rows) await this.follow(row);
  }

  /**
   * Signs every queued payout and keeps the signature, sending nothing: the first half of a step, which a
   * process killed at this point leaves behind (its follower sends the kept bytes).
   */
  async signQueued(): Promise<void> {
    for (const row of await this.open('queued')) {
      const fees = await this.client.client.estimateFeesPerGas();
      const attempt = await this.signed(row, fees.maxFeePerGas, fees.maxPriorityFeePerGas);
      // Another process that kept its signature first wins: that one is sent.
      await this.uow.query(
        `UPDATE platform.chain_payouts SET status = 'sent', attempts = $2, updated_at = now()
          WHERE id = $1 AND status = 'queued'`,
        [row.id, JSON.stringify([attempt])],
      );
    }
  }

  /** What the sender holds of the payout: landed (with the hash), under way, or nothing by that id. */
  async lookup(id: string): Promise<PayoutLookup> {
    const [row] = await this.uow.query<PayoutRow>(`SELECT * FROM platform.chain_payouts WHERE id = $1`, [id]);
    if (!row) return { kind: 'unknown' };
    if ((row.status === 'confirmed' || row.status === 'reverted') && row.landed_hash)
      return { kind: 'landed', status: row.status, txHash: row.landed_hash as Hex };
    return { kind: 'underWay', nonce: Number(row.nonce), signatures: row.attempts.length };
  }

  private open(status: 'queued' | 'sent'): Promise<PayoutRow[]> {
    return this.uow.query<PayoutRow>(
      `SELECT * FROM platform.chain_payouts WHERE network = $1 AND status = $2 ORDER BY from_address, nonce`,
      [this.client.network, status],
    );
  }

  private async follow(row: PayoutRow): Promise<void> {
    const landed = await this.landed(row);
    if (landed) {
      if (landed.confirmations < this.client.settings.confirmations) return;
      await this.uow.run(async () => {
        const settled = await this.uow.query(
          `UPDATE platform.chain_payouts SET status = $2, landed_hash = $3, updated_at = now()
            WHERE id = $1 AND status = 'sent' RETURNING 1`,
          [row.id, landed.success ? 'confirmed' : 'reverted', landed.hash],
        );
        if (settled.length === 0) return;
        await this.record({
          id: row.id,
          purpose: row.purpose,
          context: row.context,
          kind: landed.success ? 'confirmed' : 'reverted',
          txHash: landed.hash,
          blockNumber: landed.blockNumber,
        });
      });
      return;
    }
    const last = row.attempts[row.attempts.length - 1];
    const pending = await this.client.client.getTransaction({ hash: last.hash }).catch(() => undefined);
    if (!pending) {
      // Never reached the node, or dropped from its pool: the same bytes again (one hash, one nonce).
      await this.broadcast(last.raw);
      return;
    }
    if (Date.now() - Date.parse(last.signedAt) < this.options.replaceAfterMs) return;
    await this.replace(row, last);
  }

  /** The same nonce at higher fees; kept only if no other process replaced it meanwhile. */
  private async replace(row: PayoutRow, last: Attempt): Promise<void> {
    const fees = await this.client.client.estimateFeesPerGas();
    const bump = (previous: string, now: bigint) => {
      const raised = (BigInt(previous) * (100n + REPLACEMENT_BUMP_PERCENT) + 99n) / 100n;
      return raised > now ? raised : now;
    };
    const attempt = await this.signed(
      row,
      bump(last.maxFeePerGas, fees.maxFeePerGas),
      bump(last.maxPriorityFeePerGas, fees.maxPriorityFeePerGas),
    );
    const kept = await this.uow.run(async () => {
      const rows = await this.uow.query(
        `UPDATE platform.chain_payouts SET attempts = attempts || $2::jsonb, updated_at = now()
          WHERE id = $1 AND status = 'sent' AND jsonb_array_length(attempts) = $3 RETURNING 1`,
        [row.id, JSON.stringify([attempt]), row.attempts.length],
      );
      // The first replacement says the payout was not mined in the time it should have been: its owner hears it
      // once, with the replacement kept (a crash before the commit keeps neither).
      if (rows.length > 0 && row.attempts.length === 1)
        await this.record({ id: row.id, purpose: row.purpose, context: row.context, kind: 'unconfirmed' });
      return rows;
    });
    if (kept.length === 0) return;
    this.logger.log(`payout ${row.id} (nonce ${row.nonce}) not mined in time: replaced at higher fees`);
    await this.broadcast(attempt.raw);
  }

  /** The signature of the row's payout that the chain holds, with its confirmations. */
  private async landed(row: PayoutRow) {
    for (const attempt of row.attempts) {
      const receipt = await this.client.client.getTransactionReceipt({ hash: attempt.hash }).catch((error: unknown) => {
        if (error instanceof viem.TransactionReceiptNotFoundError) return undefined;
        throw error;
      });
      if (!receipt) continue;
      return {
        hash: attempt.hash,
        success: receipt.status === 'success',
        blockNumber: receipt.blockNumber,
        confirmations: Number((await this.client.head()) - receipt.blockNumber + 1n),
      };
    }
    return undefined;
  }

  private async signed(row: PayoutRow, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): Promise<Attempt> {
    const path: CustodyPath =
      row.signer_purpose === null
        ? this.custody.treasury(this.client.network)
        : { purpose: row.signer_purpose, index: Number(row.signer_index) };
    const what =
      row.asset === 'native'
        ? { to: row.to_address as Address, value: viem.parseEther(row.amount), gas: NATIVE_TRANSFER_GAS }
        : {
            to: this.client.settings.usdcAddress,
            data: viem.encodeFunctionData({
              abi: viem.erc20Abi,
              functionName: 'transfer',
              args: [row.to_address as Address, viem.parseUnits(row.amount, this.decimals)],
            }),
            value: 0n,
            gas: TRANSFER_GAS,
          };
    const raw = await this.custody.signTransaction(path, {
      type: 'eip1559',
      chainId: this.chainId,
      nonce: Number(row.nonce),
      ...what,
      maxFeePerGas,
      maxPriorityFeePerGas,
    });
    return {
      hash: viem.keccak256(raw),
      raw,
      maxFeePerGas: maxFeePerGas.toString(),
      maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
      signedAt: new Date().toISOString(),
    };
  }

  private async broadcast(raw: Hex): Promise<void> {
    try {
      await this.client.client.sendRawTransaction({ serializedTransaction: raw });
    } catch (error) {
      // Known already, or its nonce used (by this very payout, mined): the receipts say which next round.
      this.logger.debug?.(`broadcast answered: ${(error as Error).message.split('\n')[0]}`);
    }
  }
}

export class PlatformChainPayouts1700000000410 implements MigrationInterface {
  name = 'PlatformChainPayouts1700000000410';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS platform`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS platform.chain_nonces (
        network    text   NOT NULL,
        address    text   NOT NULL,
        next_nonce bigint NOT NULL,
        PRIMARY KEY (network, address)
      )`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS platform.chain_payouts (
        id           text        PRIMARY KEY,
        network      text        NOT NULL,
        from_address text        NOT NULL,
        nonce        bigint      NOT NULL,
        to_address   text        NOT NULL,
        amount       numeric     NOT NULL,
        status       text        NOT NULL CHECK (status IN ('queued', 'sent', 'confirmed', 'reverted')),
        attempts     jsonb       NOT NULL,
        context      jsonb       NOT NULL,
        landed_hash  text,
        created_at   timestamptz NOT NULL DEFAULT now(),
        updated_at   timestamptz NOT NULL DEFAULT now(),
        UNIQUE (network, from_address, nonce)
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS chain_payouts_open_idx ON platform.chain_payouts (network, nonce) WHERE status IN ('queued', 'sent')`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE platform.chain_payouts`);
    await runner.query(`DROP TABLE platform.chain_nonces`);
  }
}

export class PlatformChainPayoutPurpose1700000000430 implements MigrationInterface {
  name = 'PlatformChainPayoutPurpose1700000000430';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      `ALTER TABLE platform.chain_payouts ADD COLUMN IF NOT EXISTS purpose text NOT NULL DEFAULT 'payout' CHECK (purpose IN ('payout', 'return'))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE platform.chain_payouts DROP COLUMN purpose`);
  }
}

export class PlatformChainSweeps1700000000440 implements MigrationInterface {
  name = 'PlatformChainSweeps1700000000440';

  async up(runner: QueryRunner): Promise<void> {
    // Sweeps of derived addresses to the treasury and the gas sent for them go through the same sender.
    await runner.query(`ALTER TABLE platform.chain_payouts DROP CONSTRAINT IF EXISTS chain_payouts_purpose_check`);
    await runner.query(
      `ALTER TABLE platform.chain_payouts ADD CONSTRAINT chain_payouts_purpose_check
         CHECK (purpose IN ('payout', 'return', 'sweep', 'gas'))`,
    );
    await runner.query(`ALTER TABLE platform.chain_payouts ADD COLUMN IF NOT EXISTS signer_purpose text`);
    await runner.query(`ALTER TABLE platform.chain_payouts ADD COLUMN IF NOT EXISTS signer_index integer`);
    await runner.query(
      `ALTER TABLE platform.chain_payouts ADD COLUMN IF NOT EXISTS asset text NOT NULL DEFAULT 'token'
         CHECK (asset IN ('token', 'native'))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE platform.chain_payouts DROP COLUMN asset`);
    await runner.query(`ALTER TABLE platform.chain_payouts DROP COLUMN signer_index`);
    await runner.query(`ALTER TABLE platform.chain_payouts DROP COLUMN signer_purpose`);
  }
}
