import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The virtual-accounts service's own events log (schema virtual_accounts). */
@Injectable()
export class VirtualAccountsEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'virtual_accounts');
  }
}
