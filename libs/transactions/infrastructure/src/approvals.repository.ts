// The four-eyes requests as they stand (docs/operators.md, Four eyes), for the operators' list: each request's
// state as of its last event, written in its command's transaction. Whether a pending one has expired is read
// against the project's clock when it is shown, not stored.
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { UnitOfWork } from '@mm/platform/database';

export interface ApprovalRow {
  id: string;
  project_id: string;
  transaction_id: string;
  status: 'pending' | 'approved' | 'rejected';
  expires_at: Date;
  /** The request's state (ExistingApproval). */
  state: Record<string, unknown>;
}

export interface ApprovalFilter {
  projectId?: string;
  transactionId?: string;
  status?: 'pending' | 'approved' | 'rejected';
  before?: string;
  limit: number;
}

@Injectable()
export class ApprovalsReadModel {
  constructor(private readonly uow: UnitOfWork) {}

  async upsert(
    row: { id: string; projectId: string; transactionId: string; status: string; expiresAt: string; state: unknown },
    version: number,
  ): Promise<void> {
    await this.uow.defer(
      `INSERT INTO transactions.approvals (id, project_id, transaction_id, status, expires_at, state, version)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, state = EXCLUDED.state, version = EXCLUDED.version
       WHERE transactions.approvals.version < EXCLUDED.version`,
      [row.id, row.projectId, row.transactionId, row.status, row.expiresAt, JSON.stringify(row.state), version],
    );
  }

  async get(id: string): Promise<ApprovalRow | undefined> {
    const [row] = await this.uow.query<ApprovalRow>(
      `SELECT id, project_id, transaction_id, status, expires_at, state FROM transactions.approvals WHERE id = $1`,
      [id],
    );
    return row;
  }

  /** Every project's requests, newest first: only operator routes ask. */
  list(filter: ApprovalFilter): Promise<ApprovalRow[]> {
    return this.uow.query<ApprovalRow>(
      `SELECT id, project_id, transaction_id, status, expires_at, state FROM transactions.approvals
        WHERE ($1::text IS NULL OR project_id = $1)
          AND ($2::text IS NULL OR transaction_id = $2)
          AND ($3::text IS NULL OR status = $3)
          AND ($4::text IS NULL OR id < $4)
        ORDER BY id DESC LIMIT $5`,
      [
        filter.projectId ?? null,
        filter.transactionId ?? null,
        filter.status ?? null,
        filter.before ?? null,
        filter.limit,
      ],
    );
  }
}

export class TransactionApprovals1700000005700 implements MigrationInterface {
  name = 'TransactionApprovals1700000005700';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE transactions.approvals (
        id             text        PRIMARY KEY,
        project_id     text        NOT NULL,
        transaction_id text        NOT NULL,
        status         text        NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
        expires_at     timestamptz NOT NULL,
        state          jsonb       NOT NULL,
        version        integer     NOT NULL
      )`);
    await runner.query(`CREATE INDEX approvals_status_idx ON transactions.approvals (status, id DESC)`);
    await runner.query(`CREATE INDEX approvals_transaction_idx ON transactions.approvals (transaction_id)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE transactions.approvals`);
  }
}
