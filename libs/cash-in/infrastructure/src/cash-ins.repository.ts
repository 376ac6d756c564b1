// The cash-in service's read models; every query about a cash-in or a customer
// takes the project id. Written in the command's transaction (inline
// projection), so a read right after a write sees it.
import { Injectable } from '@nestjs/common';
import type { CashInUsage, CashInView, LimitWindow } from '@mm/cash-in/domain';
import { sqlState, UNIQUE_VIOLATION, UnitOfWork } from '@mm/platform/database';
import { ConcurrencyError } from '@mm/platform/event-store';

export interface CashInRow {
  id: string;
  project_id: string;
  customer_id: string;
  status: 'pending' | 'completed' | 'expired';
  code: string;
  expires_at: Date;
  view: CashInView;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export const LIVE_CODE_CONSTRAINT = 'cash_ins_live_code_unique';

/**
 * The code drawn for a cash-in is another pending cash-in's (ADR 0020). A ConcurrencyError, so the
 * command runs again from the start, in a new transaction, with a new code.
 */
export class DepositCodeTaken extends ConcurrencyError {
  constructor(cashInId: string) {
    super(`cashIn-${cashInId}`, 'any');
    this.message = `the deposit code drawn for ${cashInId} is live on another cash-in`;
  }
}

@Injectable()
export class CashInsReadModel {
  constructor(private readonly uow: UnitOfWork) {}

  /** The cash-in as of its latest event; a live code another pending cash-in holds is DepositCodeTaken. */
  async upsert(projectId: string, view: CashInView, version: number): Promise<CashInRow> {
    try {
      const [row] = await this.uow.query<CashInRow>(
        `INSERT INTO cash_in.cash_ins (id, project_id, customer_id, status, code, expires_at, view, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, code = EXCLUDED.code, expires_at = EXCLUDED.expires_at,
           view = EXCLUDED.view, version = EXCLUDED.version, updated_at = EXCLUDED.updated_at
         RETURNING *`,
        [
          view.id,
          projectId,
          view.customerId,
          view.status,
          view.depositInstructions.code,
          view.depositInstructions.expiresAt,
          JSON.stringify(view),
          version,
          view.createdAt,
          view.updatedAt,
        ],
      );
      return row;
    } catch (error) {
      if (
        sqlState(error) === UNIQUE_VIOLATION &&
        String((error as { constraint?: unknown }).constraint ?? (error as Error).message).includes(
          LIVE_CODE_CONSTRAINT,
        )
      ) {
        throw new DepositCodeTaken(view.id);
      }
      throw error;
    }
  }

  async get(projectId: string, id: string): Promise<CashInRow | undefined> {
    const [row] = await this.uow.query<CashInRow>(`SELECT * FROM cash_in.cash_ins WHERE project_id = $1 AND id = $2`, [
      projectId,
      id,
    ]);
    return row;
  }

  /** Newest first; `before` is the last id of the previous page. */
  list(projectId: string, before: string | undefined, limit: number): Promise<CashInRow[]> {
    return this.uow.query<CashInRow>(
      `SELECT * FROM cash_in.cash_ins WHERE project_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [projectId, before ?? null, limit],
    );
  }

  /**
   * Takes the customer's usage row lock until commit: deposits of one customer are decided one
   * after another, each seeing the ones before it, so concurrent deposits cannot pass a cap together.
   */
  async lockCustomer(projectId: string, customerId: string): Promise<void> {
    await this.uow.query(
      `INSERT INTO cash_in.customer_usage (project_id, customer_id) VALUES ($1, $2)
       ON CONFLICT (project_id, customer_id) DO UPDATE SET deposits = cash_in.customer_usage.deposits`,
      [projectId, customerId],
    );
  }

  /** The customer's completed cash-ins in each window, from the window's start (project time). */
  async usage(projectId: string, customerId: string, starts: Record<LimitWindow, string>): Promise<CashInUsage> {
    // The week may begin in the month before: each window counts from its own start.
    const [row] = await this.uow.query<Record<string, string | number>>(
      `SELECT count(*) FILTER (WHERE deposited_at >= $3)::int AS day_count,
              coalesce(sum(amount) FILTER (WHERE deposited_at >= $3), 0)::text AS day_amount,
              count(*) FILTER (WHERE deposited_at >= $4)::int AS week_count,
              coalesce(sum(amount) FILTER (WHERE deposited_at >= $4), 0)::text AS week_amount,
              count(*) FILTER (WHERE deposited_at >= $5)::int AS month_count,
              coalesce(sum(amount) FILTER (WHERE deposited_at >= $5), 0)::text AS month_amount
         FROM cash_in.deposits
        WHERE project_id = $1 AND customer_id = $2 AND deposited_at >= least($4::timestamptz, $5::timestamptz)`,
      [projectId, customerId, starts.day, starts.week, starts.month],
    );
    const window = (name: LimitWindow) => ({
      count: Number(row[`${name}_count`]),
      amount: String(row[`${name}_amount`]),
    });
    return { day: window('day'), week: window('week'), month: window('month') };
  }

  /** A completed deposit, counted by the limits from now on (once per cash-in). */
  async recordDeposit(
    projectId: string,
    customerId: string,
    cashInId: string,
    amount: string,
    at: string,
  ): Promise<void> {
    await this.uow.query(
      `WITH deposit AS (
         INSERT INTO cash_in.deposits (cash_in_id, project_id, customer_id, amount, deposited_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (cash_in_id) DO NOTHING RETURNING cash_in_id)
       INSERT INTO cash_in.customer_usage (project_id, customer_id, deposits) SELECT $2, $3, 1 FROM deposit
       ON CONFLICT (project_id, customer_id) DO UPDATE SET deposits = cash_in.customer_usage.deposits + 1`,
      [cashInId, projectId, customerId, amount, at],
    );
  }
}
