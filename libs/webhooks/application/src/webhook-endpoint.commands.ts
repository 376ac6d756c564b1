// The webhook endpoint aggregate's command path (ARCHITECTURE: Inside one service): each new event projected
// into the endpoint read model as it is appended (the row a use case answers with); enabling an endpoint also
// resets its down clock and drops its pending down notice (spec: Webhook endpoint and delivery; States/Webhook).
import { Injectable } from '@nestjs/common';
import {
  webhookEndpointDecider,
  webhookEndpointStreamId,
  type WebhookEndpointCommand,
  type WebhookEndpointEvent,
  type WebhookEndpointState,
} from '@mm/webhooks/domain';
import { WebhookDeliveries, WebhooksReadModels, type EndpointRow } from '@mm/webhooks/infrastructure';
import { TimerService } from '@mm/platform/clock';
import { CommandHandler, type RecordedEvent } from '@mm/platform/event-store';
import { WebhooksEventStore } from './webhooks.event-store';

/** The timer of an endpoint's down notice (the delivery worker's). */
export const DOWN_NOTICE_TIMER = 'webhook.downNotice';

@Injectable()
export class WebhookEndpointCommands extends CommandHandler<
  WebhookEndpointCommand,
  WebhookEndpointEvent,
  WebhookEndpointState,
  EndpointRow
> {
  constructor(
    store: WebhooksEventStore,
    readModels: WebhooksReadModels,
    deliveries: WebhookDeliveries,
    timers: TimerService,
  ) {
    super(store, {
      decider: webhookEndpointDecider,
      streamId: webhookEndpointStreamId,
      project: (event) => projectEndpoint(readModels, deliveries, timers, event),
    });
  }
}

/** The endpoint row as the event left it (none for a deletion: reads no longer show it). */
async function projectEndpoint(
  readModels: WebhooksReadModels,
  deliveries: WebhookDeliveries,
  timers: TimerService,
  event: RecordedEvent & WebhookEndpointEvent,
): Promise<EndpointRow | undefined> {
  const version = event.streamVersion;
  switch (event.type) {
    case 'webhookEndpoint.created': {
      const d = event.data;
      return readModels.insertEndpoint({
        id: d.webhookId,
        project_id: d.projectId,
        url: d.url,
        subscriptions: d.subscriptions,
        timeout_ms: d.timeoutMs,
        notify_threshold_secs: d.notifyThresholdSecs,
        description: d.description,
        version,
        at: d.createdAt,
      });
    }
    case 'webhookEndpoint.updated':
      return readModels.updateEndpoint(
        event.data.projectId,
        event.data.webhookId,
        event.data.changes,
        version,
        event.data.at,
      );
    case 'webhookEndpoint.enabled':
      // Enabling resets the down clock; the pending down notice goes with it.
      await deliveries.resetHealth(event.data.webhookId);
      await timers.cancel(DOWN_NOTICE_TIMER, event.data.webhookId);
      return readModels.setEndpointStatus(
        event.data.projectId,
        event.data.webhookId,
        'enabled',
        version,
        event.data.at,
      );
    case 'webhookEndpoint.suspended':
      return readModels.setEndpointStatus(
        event.data.projectId,
        event.data.webhookId,
        'suspended',
        version,
        event.data.at,
      );
    case 'webhookEndpoint.downNotified':
      return readModels.touchEndpoint(event.data.projectId, event.data.webhookId, version, event.data.at);
    case 'webhookEndpoint.disabled':
      return readModels.setEndpointStatus(
        event.data.projectId,
        event.data.webhookId,
        'disabled',
        version,
        event.data.at,
      );
    case 'webhookEndpoint.signingKeyRotated':
      return readModels.touchEndpoint(event.data.projectId, event.data.webhookId, version, event.data.at);
    case 'webhookEndpoint.deleted':
      await readModels.markEndpointDeleted(event.data.projectId, event.data.webhookId, version, event.data.at);
      return undefined;
  }
}
