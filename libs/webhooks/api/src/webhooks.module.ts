import { Module } from '@nestjs/common';
import { WebhookEndpointsService, WebhooksEventStore } from '@mm/webhooks/application';
import { WebhooksReadModels, WebhookSigningKeys } from '@mm/webhooks/infrastructure';
import { WebhooksController } from './webhooks.controllers';

@Module({
  controllers: [WebhooksController],
  providers: [WebhooksEventStore, WebhooksReadModels, WebhookSigningKeys, WebhookEndpointsService],
})
export class WebhooksModule {}
