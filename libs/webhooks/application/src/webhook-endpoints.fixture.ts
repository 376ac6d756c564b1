// For integration tests: one process's WebhookEndpointsService, built on its own
// connections and copy of the endpoints, as the Nest module would wire it.
import { ProjectClock, TimerService } from '@mm/platform/clock';
import type { PlatformConfig } from '@mm/platform/config';
import type { UnitOfWork } from '@mm/platform/database';
import {
  WebhooksReadModels,
  WebhookSigningKeys,
  type WebhookDeliveries,
  type WebhookEndpointsCache,
} from '@mm/webhooks/infrastructure';
import { WebhookEndpointCommands } from './webhook-endpoint.commands';
import { WebhookEndpointsService } from './webhook-endpoints.service';
import { WebhooksEventStore } from './webhooks.event-store';

export function endpointsServiceOf(
  uow: UnitOfWork,
  cache: WebhookEndpointsCache,
  deliveries: WebhookDeliveries,
  config: PlatformConfig,
): WebhookEndpointsService {
  const clock = new ProjectClock(uow);
  const readModels = new WebhooksReadModels(uow, cache);
  const commands = new WebhookEndpointCommands(
    new WebhooksEventStore(uow),
    readModels,
    deliveries,
    new TimerService(uow, clock),
  );
  return new WebhookEndpointsService(uow, commands, readModels, new WebhookSigningKeys(uow, config), clock, config);
}
