import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The webhooks service's own events log (schema webhooks). */
@Injectable()
export class WebhooksEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'webhooks');
  }
}
