import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The quoting service's own events log (schema quoting). */
@Injectable()
export class QuotingEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'quoting');
  }
}
