import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The accounts service's own events log (schema accounts). */
@Injectable()
export class AccountsEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'accounts');
  }
}
