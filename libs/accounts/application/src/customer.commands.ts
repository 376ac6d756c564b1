// The customer aggregate's command path (ARCHITECTURE: Inside one service): each new event projected into the
// customer read model as it is appended (the row a use case answers with), then the partner events with the
// customer as a read shows it (spec: Events / Catalog: endorsements; ADR 0018).
import { Injectable } from '@nestjs/common';
import {
  customerDecider,
  customerStreamId,
  type CustomerCommand,
  type CustomerEvent,
  type CustomerState,
} from '@mm/accounts/domain';
import { AccountsReadModels, type CustomerRow } from '@mm/accounts/infrastructure';
import { CommandHandler, type ReadModelDefinition, type RecordedEvent } from '@mm/platform/event-store';
import { AccountsEventStore } from './accounts.event-store';
import { AccountsPartnerEvents } from './accounts-partner-events';

@Injectable()
export class CustomerCommands extends CommandHandler<CustomerCommand, CustomerEvent, CustomerState, CustomerRow> {
  /** What a rebuild from the log writes again (docs/kubernetes.md, Rebuilding a read model). */
  readonly readModels: ReadModelDefinition[];

  constructor(store: AccountsEventStore, readModels: AccountsReadModels, partnerEvents: AccountsPartnerEvents) {
    super(store, {
      decider: customerDecider,
      streamId: customerStreamId,
      project: (event) => projectCustomer(readModels, event),
      then: [({ events }) => partnerEvents.publish(events)],
    });
    this.readModels = [this.readModel({ name: 'customers', table: 'accounts.customers', inline: true })];
  }
}

/** The customer row as the event left it. */
function projectCustomer(
  readModels: AccountsReadModels,
  event: RecordedEvent & CustomerEvent,
): Promise<CustomerRow | undefined> {
  switch (event.type) {
    case 'customer.created': {
      const d = event.data;
      return readModels.insertCustomer({
        id: d.customerId,
        project_id: d.projectId,
        type: d.type,
        first_name: d.firstName,
        last_name: d.lastName,
        email: d.email,
        endorsements: [],
        version: event.streamVersion,
        at: d.createdAt,
      });
    }
    case 'endorsement.requested':
      return readModels.setEndorsement(
        event.data.projectId,
        event.data.customerId,
        event.data.name,
        'pending',
        event.streamVersion,
        event.data.requestedAt,
      );
    case 'endorsement.approved':
      return readModels.setEndorsement(
        event.data.projectId,
        event.data.customerId,
        event.data.name,
        'active',
        event.streamVersion,
        event.data.approvedAt,
      );
    case 'endorsement.rejected':
      return readModels.setEndorsement(
        event.data.projectId,
        event.data.customerId,
        event.data.name,
        'rejected',
        event.streamVersion,
        event.data.rejectedAt,
      );
  }
}
