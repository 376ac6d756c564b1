// What the service sent to the rails (PaymentRails): each leg's submission and the provider's reference for it,
// written in the transaction that initiates the leg. A provider's notification names only its reference; this is
// how it finds its leg, and how a lookup finds the reference of a leg.
import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';

export interface RailSubmissionRow {
  reference: string;
  project_id: string;
  transaction_id: string;
  leg_id: string;
  purpose: 'leg' | 'bankRefund';
}

@Injectable()
export class RailSubmissions {
  constructor(private readonly uow: UnitOfWork) {}

  /** Written with the transaction's next statement (UnitOfWork.defer). */
  async record(row: RailSubmissionRow): Promise<void> {
    await this.uow.defer(
      `INSERT INTO transactions.rail_submissions (reference, project_id, transaction_id, leg_id, purpose)
       VALUES ($1, $2, $3, $4, $5)`,
      [row.reference, row.project_id, row.transaction_id, row.leg_id, row.purpose],
    );
  }

  async byReference(reference: string): Promise<RailSubmissionRow | undefined> {
    const [row] = await this.uow.query<RailSubmissionRow>(
      `SELECT reference, project_id, transaction_id, leg_id, purpose FROM transactions.rail_submissions WHERE reference = $1`,
      [reference],
    );
    return row;
  }

  /** The leg's submission (a leg is sent once: a retried payout is a new leg). */
  async ofLeg(legId: string): Promise<RailSubmissionRow | undefined> {
    const [row] = await this.uow.query<RailSubmissionRow>(
      `SELECT reference, project_id, transaction_id, leg_id, purpose FROM transactions.rail_submissions WHERE leg_id = $1`,
      [legId],
    );
    return row;
  }
}
