import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The cash-in service's own events log (schema cash_in). */
@Injectable()
export class CashInEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'cash_in');
  }
}
