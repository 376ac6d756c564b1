import { Module } from '@nestjs/common';
import {
  LocalDeliveryQueue,
  PartnerEventsService,
  WebhookDeliveriesService,
  WebhookDeliveryWorker,
  WebhookDeliveryWriter,
  WebhookEndpointCommands,
  WebhookEndpointsService,
  WebhookFanOut,
  WebhooksEventStore,
} from '@mm/webhooks/application';
import {
  AnnouncementOrder,
  PartnerEvents,
  WebhookDeliveries,
  WebhookEndpointsCache,
  WebhookQueueMetrics,
  WebhooksReadModels,
  WebhookSigningKeys,
} from '@mm/webhooks/infrastructure';
import { WebhooksAdminController } from './webhooks-admin.controller';
import { EventsController, WebhooksController, WebhooksEventsController } from './webhooks.controller';

@Module({
  controllers: [WebhooksController, EventsController, WebhooksEventsController, WebhooksAdminController],
  providers: [
    AnnouncementOrder,
    WebhooksEventStore,
    WebhookEndpointsCache,
    WebhooksReadModels,
    WebhookSigningKeys,
    WebhookDeliveries,
    PartnerEvents,
    WebhookEndpointCommands,
    WebhookEndpointsService,
    WebhookFanOut,
    PartnerEventsService,
    WebhookDeliveriesService,
    LocalDeliveryQueue,
    WebhookDeliveryWriter,
    WebhookDeliveryWorker,
    WebhookQueueMetrics,
  ],
})
export class WebhooksModule {}
