// The Events API (ADR 0034): the partner events of a project, as the webhooks
// delivered them, for the delivery retention window of the project's clock; a
// partner whose endpoint missed some lists them and asks for them again
// (WebhookDeliveriesService.resend). Compliance review events are seen only
// while an endpoint of the project names them, as only such endpoints get them.
import { Injectable } from '@nestjs/common';
import { ApiError, COMPLIANCE_REVIEW_EVENTS, webhookEnvelope, type WebhookEnvelope } from '@mm/contracts';
import { PartnerEvents, type PartnerEventFilter, type PartnerEventRow } from '@mm/webhooks/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { isId } from '@mm/platform/ids';

/** The id as a partner wrote it, cut short enough to quote in a cause. */
const shown = (id: string) => JSON.stringify(id.length > 64 ? `${id.slice(0, 64)}…` : id);

@Injectable()
export class PartnerEventsService {
  constructor(
    private readonly events: PartnerEvents,
    private readonly clock: ProjectClock,
    private readonly config: PlatformConfig,
  ) {}

  async list(
    projectId: string,
    filter: PartnerEventFilter,
    before: string | undefined,
    limit: number,
  ): Promise<PartnerEventRow[]> {
    const after = filter.createdAfter === undefined ? undefined : instant('createdAfter', filter.createdAfter);
    const until = filter.createdBefore === undefined ? undefined : instant('createdBefore', filter.createdBefore);
    if (after && until && after >= until)
      throw new ApiError('InvalidRequest', 'createdAfter: must be before createdBefore');
    const window = { ...filter, createdAfter: after?.toISOString(), createdBefore: until?.toISOString() };
    return this.events.list(
      projectId,
      COMPLIANCE_REVIEW_EVENTS,
      window,
      before,
      limit,
      await this.retainedFrom(projectId),
    );
  }

  async get(projectId: string, eventId: string): Promise<PartnerEventRow> {
    if (!isId('event', eventId)) throw new ApiError('InvalidEventID', `${shown(eventId)} is not an event id (evt_…)`);
    const [row] = await this.events.find(
      projectId,
      COMPLIANCE_REVIEW_EVENTS,
      [eventId],
      await this.retainedFrom(projectId),
    );
    if (!row)
      throw new ApiError(
        'EventNotFound',
        `no event ${eventId} in this project within the last ${this.config.MM_WEBHOOK_RETENTION_DAYS} days`,
      );
    return row;
  }

  /**
   * Every one of these events (`field` names them in a refusal), each once, in the order they were
   * recorded; refuses a malformed id, and names every id the project has no such event for.
   */
  async require(projectId: string, field: string, eventIds: readonly string[]): Promise<PartnerEventRow[]> {
    const malformed = eventIds.find((id) => !isId('event', id));
    if (malformed !== undefined)
      throw new ApiError('InvalidEventID', `${field}: ${shown(malformed)} is not an event id (evt_…)`);
    const wanted = [...new Set(eventIds)];
    const rows = await this.events.find(
      projectId,
      COMPLIANCE_REVIEW_EVENTS,
      wanted,
      await this.retainedFrom(projectId),
    );
    const missing = wanted.filter((id) => !rows.some((r) => r.event_id === id));
    if (missing.length > 0) {
      throw new ApiError(
        'EventNotFound',
        `${field}: no event ${missing.join(', ')} in this project within the last ${this.config.MM_WEBHOOK_RETENTION_DAYS} days (GET /events lists them); nothing was sent`,
      );
    }
    return rows;
  }

  /** The oldest creation time the retention window still shows, on the project's clock. */
  private async retainedFrom(projectId: string): Promise<string> {
    const now = await this.clock.now(projectId);
    return new Date(now.getTime() - this.config.MM_WEBHOOK_RETENTION_DAYS * 86_400_000).toISOString();
  }
}

/** The envelope of a recorded event as a new delivery of it carries it: its own whd_ id and creation time. */
export function redeliveredBody(row: PartnerEventRow, deliveryId: string, createdAt: string): string {
  const recorded = JSON.parse(row.body) as WebhookEnvelope;
  return JSON.stringify(
    webhookEnvelope({
      deliveryId,
      event: row.event,
      eventId: row.event_id,
      sequence: recorded.sequence,
      previousStatus: recorded.previousStatus,
      changedFields: recorded.changedFields,
      createdAt,
      occurredAt: recorded.occurredAt,
      data: recorded.data,
    }),
  );
}

/** A filter's timestamp, which the query has checked is ISO 8601; one outside what a date can hold is refused naming its field. */
function instant(field: string, value: string): Date {
  const at = new Date(value);
  if (Number.isNaN(at.getTime()))
    throw new ApiError(
      'InvalidRequest',
      `${field}: must be an ISO 8601 timestamp, for example 2026-01-31T12:00:00.000Z`,
    );
  return at;
}
