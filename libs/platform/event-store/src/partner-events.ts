// Partner-visible events (spec: Events / Catalog) leave a service as
// `partnerEvent.published` in its own log, appended in the transaction of the
// domain event that caused them, after the inline projection: the payload is the
// resource as a read shows it at that moment (ADR 0018). The webhooks service
// fans them out without knowing any resource; a resource that lands later only
// maps its domain events to catalogue names (contracts PARTNER_EVENTS).
import { partnerEventsFor, STATUS_CHANGED_EVENTS, type PartnerEventPublished } from '@mm/contracts';
import type { EventStore, NewEvent, RecordedEvent } from './event-store';

export interface PartnerResource {
  resourceId: string;
  /** The resource in its partner-facing shape, as GET answers it now. */
  data: Record<string, unknown>;
  /** For `*.statusChanged`: the status before; by default the domain event's own `previousStatus`. */
  previousStatus?: string | null;
  /** The catalogue names to publish, when they depend on the resource (a review event named by corridor). */
  events?: readonly string[];
  /** For `*.updated`: the fields of `data` the change changed, when the domain event does not name them itself. */
  changedFields?: readonly string[];
}

/** Reads the resource a domain event changed, in the command's transaction (after its projection). */
export type PartnerResourceView = (event: RecordedEvent) => Promise<PartnerResource | undefined>;

export const partnerStreamId = (resourceId: string) => `partner-${resourceId}`;

/** Appends the partner events of these domain events, if any; joins the caller's transaction. */
export async function publishPartnerEvents(
  store: EventStore,
  events: readonly RecordedEvent[],
  view: PartnerResourceView,
): Promise<void> {
  // One append per resource stream, however many of its events one command published.
  const streams = new Map<string, NewEvent[]>();
  for (const event of events) {
    if (partnerEventsFor(event.type).length === 0) continue;
    const resource = await view(event);
    if (!resource) continue;
    const names = resource.events ?? partnerEventsFor(event.type);
    if (names.length === 0) continue;
    const domain = event.data as { previousStatus?: unknown; projectId?: string; changedFields?: unknown };
    const projectId = event.metadata.projectId ?? domain.projectId;
    if (!projectId) throw new Error(`partner event of ${event.type} ${event.eventId} has no project`);
    const occurredAt =
      typeof resource.data.updatedAt === 'string'
        ? resource.data.updatedAt
        : typeof resource.data.createdAt === 'string'
          ? resource.data.createdAt
          : event.recordedAt;
    const previousStatus =
      resource.previousStatus !== undefined
        ? resource.previousStatus
        : typeof domain.previousStatus === 'string'
          ? domain.previousStatus
          : null;
    // Every `*.updated` envelope names what changed (spec: Events / Catalog): as the domain event says, or the resource.
    const changedFields = Array.isArray(domain.changedFields)
      ? domain.changedFields.map(String)
      : resource.changedFields
        ? [...resource.changedFields]
        : undefined;
    const stream = partnerStreamId(resource.resourceId);
    const pending = streams.get(stream) ?? [];
    streams.set(stream, pending);
    for (const name of names) {
      const data: PartnerEventPublished = {
        projectId,
        event: name,
        resourceId: resource.resourceId,
        sequence: event.streamVersion,
        ...(STATUS_CHANGED_EVENTS.includes(name) ? { previousStatus } : {}),
        ...(name.endsWith('.updated') && changedFields ? { changedFields } : {}),
        occurredAt,
        data: resource.data,
      };
      pending.push({
        type: 'partnerEvent.published',
        data,
        metadata: { ...event.metadata, causationId: event.eventId },
      });
    }
  }
  // Nobody reads them back in this transaction: they travel with its next statement.
  for (const [stream, pending] of streams) await store.appendDeferred(stream, pending);
}
