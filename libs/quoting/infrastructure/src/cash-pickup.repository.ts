// Cash pickup's read models in the quoting schema (spec: rule 8; Limits / Cash
// pickup (cash-out)): retail locations as the cash-in service's log announces
// them, and the accepted pickups each customer's limits count.
// Every query of a project's data takes the project id; locations belong to no project.
import { Injectable } from '@nestjs/common';
import type { CashLocationPublished } from '@mm/contracts';
import type { CashPickupLocation, CashPickupUsage } from '@mm/quoting/domain';
import { UnitOfWork } from '@mm/platform/database';

@Injectable()
export class CashPickupRepository {
  constructor(private readonly uow: UnitOfWork) {}

  /** The location as last published; an older version redelivered changes nothing. */
  async upsertLocation(location: CashLocationPublished, version: number): Promise<void> {
    await this.uow.query(
      `INSERT INTO quoting.cash_locations (loc_id, cash_location_reference, name, provider, state, flows, location, version)
       VALUES ($1, $2, $3, $4, $5, $6::text[], $7::jsonb, $8)
       ON CONFLICT (loc_id) DO UPDATE SET cash_location_reference = EXCLUDED.cash_location_reference, name = EXCLUDED.name,
         provider = EXCLUDED.provider, state = EXCLUDED.state, flows = EXCLUDED.flows, location = EXCLUDED.location, version = EXCLUDED.version
       WHERE quoting.cash_locations.version < EXCLUDED.version`,
      [
        location.locId,
        location.cashLocationReference,
        location.name,
        location.provider,
        location.address.state,
        location.flows,
        JSON.stringify(location),
        version,
      ],
    );
  }

  async location(locId: string): Promise<CashPickupLocation | undefined> {
    const [row] = await this.uow.query<{
      loc_id: string;
      cash_location_reference: string;
      name: string;
      provider: string;
      state: string;
      flows: string[];
    }>(
      `SELECT loc_id, cash_location_reference, name, provider, state, flows FROM quoting.cash_locations WHERE loc_id = $1`,
      [locId],
    );
    if (!row) return undefined;
    return {
      locId: row.loc_id,
      cashLocationReference: row.cash_location_reference,
      name: row.name,
      provider: row.provider,
      state: row.state,
      flows: row.flows as CashPickupLocation['flows'],
    };
  }

  /**
   * Serialises the acceptances of one customer's pickups until this transaction ends, so that two
   * cannot pass a cap together. (A hash collision with another customer only makes one wait.)
   */
  async lockCustomer(projectId: string, customerId: string): Promise<void> {
    await this.uow.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `cash-pickup:${projectId}:${customerId}`,
    ]);
  }

  /** The customer's accepted pickups that still count, in the windows given. */
  async usage(
    projectId: string,
    customerId: string,
    windows: { dayStart: string; dayEnd: string; monthStart: string; monthEnd: string },
  ): Promise<CashPickupUsage> {
    const [row] = await this.uow.query<{ day: string; month: string }>(
      `SELECT coalesce(sum(amount) FILTER (WHERE accepted_at >= $3 AND accepted_at < $4), 0)::text AS day,
              coalesce(sum(amount), 0)::text AS month
         FROM quoting.cash_pickups
        WHERE project_id = $1 AND customer_id = $2 AND returned_at IS NULL
          AND accepted_at >= $5 AND accepted_at < $6`,
      [projectId, customerId, windows.dayStart, windows.dayEnd, windows.monthStart, windows.monthEnd],
    );
    return { day: row.day, month: row.month };
  }

  /** An accepted cash pickup quote: its cash counts from now. */
  async recordAccepted(p: {
    projectId: string;
    quoteId: string;
    customerId: string;
    transactionId: string;
    amount: string;
    state: string;
    at: string;
  }): Promise<void> {
    await this.uow.defer(
      `INSERT INTO quoting.cash_pickups (quote_id, project_id, customer_id, transaction_id, amount, location_state, accepted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (quote_id) DO UPDATE SET transaction_id = EXCLUDED.transaction_id, accepted_at = EXCLUDED.accepted_at, returned_at = NULL`,
      [p.quoteId, p.projectId, p.customerId, p.transactionId, p.amount, p.state, p.at],
    );
  }

  /** A released quote: the transaction was never made, so the pickup never counted. */
  async removeReleased(projectId: string, quoteId: string): Promise<void> {
    await this.uow.defer(`DELETE FROM quoting.cash_pickups WHERE project_id = $1 AND quote_id = $2`, [
      projectId,
      quoteId,
    ]);
  }

  /** The pickup expired uncollected and its money went back: its cash no longer counts. */
  async markReturned(projectId: string, transactionId: string, at: string): Promise<void> {
    await this.uow.query(
      `UPDATE quoting.cash_pickups SET returned_at = $3 WHERE project_id = $1 AND transaction_id = $2 AND returned_at IS NULL`,
      [projectId, transactionId, at],
    );
  }
}
