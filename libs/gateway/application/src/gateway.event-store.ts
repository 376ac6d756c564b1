import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The gateway's own events log (schema gateway). */
@Injectable()
export class GatewayEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'gateway');
  }
}
