import { Module } from '@nestjs/common';
import { WebhookDeliveriesService, WebhookDeliveryWorker, WebhookEndpointsService, WebhookFanOut, WebhooksEventStore } from '@mm/webhooks/application';
import { WebhookDeliveries, WebhooksReadModels, WebhookSigningKeys } from '@mm/webhooks/infrastructure';
import { WebhooksController, WebhooksEventsController } from './webhooks.controllers';

@Module({
  controllers: [WebhooksController, WebhooksEventsController],
  providers: [WebhooksEventStore, WebhooksReadModels, WebhookSigningKeys, WebhookDeliveries, WebhookEndpointsService, WebhookFanOut, WebhookDeliveriesService, WebhookDeliveryWorker],
})
export class WebhooksModule {}
