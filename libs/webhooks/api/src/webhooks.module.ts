import { Module } from '@nestjs/common';
import { WebhookDeliveriesService, WebhookDeliveryWorker, WebhookEndpointsService, WebhookFanOut, WebhooksEventStore } from '@mm/webhooks/application';
import { AnnouncementOrder, WebhookDeliveries, WebhookEndpointsCache, WebhooksReadModels, WebhookSigningKeys } from '@mm/webhooks/infrastructure';
import { WebhooksController, WebhooksEventsController } from './webhooks.controllers';

@Module({
  controllers: [WebhooksController, WebhooksEventsController],
  providers: [AnnouncementOrder, WebhooksEventStore, WebhookEndpointsCache, WebhooksReadModels, WebhookSigningKeys, WebhookDeliveries, WebhookEndpointsService, WebhookFanOut, WebhookDeliveriesService, WebhookDeliveryWorker],
})
export class WebhooksModule {}
