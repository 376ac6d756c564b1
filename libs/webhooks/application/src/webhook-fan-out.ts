// Fan-out (spec: Events; issue 9 item 2): every `partnerEvent.published` of any
// service's log becomes one delivery per subscribed endpoint of its project,
// created once however often the event is handed over (the row is unique per
// endpoint and event). Enabled endpoints get it queued, suspended ones recorded
// as skipped; disabled and deleted endpoints get no row. The fan-out knows the
// catalogue, not the resources: a resource added later needs nothing here, but
// for the spec's ties across resources (announcement-order.ts): an event that
// must follow another's announcement waits, held, until that has fanned out.
// Every partner event is also recorded once for the Events API (ADR 0034), in
// the same transaction, whether or not an endpoint takes it: its envelope as the
// deliveries carry it, with the event's evt_ as its id.
import { Injectable } from '@nestjs/common';
import { COMPLIANCE_REVIEW_EVENTS, webhookEnvelope, type EventPayloads } from '@mm/contracts';
import { announcementOf, awaitedAnnouncement } from '@mm/webhooks/domain';
import {
  AnnouncementOrder,
  PartnerEvents,
  WebhookDeliveries,
  type DeliveryRow,
  type NewDelivery,
} from '@mm/webhooks/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import type { RecordedEvent } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { WebhookDeliveryWriter } from './webhook-delivery-writer';

export interface FanOutInput {
  projectId: string;
  eventId: string;
  event: string;
  resourceId: string | null;
  sequence?: number;
  previousStatus?: string | null;
  changedFields?: string[];
  occurredAt: string;
  data: Record<string, unknown>;
  /** Only this endpoint (POST /webhooks/{id}/test); else every subscribed one. */
  webhookId?: string;
}

@Injectable()
export class WebhookFanOut {
  constructor(
    private readonly deliveries: WebhookDeliveries,
    private readonly writer: WebhookDeliveryWriter,
    private readonly events: PartnerEvents,
    private readonly order: AnnouncementOrder,
    private readonly clock: ProjectClock,
  ) {}

  /** In the transport's transaction: the rows and the checkpoint commit together. */
  async onPartnerEvent(
    event: RecordedEvent<'partnerEvent.published', EventPayloads['partnerEvent.published']>,
  ): Promise<void> {
    const p = event.data;
    const input: FanOutInput = {
      projectId: p.projectId,
      eventId: event.eventId,
      event: p.event,
      resourceId: p.resourceId,
      sequence: p.sequence,
      previousStatus: p.previousStatus,
      changedFields: p.changedFields,
      occurredAt: p.occurredAt,
      data: p.data,
    };
    const awaited = awaitedAnnouncement(input.event, input.data);
    if (awaited) {
      await this.order.lock(input.projectId, awaited);
      if (!(await this.order.announced(input.projectId, awaited))) {
        await this.order.hold(input.projectId, awaited, input);
        return;
      }
    }
    const announces = announcementOf(input.event, input.resourceId);
    if (announces) await this.order.lock(input.projectId, announces);
    await this.fanOut(input);
    if (announces) {
      for (const held of await this.order.announce<FanOutInput>(input.projectId, announces)) await this.fanOut(held);
    }
  }

  /**
   * Creates the deliveries of one event; returns them (none for a repeat). A partner event (not a
   * test send, which has `webhookId`) is recorded for the Events API too, once.
   */
  async fanOut(input: FanOutInput): Promise<DeliveryRow[]> {
    const createdAt = (await this.clock.now(input.projectId)).toISOString();
    const envelope = (deliveryId: string) =>
      JSON.stringify(
        webhookEnvelope({
          deliveryId,
          event: input.event,
          eventId: input.eventId,
          sequence: input.sequence,
          previousStatus: input.previousStatus,
          changedFields: input.changedFields,
          createdAt,
          occurredAt: input.occurredAt,
          data: input.data,
        }),
      );
    const common = {
      projectId: input.projectId,
      eventId: input.eventId,
      event: input.event,
      resourceId: input.resourceId,
      test: input.event === 'webhook.test',
      createdAt,
    };
    if (input.webhookId) {
      // A test send: a new evt_ to one enabled endpoint, so its row cannot be there yet; it goes with the commit.
      const id = newId('webhookDelivery');
      return [
        await this.writer.insertNew({ id, webhookId: input.webhookId, status: 'queued', body: envelope(id) }, common),
      ];
    }
    await this.events.record({
      eventId: input.eventId,
      projectId: input.projectId,
      event: input.event,
      resourceId: input.resourceId,
      createdAt,
      body: envelope(input.eventId),
    });
    const endpoints = await this.deliveries.subscribedEndpoints(
      input.projectId,
      input.event,
      !COMPLIANCE_REVIEW_EVENTS.includes(input.event),
    );
    const rows: NewDelivery[] = endpoints.map((endpoint) => {
      const id = newId('webhookDelivery');
      return {
        id,
        webhookId: endpoint.id,
        status: endpoint.status === 'enabled' ? 'queued' : 'skipped',
        body: envelope(id),
      };
    });
    return this.writer.insert(rows, common);
  }
}
