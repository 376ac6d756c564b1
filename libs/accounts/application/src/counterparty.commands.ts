// The counterparty aggregate's command path (ARCHITECTURE: Inside one service): each new event projected into
// the counterparty read model (the row a use case answers with), then the partner events with the counterparty
// as a read shows it, deleted ones too (spec: Counterparty; Events / Catalog).
import { Injectable } from '@nestjs/common';
import {
  counterpartyDecider,
  counterpartyStreamId,
  type CounterpartyCommand,
  type CounterpartyEvent,
  type CounterpartyState,
} from '@mm/accounts/domain';
import { ExternalAccountsReadModels, type CounterpartyRow } from '@mm/accounts/infrastructure';
import { CommandHandler, type RecordedEvent } from '@mm/platform/event-store';
import { AccountsEventStore } from './accounts.event-store';
import { AccountsPartnerEvents } from './accounts-partner-events';

@Injectable()
export class CounterpartyCommands extends CommandHandler<
  CounterpartyCommand,
  CounterpartyEvent,
  CounterpartyState,
  CounterpartyRow
> {
  constructor(store: AccountsEventStore, readModels: ExternalAccountsReadModels, partnerEvents: AccountsPartnerEvents) {
    super(store, {
      decider: counterpartyDecider,
      streamId: counterpartyStreamId,
      project: (event) => projectCounterparty(readModels, event),
      then: [({ events }) => partnerEvents.publish(events)],
    });
  }
}

/** The counterparty row as the event left it (none for a deletion: reads no longer show it). */
async function projectCounterparty(
  readModels: ExternalAccountsReadModels,
  event: RecordedEvent & CounterpartyEvent,
): Promise<CounterpartyRow | undefined> {
  const version = event.streamVersion;
  switch (event.type) {
    case 'counterparty.created': {
      const d = event.data;
      return readModels.insertCounterparty({
        id: d.counterpartyId,
        project_id: d.projectId,
        customer_id: d.customerId,
        entity_type: d.entityType,
        first_name: d.firstName,
        last_name: d.lastName,
        business_name: d.businessName,
        name: d.name,
        email: d.email,
        phone: d.phone,
        tax_id_provided: d.taxIdProvided,
        address: d.address,
        version,
        at: d.createdAt,
      });
    }
    case 'counterparty.updated': {
      const d = event.data;
      return readModels.updateCounterparty(d.projectId, d.counterpartyId, d.changes, d.name, version, d.at);
    }
    case 'counterparty.deleted':
      await readModels.markCounterpartyDeleted(event.data.projectId, event.data.counterpartyId, version, event.data.at);
      return undefined;
  }
}
