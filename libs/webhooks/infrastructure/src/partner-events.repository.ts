// The partner events of each project (the Events API, ADR 0034): recorded once
// by the fan-out, listed newest first in the order it recorded them, kept for
// the delivery retention window of the project's clock. Every query takes the
// project id. A compliance review event is shown only while an endpoint of the
// project names it (spec: Events: `*` does not cover them; they go only to those
// who ask), the rule the fan-out applies to deliveries.
import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';

export interface PartnerEventRow {
  position: string;
  event_id: string;
  project_id: string;
  event: string;
  resource_id: string | null;
  created_at: Date;
  /** The envelope as delivered, with the evt_ id as its `id`. */
  body: string;
}

export interface NewPartnerEvent {
  eventId: string;
  projectId: string;
  event: string;
  resourceId: string | null;
  createdAt: string;
  body: string;
}

export interface PartnerEventFilter {
  type?: string;
  resourceId?: string;
  createdAfter?: string;
  createdBefore?: string;
}

/** Project time in SQL: the wall clock plus the project's sandbox offset. */
const PROJECT_NOW = (alias: string) =>
  `clock_timestamp() + make_interval(secs => COALESCE(${alias}.offset_ms, 0) / 1000.0)`;

const COLUMNS = 'e.position, e.event_id, e.project_id, e.event, e.resource_id, e.created_at, e.body';

/** The events the project may see: all but the named-only ones no live endpoint of the project names ($2: those names). */
const VISIBLE = `(e.event <> ALL($2::text[]) OR EXISTS (
  SELECT 1 FROM webhooks.endpoints w WHERE w.project_id = e.project_id AND w.deleted_at IS NULL AND w.subscriptions @> jsonb_build_array(e.event)))`;

@Injectable()
export class PartnerEvents {
  constructor(private readonly uow: UnitOfWork) {}

  /**
   * Once per event: a repeat (the transport hands an event over again) changes nothing. Written with
   * the transaction's next statement (UnitOfWork.defer): nothing waits on its answer, and a conflict
   * does nothing rather than fail.
   */
  async record(event: NewPartnerEvent): Promise<void> {
    await this.uow.defer(
      `INSERT INTO webhooks.partner_events (event_id, project_id, event, resource_id, created_at, body) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (event_id) DO NOTHING`,
      [event.eventId, event.projectId, event.event, event.resourceId, event.createdAt, event.body],
    );
  }

  /**
   * Newest first (by the order they were recorded), after the event `before` when given; one more
   * than `limit`, so the caller knows whether there are more. Only what the retention window keeps.
   */
  async list(
    projectId: string,
    namedOnly: readonly string[],
    filter: PartnerEventFilter,
    before: string | undefined,
    limit: number,
    notBefore: string,
  ): Promise<PartnerEventRow[]> {
    return this.uow.query<PartnerEventRow>(
      `SELECT ${COLUMNS} FROM webhooks.partner_events e
        WHERE e.project_id = $1 AND ${VISIBLE} AND e.created_at >= $3
          AND ($4::text IS NULL OR e.position < (SELECT c.position FROM webhooks.partner_events c WHERE c.event_id = $4 AND c.project_id = $1))
          AND ($5::text IS NULL OR e.event = $5)
          AND ($6::text IS NULL OR e.resource_id = $6)
          AND ($7::timestamptz IS NULL OR e.created_at >= $7)
          AND ($8::timestamptz IS NULL OR e.created_at < $8)
        ORDER BY e.position DESC LIMIT $9`,
      [
        projectId,
        namedOnly,
        notBefore,
        before ?? null,
        filter.type ?? null,
        filter.resourceId ?? null,
        filter.createdAfter ?? null,
        filter.createdBefore ?? null,
        limit + 1,
      ],
    );
  }

  /** These events of the project that it may see and the window keeps, in the order they were recorded. */
  async find(
    projectId: string,
    namedOnly: readonly string[],
    eventIds: readonly string[],
    notBefore: string,
  ): Promise<PartnerEventRow[]> {
    return this.uow.query<PartnerEventRow>(
      `SELECT ${COLUMNS} FROM webhooks.partner_events e
        WHERE e.project_id = $1 AND ${VISIBLE} AND e.created_at >= $3 AND e.event_id = ANY($4::text[])
        ORDER BY e.position`,
      [projectId, namedOnly, notBefore, eventIds],
    );
  }

  /** Deletes the events older than the retention window, on each project's clock; returns how many went. */
  async purge(retentionDays: number, batch = 1000): Promise<number> {
    const rows = await this.uow.query(
      `DELETE FROM webhooks.partner_events WHERE position IN (
         SELECT e.position FROM webhooks.partner_events e LEFT JOIN platform.sandbox_clocks c ON c.project_id = e.project_id
          WHERE e.created_at < ${PROJECT_NOW('c')} - make_interval(days => $1)
          LIMIT $2)
       RETURNING position`,
      [retentionDays, batch],
    );
    return rows.length;
  }
}
