// The deposit-addresses service's read models; every query takes the project
// id. Written in the command's transaction (inline projection), so a read right
// after a write sees it.
import { Injectable } from '@nestjs/common';
import type { DepositAddressStatus, DepositDisposition } from '@mm/contracts';
import type { DepositAddressView } from '@mm/deposit-addresses/domain';
import { UnitOfWork } from '@mm/platform/database';

export interface DepositAddressRow {
  id: string;
  project_id: string;
  customer_id: string;
  status: DepositAddressStatus;
  destination_account_id: string;
  return_account_id: string | null;
  view: DepositAddressView;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export type HeldFor = 'attribution' | 'destination';

export interface DepositRow {
  transaction_id: string;
  project_id: string;
  customer_id: string;
  deposit_address_id: string;
  amount: string;
  sender_address: string;
  network: string;
  disposition: DepositDisposition;
  held: HeldFor | null;
  attribution_deadline: Date | null;
  deposited_at: Date;
}

export interface NewDeposit {
  transactionId: string;
  projectId: string;
  customerId: string;
  depositAddressId: string;
  amount: string;
  senderAddress: string;
  network: string;
  disposition: DepositDisposition;
  held: HeldFor | null;
  attributionDeadline: string | null;
  at: string;
}

@Injectable()
export class DepositAddressesReadModel {
  constructor(private readonly uow: UnitOfWork) {}

  /** The address as of its latest event (written with the transaction's next statement). */
  async upsert(projectId: string, view: DepositAddressView, version: number): Promise<void> {
    await this.uow.defer(
      `INSERT INTO deposit_addresses.addresses (id, project_id, customer_id, status, destination_account_id, return_account_id, view, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, destination_account_id = EXCLUDED.destination_account_id,
         return_account_id = EXCLUDED.return_account_id, view = EXCLUDED.view, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at`,
      [
        view.id,
        projectId,
        view.customerId,
        view.status,
        view.destination.id,
        view.returnDestination?.id ?? null,
        JSON.stringify(view),
        version,
        view.createdAt,
        view.updatedAt,
      ],
    );
  }

  async get(projectId: string, id: string): Promise<DepositAddressRow | undefined> {
    const [row] = await this.uow.query<DepositAddressRow>(
      `SELECT * FROM deposit_addresses.addresses WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
    return row;
  }

  /** Newest first; `before` is the last id of the previous page. */
  list(
    projectId: string,
    customerId: string | undefined,
    before: string | undefined,
    limit: number,
  ): Promise<DepositAddressRow[]> {
    return this.uow.query<DepositAddressRow>(
      `SELECT * FROM deposit_addresses.addresses
        WHERE project_id = $1 AND ($2::text IS NULL OR customer_id = $2) AND ($3::text IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $4`,
      [projectId, customerId ?? null, before ?? null, limit],
    );
  }

  /** The addresses that pay out to this external account and may still take deposits. */
  async payingTo(projectId: string, externalAccountId: string): Promise<string[]> {
    const rows = await this.uow.query<{ id: string }>(
      `SELECT id FROM deposit_addresses.addresses
        WHERE project_id = $1 AND destination_account_id = $2 AND status NOT IN ('closed', 'failed') ORDER BY id`,
      [projectId, externalAccountId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Takes the customer's row lock until commit. A deposit takes it before it asks whether its sender is
   * registered, and a registration before it looks for the deposits it attributes: one of the two always
   * sees the other (ADR 0030). It travels with the transaction's next statement, ahead of it: the lock is
   * taken before whatever that statement asks, and no round trip is spent on it alone.
   */
  async lockCustomer(projectId: string, customerId: string): Promise<void> {
    await this.uow.defer(
      `INSERT INTO deposit_addresses.customer_locks (project_id, customer_id) VALUES ($1, $2)
       ON CONFLICT (project_id, customer_id) DO UPDATE SET customer_id = EXCLUDED.customer_id`,
      [projectId, customerId],
    );
  }

  /**
   * lockCustomer of the address's customer, found from the address in the same statement: for a deposit,
   * whose customer is known only from the address's row, so that the lock travels with that row's read.
   * Takes nothing for an address this project does not have.
   */
  async lockCustomerOfAddress(projectId: string, depositAddressId: string): Promise<void> {
    await this.uow.defer(
      `INSERT INTO deposit_addresses.customer_locks (project_id, customer_id)
       SELECT project_id, customer_id FROM deposit_addresses.addresses WHERE project_id = $1 AND id = $2
       ON CONFLICT (project_id, customer_id) DO UPDATE SET customer_id = EXCLUDED.customer_id`,
      [projectId, depositAddressId],
    );
  }

  async recordDeposit(d: NewDeposit): Promise<void> {
    await this.uow.defer(
      `INSERT INTO deposit_addresses.deposits
         (transaction_id, project_id, customer_id, deposit_address_id, amount, sender_address, network, disposition, held, attribution_deadline, deposited_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        d.transactionId,
        d.projectId,
        d.customerId,
        d.depositAddressId,
        d.amount,
        d.senderAddress,
        d.network,
        d.disposition,
        d.held,
        d.attributionDeadline,
        d.at,
      ],
    );
  }

  /** The customer's deposits held for a sender at this address on this network (compared case-insensitively). */
  heldForSender(projectId: string, customerId: string, network: string, senderAddress: string): Promise<DepositRow[]> {
    return this.uow.query<DepositRow>(
      `SELECT * FROM deposit_addresses.deposits
        WHERE project_id = $1 AND customer_id = $2 AND network = $3 AND lower(sender_address) = lower($4) AND held = 'attribution'
        ORDER BY transaction_id`,
      [projectId, customerId, network, senderAddress],
    );
  }

  /** The address's deposits still held on this side (for a destination, or for their sender). */
  held(depositAddressId: string): Promise<DepositRow[]> {
    return this.uow.query<DepositRow>(
      `SELECT * FROM deposit_addresses.deposits WHERE deposit_address_id = $1 AND held IS NOT NULL ORDER BY transaction_id`,
      [depositAddressId],
    );
  }

  async setHeld(transactionIds: string[], held: HeldFor | null): Promise<void> {
    if (transactionIds.length === 0) return;
    await this.uow.defer(`UPDATE deposit_addresses.deposits SET held = $2 WHERE transaction_id = ANY($1)`, [
      transactionIds,
      held,
    ]);
  }

  /** How many deposits the address took (tests and operators). */
  /** A deposit by its transaction, in this project; undefined for a transaction of no deposit here. */
  async deposit(projectId: string, transactionId: string): Promise<DepositRow | undefined> {
    const [row] = await this.uow.query<DepositRow>(
      `SELECT * FROM deposit_addresses.deposits WHERE project_id = $1 AND transaction_id = $2`,
      [projectId, transactionId],
    );
    return row;
  }

  async deposits(depositAddressId: string): Promise<DepositRow[]> {
    return this.uow.query<DepositRow>(
      `SELECT * FROM deposit_addresses.deposits WHERE deposit_address_id = $1 ORDER BY transaction_id`,
      [depositAddressId],
    );
  }
}
