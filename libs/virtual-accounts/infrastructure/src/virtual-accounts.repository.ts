// The virtual-accounts service's read models; every query takes the project
// id. Written in the command's transaction (inline projection), so a read right
// after a write sees it.
import { Injectable } from '@nestjs/common';
import type { InboundRail, VirtualAccountDisposition, VirtualAccountStatus } from '@mm/contracts';
import type { VirtualAccountView } from '@mm/virtual-accounts/domain';
import { UnitOfWork } from '@mm/platform/database';

export interface VirtualAccountRow {
  id: string;
  project_id: string;
  customer_id: string;
  status: VirtualAccountStatus;
  destination_id: string;
  return_account_id: string | null;
  view: VirtualAccountView;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface NewDeposit {
  transactionId: string;
  projectId: string;
  customerId: string;
  virtualAccountId: string;
  amount: string;
  rail: InboundRail;
  reference: string;
  disposition: VirtualAccountDisposition;
  at: string;
}

@Injectable()
export class VirtualAccountsReadModel {
  constructor(private readonly uow: UnitOfWork) {}

  /** The account as of its latest event (written with the transaction's next statement). */
  async upsert(projectId: string, view: VirtualAccountView, version: number): Promise<void> {
    await this.uow.defer(
      `INSERT INTO virtual_accounts.accounts (id, project_id, customer_id, status, destination_id, return_account_id, view, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, destination_id = EXCLUDED.destination_id,
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

  async get(projectId: string, id: string): Promise<VirtualAccountRow | undefined> {
    const [row] = await this.uow.query<VirtualAccountRow>(
      `SELECT * FROM virtual_accounts.accounts WHERE project_id = $1 AND id = $2`,
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
  ): Promise<VirtualAccountRow[]> {
    return this.uow.query<VirtualAccountRow>(
      `SELECT * FROM virtual_accounts.accounts
        WHERE project_id = $1 AND ($2::text IS NULL OR customer_id = $2) AND ($3::text IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $4`,
      [projectId, customerId ?? null, before ?? null, limit],
    );
  }

  async recordDeposit(d: NewDeposit): Promise<void> {
    await this.uow.defer(
      `INSERT INTO virtual_accounts.deposits (transaction_id, project_id, customer_id, virtual_account_id, amount, rail, reference, disposition, deposited_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        d.transactionId,
        d.projectId,
        d.customerId,
        d.virtualAccountId,
        d.amount,
        d.rail,
        d.reference,
        d.disposition,
        d.at,
      ],
    );
  }

  /** The account and amount of a transfer, by its transaction; undefined for a transaction of no transfer here. */
  async deposit(
    projectId: string,
    transactionId: string,
  ): Promise<{ virtual_account_id: string; amount: string } | undefined> {
    const [row] = await this.uow.query<{ virtual_account_id: string; amount: string }>(
      `SELECT virtual_account_id, amount::text AS amount FROM virtual_accounts.deposits WHERE project_id = $1 AND transaction_id = $2`,
      [projectId, transactionId],
    );
    return row;
  }

  /** Every transfer the account took, with its amount (a new destination asks which wait for one). */
  deposits(virtualAccountId: string): Promise<Array<{ transaction_id: string; amount: string }>> {
    return this.uow.query(
      `SELECT transaction_id, amount::text AS amount FROM virtual_accounts.deposits WHERE virtual_account_id = $1 ORDER BY transaction_id`,
      [virtualAccountId],
    );
  }

  /** The transactions of every transfer the account took (a DELETE asks which are unfinished). */
  async depositTransactionIds(virtualAccountId: string): Promise<string[]> {
    const rows = await this.uow.query<{ transaction_id: string }>(
      `SELECT transaction_id FROM virtual_accounts.deposits WHERE virtual_account_id = $1 ORDER BY transaction_id`,
      [virtualAccountId],
    );
    return rows.map((r) => r.transaction_id);
  }
}
