// Delivery history, replay and test sends (spec: Endpoints / Webhooks). History
// stays readable for the retention window after an endpoint is deleted, so whd_
// links keep resolving; retry, test and resend need an enabled endpoint.
import { Injectable } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { subscribesTo, TEST_EVENT } from '@mm/webhooks/domain';
import {
  WebhookDeliveries,
  type AttemptRow,
  type DeliveryFilter,
  type DeliveryRow,
  type DeliveryStatus,
  type EndpointRow,
} from '@mm/webhooks/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { isId, newId } from '@mm/platform/ids';
import { PartnerEventsService, redeliveredBody } from './partner-events.service';
import { WebhookDeliveryWriter } from './webhook-delivery-writer';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhookFanOut } from './webhook-fan-out';

export type RetrySelection =
  { deliveryIds: string[] } | { status: DeliveryStatus; createdAfter?: string; createdBefore?: string };

@Injectable()
export class WebhookDeliveriesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly deliveries: WebhookDeliveries,
    private readonly writer: WebhookDeliveryWriter,
    private readonly endpoints: WebhookEndpointsService,
    private readonly fanOut: WebhookFanOut,
    private readonly events: PartnerEventsService,
    private readonly clock: ProjectClock,
    private readonly config: PlatformConfig,
  ) {}

  /** The endpoint, deleted ones included: their history stays readable for the retention window. */
  endpointWithHistory(projectId: string, webhookId: string): Promise<EndpointRow> {
    return this.endpoints.require(projectId, webhookId, { includeDeleted: true });
  }

  async list(
    projectId: string,
    webhookId: string,
    filter: DeliveryFilter,
    before: string | undefined,
    limit: number,
  ): Promise<DeliveryRow[]> {
    await this.endpointWithHistory(projectId, webhookId);
    return this.deliveries.list(webhookId, filter, before, limit, await this.retainedFrom(projectId));
  }

  async get(
    projectId: string,
    webhookId: string,
    deliveryId: string,
  ): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }> {
    await this.endpointWithHistory(projectId, webhookId);
    if (!isId('webhookDelivery', deliveryId))
      throw new ApiError(
        'InvalidWebhookDeliveryID',
        `"${deliveryId.slice(0, 64)}" is not a webhook delivery id (whd_…)`,
      );
    const detail = await this.deliveries.detail(webhookId, deliveryId, await this.retainedFrom(projectId));
    if (!detail) throw new ApiError('WebhookDeliveryNotFound');
    return detail;
  }

  /** Requeues now with the attempt count reset; returns the ids requeued. */
  async retry(projectId: string, webhookId: string, selection: RetrySelection): Promise<string[]> {
    return this.uow.run(async () => {
      const endpoint = await this.endpoints.requireEnabled(projectId, webhookId);
      const at = (await this.clock.now(projectId)).toISOString();
      if ('deliveryIds' in selection) {
        const malformed = selection.deliveryIds.find((id) => !isId('webhookDelivery', id));
        if (malformed !== undefined)
          throw new ApiError(
            'InvalidWebhookDeliveryID',
            `deliveryIds: "${malformed.slice(0, 64)}" is not a webhook delivery id (whd_…)`,
          );
      } else if (
        selection.createdAfter &&
        selection.createdBefore &&
        new Date(selection.createdAfter) >= new Date(selection.createdBefore)
      ) {
        throw new ApiError('InvalidDeliveryRetry', 'createdAfter must be before createdBefore');
      }
      return this.writer.requeue(
        endpoint.id,
        'deliveryIds' in selection ? { ids: [...new Set(selection.deliveryIds)] } : selection,
        at,
        this.config.MM_WEBHOOK_RETENTION_DAYS,
      );
    });
  }

  /**
   * New deliveries of these events to this endpoint (ADR 0034), queued now, in the order the events
   * were recorded, each with a new whd_ id and the event's evt_. Events the endpoint does not
   * subscribe to now are skipped and named, so that a partner can send it every event it missed
   * without knowing the subscription rules; an id the project has no event for refuses the whole request.
   */
  async resend(
    projectId: string,
    webhookId: string,
    eventIds: string[],
  ): Promise<{ deliveries: DeliveryRow[]; notSubscribed: string[] }> {
    return this.uow.run(async () => {
      const endpoint = await this.endpoints.requireEnabled(projectId, webhookId);
      const events = await this.events.require(projectId, 'eventIds', eventIds);
      const wanted = events.filter((e) => subscribesTo(endpoint.subscriptions, e.event));
      const at = (await this.clock.now(projectId)).toISOString();
      const rows = wanted.map((e) => {
        const id = newId('webhookDelivery');
        return { id, eventId: e.event_id, event: e.event, resourceId: e.resource_id, body: redeliveredBody(e, id, at) };
      });
      return {
        deliveries: await this.writer.insertRequested(projectId, endpoint.id, rows, at),
        notSubscribed: events.filter((e) => !wanted.includes(e)).map((e) => e.event_id),
      };
    });
  }

  /** Sends `webhook.test` to this endpoint whatever it subscribes to; data is the endpoint as GET shows it. */
  async test(
    projectId: string,
    webhookId: string,
    endpointShape: (row: EndpointRow) => Record<string, unknown>,
  ): Promise<DeliveryRow> {
    return this.uow.run(async () => {
      const endpoint = await this.endpoints.requireEnabled(projectId, webhookId);
      const [delivery] = await this.fanOut.fanOut({
        projectId,
        eventId: newId('event'),
        event: TEST_EVENT,
        resourceId: endpoint.id,
        occurredAt: (await this.clock.now(projectId)).toISOString(),
        data: endpointShape(endpoint),
        webhookId: endpoint.id,
      });
      // The row as inserted: what a read of it would answer.
      return delivery;
    });
  }

  /** The oldest creation time the retention window still shows, on the project's clock. */
  private async retainedFrom(projectId: string): Promise<string> {
    const now = await this.clock.now(projectId);
    return new Date(now.getTime() - this.config.MM_WEBHOOK_RETENTION_DAYS * 86_400_000).toISOString();
  }
}
