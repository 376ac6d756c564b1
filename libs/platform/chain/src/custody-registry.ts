// Every address under custody, by network (docs/chain.md, Custody): the treasury's aside, each derived address
// is registered here with its path as it is derived, by whichever service derives it, so that what the
// platform holds on a chain can be summed (reconciliation) and told apart from what arrives from outside
// (a transfer into the treasury from an address not here is the operator's own float).
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { UnitOfWork } from '@mm/platform/database';
import type { CustodyPurpose } from './custody';

/** A derived address with the custody path that signs for it. */
export interface DerivedAddress {
  address: string;
  purpose: CustodyPurpose;
  index: number;
}

export class CustodyRegistry {
  constructor(private readonly uow: UnitOfWork) {}

  /** Registers a derived address (again: nothing). */
  async register(entry: {
    purpose: CustodyPurpose;
    index: number;
    network: string;
    address: string;
    ownerId: string;
  }): Promise<void> {
    await this.uow.query(
      `INSERT INTO platform.custody_addresses (purpose, derivation_index, network, address, owner_id)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT (purpose, derivation_index) DO NOTHING`,
      [entry.purpose, entry.index, entry.network, entry.address, entry.ownerId],
    );
  }

  /** The derived addresses on a network (the treasury is not among them). */
  async addresses(network: string): Promise<string[]> {
    const rows = await this.uow.query<{ address: string }>(
      `SELECT address FROM platform.custody_addresses WHERE network = $1 ORDER BY purpose, derivation_index`,
      [network],
    );
    return rows.map((r) => r.address);
  }

  /** The derived addresses on a network with the custody path that signs for each (sweeps). */
  async derived(network: string): Promise<DerivedAddress[]> {
    const rows = await this.uow.query<{ address: string; purpose: CustodyPurpose; derivation_index: number }>(
      `SELECT address, purpose, derivation_index FROM platform.custody_addresses
        WHERE network = $1 ORDER BY purpose, derivation_index`,
      [network],
    );
    return rows.map((r) => ({ address: r.address, purpose: r.purpose, index: Number(r.derivation_index) }));
  }

  /** Which of these addresses (any case) are derived addresses on the network, lower case. */
  async derivedAmong(network: string, addresses: string[]): Promise<Set<string>> {
    const rows = await this.uow.query<{ address: string }>(
      `SELECT lower(address) AS address FROM platform.custody_addresses
        WHERE network = $1 AND lower(address) = ANY($2::text[])`,
      [network, addresses.map((a) => a.toLowerCase())],
    );
    return new Set(rows.map((r) => r.address));
  }
}

export class PlatformCustodyAddresses1700000000420 implements MigrationInterface {
  name = 'PlatformCustodyAddresses1700000000420';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`CREATE SCHEMA IF NOT EXISTS platform`);
    await runner.query(`
      CREATE TABLE IF NOT EXISTS platform.custody_addresses (
        purpose          text        NOT NULL,
        derivation_index integer     NOT NULL,
        network          text        NOT NULL,
        address          text        NOT NULL,
        owner_id         text        NOT NULL,
        created_at       timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (purpose, derivation_index)
      )`);
    await runner.query(
      `CREATE INDEX IF NOT EXISTS custody_addresses_network_idx ON platform.custody_addresses (network, lower(address))`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE platform.custody_addresses`);
  }
}
