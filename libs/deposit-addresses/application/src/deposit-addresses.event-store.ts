import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { EventStore } from '@mm/platform/event-store';

/** The deposit-addresses service's own events log (schema deposit_addresses). */
@Injectable()
export class DepositAddressesEventStore extends EventStore {
  constructor(uow: UnitOfWork) {
    super(uow, 'deposit_addresses');
  }
}
