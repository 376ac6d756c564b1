// The transactions read model; every query takes the project id.
import { Injectable } from '@nestjs/common';
import type { TransactionView } from '@mm/transactions/domain';
import { UnitOfWork } from '@mm/platform/database';

export interface TransactionRow {
  id: string;
  project_id: string;
  status: string;
  sub_status: string | null;
  view: TransactionView;
  version: number;
}

export interface TransactionFilter {
  customerId?: string;
  status?: string;
  /** Only those with a leg whose rail reference is exactly this (a tx hash in any case). */
  reference?: string;
  /** Only ids before this one (the cursor). */
  before?: string;
  limit: number;
}

/** Sub-statuses in which a transaction waits on an operator (besides every awaitingAction one). */
export const HELD_SUB_STATUSES = ['processing.underReview', 'processing.payoutUnconfirmed'];

@Injectable()
export class TransactionsReadModel {
  constructor(private readonly uow: UnitOfWork) {}

  /** Written with the transaction's next statement (UnitOfWork.defer): every later read of it sees the row. */
  async upsert(projectId: string, customerIds: string[], view: TransactionView, version: number): Promise<void> {
    await this.uow.defer(
      `INSERT INTO transactions.transactions (id, project_id, customer_ids, status, sub_status, view, version, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, sub_status = EXCLUDED.sub_status, view = EXCLUDED.view,
         version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
       WHERE transactions.transactions.version < EXCLUDED.version`,
      [
        view.id,
        projectId,
        customerIds,
        view.status,
        view.subStatus,
        JSON.stringify(view),
        version,
        view.createdAt,
        view.updatedAt,
      ],
    );
  }

  async get(projectId: string, id: string): Promise<TransactionRow | undefined> {
    const [row] = await this.uow.query<TransactionRow>(
      `SELECT id, project_id, status, sub_status, view, version FROM transactions.transactions WHERE project_id = $1 AND id = $2`,
      [projectId, id],
    );
    return row;
  }

  /** Operator routes: by id alone. */
  async getById(id: string): Promise<TransactionRow | undefined> {
    const [row] = await this.uow.query<TransactionRow>(
      `SELECT id, project_id, status, sub_status, view, version FROM transactions.transactions WHERE id = $1`,
      [id],
    );
    return row;
  }

  /**
   * A page of the project's transactions, newest first. A reference is looked for in the legs of the view (the
   * references the partner reads there, docs/sdk.md); a chain's hex hash matches in any case, a bank's exactly.
   */
  async list(projectId: string, filter: TransactionFilter): Promise<TransactionRow[]> {
    return this.uow.query<TransactionRow>(
      `SELECT id, project_id, status, sub_status, view, version FROM transactions.transactions
        WHERE project_id = $1
          AND ($2::text IS NULL OR $2 = ANY(customer_ids))
          AND ($3::text IS NULL OR status = $3)
          AND ($4::text IS NULL OR id < $4)
          AND ($6::text IS NULL OR EXISTS (
                SELECT 1 FROM jsonb_array_elements(view->'legs') AS leg
                 WHERE lower(leg->>'txHash') = lower($6)
                    OR $6 IN (leg->>'imad', leg->>'uetr', leg->>'endToEndId', leg->>'pickupCode', leg->>'instructionId')))
        ORDER BY id DESC LIMIT $5`,
      [
        projectId,
        filter.customerId ?? null,
        filter.status ?? null,
        filter.before ?? null,
        filter.limit,
        filter.reference ?? null,
      ],
    );
  }

  /**
   * Operator queue: every project's transactions that wait on an operator (HELD_WHERE), newest first.
   * Across projects on purpose: only operator routes call it.
   */
  async held(filter: { projectId?: string; before?: string; limit: number }): Promise<TransactionRow[]> {
    return this.uow.query<TransactionRow>(
      `SELECT id, project_id, status, sub_status, view, version FROM transactions.transactions
        WHERE (sub_status = ANY($1::text[]) OR status = 'awaitingAction')
          AND ($2::text IS NULL OR project_id = $2)
          AND ($3::text IS NULL OR id < $3)
        ORDER BY id DESC LIMIT $4`,
      [HELD_SUB_STATUSES, filter.projectId ?? null, filter.before ?? null, filter.limit],
    );
  }

  /** The statuses of these transactions of the project (those not made yet are absent). */
  async statuses(
    projectId: string,
    ids: string[],
  ): Promise<Array<Pick<TransactionRow, 'id' | 'status' | 'sub_status'>>> {
    if (ids.length === 0) return [];
    return this.uow.query(
      `SELECT id, status, sub_status FROM transactions.transactions WHERE project_id = $1 AND id = ANY($2::text[])`,
      [projectId, ids],
    );
  }
}
