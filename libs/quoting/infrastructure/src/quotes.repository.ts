// The quoting service's read model; every query takes the project id.
import { Injectable } from '@nestjs/common';
import type { QuoteRecord } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';

export interface QuoteRow {
  id: string;
  project_id: string;
  customer_id: string;
  status: 'open' | 'accepted' | 'expired';
  record: QuoteRecord;
  transaction_id: string | null;
  version: number;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

@Injectable()
export class QuotesReadModel {
  constructor(private readonly uow: UnitOfWork) {}

  /** The new quote's row, written with the transaction's next statement (UnitOfWork.defer). */
  async insert(record: QuoteRecord, version: number): Promise<QuoteRow> {
    await this.uow.defer(
      `INSERT INTO quoting.quotes (id, project_id, customer_id, status, record, version, expires_at, created_at, updated_at)
       VALUES ($1, $2, $3, 'open', $4::jsonb, $5, $6, $7, $7)`,
      [
        record.quoteId,
        record.projectId,
        record.customerId,
        JSON.stringify(record),
        version,
        record.expiresAt,
        record.createdAt,
      ],
    );
    const createdAt = new Date(record.createdAt);
    return {
      id: record.quoteId,
      project_id: record.projectId,
      customer_id: record.customerId,
      status: 'open',
      record,
      transaction_id: null,
      version,
      expires_at: new Date(record.expiresAt),
      created_at: createdAt,
      updated_at: createdAt,
    };
  }

  async setStatus(
    projectId: string,
    id: string,
    status: QuoteRow['status'],
    transactionId: string | null,
    version: number,
    at: string,
  ): Promise<void> {
    await this.uow.defer(
      `UPDATE quoting.quotes SET status = $3, transaction_id = COALESCE($4, transaction_id), version = $5, updated_at = $6 WHERE project_id = $1 AND id = $2`,
      [projectId, id, status, transactionId, version, at],
    );
  }

  async reopen(projectId: string, id: string, version: number, at: string): Promise<void> {
    await this.uow.defer(
      `UPDATE quoting.quotes SET status = 'open', transaction_id = NULL, version = $3, updated_at = $4 WHERE project_id = $1 AND id = $2`,
      [projectId, id, version, at],
    );
  }

  async get(projectId: string, id: string): Promise<QuoteRow | undefined> {
    const [row] = await this.uow.query<QuoteRow>(`SELECT * FROM quoting.quotes WHERE project_id = $1 AND id = $2`, [
      projectId,
      id,
    ]);
    return row;
  }
}
