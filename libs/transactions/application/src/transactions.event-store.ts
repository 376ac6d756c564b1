import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The transactions service's own events log (schema transactions). */
@Injectable()
export class TransactionsEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'transactions');
  }
}
