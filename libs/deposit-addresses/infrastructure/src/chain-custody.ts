// Deposit addresses on a chain (docs/chain.md): the custodian derives each address from the custody seed at
// the next index of the deposit addresses' BIP-44 account, and keeps the pair before it answers, so the
// provisioning timer asked again answers the same address. What the chain brought to these addresses is
// recorded by its transfer key, once, with the transaction it made (or why it made none).
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { ProvisioningOutcome } from '@mm/deposit-addresses/domain';
import { ChainNetworks } from '@mm/platform/chain';
import { UnitOfWork } from '@mm/platform/database';
import { SandboxDepositAddressCustodian, type ProvisioningRequest } from './custodian';

@Injectable()
export class DepositAddressCustody {
  constructor(private readonly uow: UnitOfWork) {}

  /** The address kept for this deposit address, else one derived at the next index and kept. */
  async addressOf(
    depositAddressId: string,
    network: string,
    derive: (index: number) => Promise<string>,
  ): Promise<{ address: string }> {
    const kept = await this.kept(depositAddressId);
    if (kept) return { address: kept };
    const [{ index }] = await this.uow.query<{ index: string }>(
      `SELECT nextval('deposit_addresses.custody_index') AS index`,
    );
    await this.uow.query(
      `INSERT INTO deposit_addresses.custody_addresses (deposit_address_id, network, address, derivation_index)
       VALUES ($1, $2, $3, $4) ON CONFLICT (deposit_address_id) DO NOTHING`,
      [depositAddressId, network, await derive(Number(index)), index],
    );
    // Two answers at once: the first kept wins, the other's index is never shown.
    return { address: (await this.kept(depositAddressId))! };
  }

  /** The deposit addresses on a network among these chain addresses (any case), with their projects. */
  async at(
    network: string,
    addresses: string[],
  ): Promise<Array<{ deposit_address_id: string; project_id: string; address: string }>> {
    return this.uow.query(
      `SELECT c.deposit_address_id, a.project_id, c.address
         FROM deposit_addresses.custody_addresses c
         JOIN deposit_addresses.addresses a ON a.id = c.deposit_address_id
        WHERE c.network = $1 AND lower(c.address) = ANY($2::text[])`,
      [network, addresses.map((a) => a.toLowerCase())],
    );
  }

  /** Records a transfer's arrival once: false when it was recorded before. */
  async firstArrival(transferKey: string, depositAddressId: string): Promise<boolean> {
    const rows = await this.uow.query(
      `INSERT INTO deposit_addresses.chain_deposits (transfer_key, deposit_address_id) VALUES ($1, $2)
       ON CONFLICT (transfer_key) DO NOTHING RETURNING 1`,
      [transferKey, depositAddressId],
    );
    return rows.length > 0;
  }

  /** What the arrival made: its transaction, or why none (an operator's to settle). */
  async arrivalOutcome(transferKey: string, outcome: { transactionId: string } | { refused: string }): Promise<void> {
    await this.uow.query(
      `UPDATE deposit_addresses.chain_deposits SET transaction_id = $2, refused = $3 WHERE transfer_key = $1`,
      [
        transferKey,
        'transactionId' in outcome ? outcome.transactionId : null,
        'refused' in outcome ? outcome.refused : null,
      ],
    );
  }

  private async kept(depositAddressId: string): Promise<string | undefined> {
    const [row] = await this.uow.query<{ address: string }>(
      `SELECT address FROM deposit_addresses.custody_addresses WHERE deposit_address_id = $1`,
      [depositAddressId],
    );
    return row?.address;
  }
}

@Injectable()
export class ChainDepositAddressCustodian extends SandboxDepositAddressCustodian {
  constructor(
    private readonly chains: ChainNetworks,
    private readonly custody: DepositAddressCustody,
  ) {
    super();
  }

  override async provision(request: ProvisioningRequest): Promise<ProvisioningOutcome> {
    const simulated = await super.provision(request);
    // The sandbox's magic labels fail an address on a chain too (docs/sandbox.md).
    if ('failure' in simulated || !this.chains.client(request.network)) return simulated;
    return this.custody.addressOf(request.depositAddressId, request.network, async (index) => {
      const address = this.chains.custody().address({ purpose: 'depositAddress', index });
      await this.chains.registry.register({
        purpose: 'depositAddress',
        index,
        network: request.network,
        address,
        ownerId: request.depositAddressId,
      });
      return address;
    });
  }
}

export class DepositAddressesChainCustody1700000007100 implements MigrationInterface {
  name = 'DepositAddressesChainCustody1700000007100';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SEQUENCE deposit_addresses.custody_index MINVALUE 0 START 0`);
    await runner.query(`
      CREATE TABLE deposit_addresses.custody_addresses (
        deposit_address_id text        PRIMARY KEY,
        network            text        NOT NULL,
        address            text        NOT NULL UNIQUE,
        derivation_index   integer     NOT NULL UNIQUE,
        created_at         timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(
      `CREATE INDEX custody_addresses_chain_idx ON deposit_addresses.custody_addresses (network, lower(address))`,
    );
    await runner.query(`
      CREATE TABLE deposit_addresses.chain_deposits (
        transfer_key       text        PRIMARY KEY,
        deposit_address_id text        NOT NULL,
        transaction_id     text,
        refused            text,
        recorded_at        timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE deposit_addresses.chain_deposits`);
    await runner.query(`DROP TABLE deposit_addresses.custody_addresses`);
    await runner.query(`DROP SEQUENCE deposit_addresses.custody_index`);
  }
}
