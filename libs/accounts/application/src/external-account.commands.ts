// The external account aggregate's command path (ARCHITECTURE: Inside one service): each new event projected
// into the account read model (the row a use case answers with); a registration arms its timers on the project
// clock, the provisioning deadline and, for a card, the end of its expiry month (spec: External account;
// States / External account); then the partner events with the account as a read shows it (Events, tie 2).
import { Injectable } from '@nestjs/common';
import {
  cardExpiresAt,
  externalAccountDecider,
  externalAccountStreamId,
  type ExternalAccountCommand,
  type ExternalAccountEvent,
  type ExternalAccountState,
} from '@mm/accounts/domain';
import { CARD_EXPIRY_TIMER, ExternalAccountsReadModels, type ExternalAccountRow } from '@mm/accounts/infrastructure';
import { TimerService } from '@mm/platform/clock';
import { CommandHandler, type AfterDecision, type RecordedEvent } from '@mm/platform/event-store';
import { AccountsEventStore } from './accounts.event-store';
import { AccountsPartnerEvents } from './accounts-partner-events';

/** The durable timer that fails a registration the provider never confirmed (key: the account id). */
export const PROVISIONING_TIMEOUT_TIMER = 'externalAccount.provisioningTimeout';
export { CARD_EXPIRY_TIMER };

type After = AfterDecision<ExternalAccountEvent, ExternalAccountState, ExternalAccountRow>;

@Injectable()
export class ExternalAccountCommands extends CommandHandler<
  ExternalAccountCommand,
  ExternalAccountEvent,
  ExternalAccountState,
  ExternalAccountRow
> {
  constructor(
    store: AccountsEventStore,
    readModels: ExternalAccountsReadModels,
    timers: TimerService,
    partnerEvents: AccountsPartnerEvents,
  ) {
    const armTimers: After = async ({ events }, { projectId, id }) => {
      for (const event of events as unknown as Array<RecordedEvent & ExternalAccountEvent>) {
        if (event.type !== 'externalAccount.created') continue;
        await timers.schedule(projectId, PROVISIONING_TIMEOUT_TIMER, id, new Date(event.data.provisioningDeadline), {
          externalAccountId: id,
        });
        const details = event.data.details;
        if (details && 'expiryMonth' in details) {
          await timers.schedule(
            projectId,
            CARD_EXPIRY_TIMER,
            id,
            cardExpiresAt({ month: details.expiryMonth, year: details.expiryYear }),
            { externalAccountId: id },
          );
        }
      }
    };
    super(store, {
      decider: externalAccountDecider,
      streamId: externalAccountStreamId,
      project: (event) => projectExternalAccount(readModels, event),
      then: [({ events }) => partnerEvents.publish(events), armTimers],
    });
  }
}

/** The account row as the event left it. */
async function projectExternalAccount(
  readModels: ExternalAccountsReadModels,
  event: RecordedEvent & ExternalAccountEvent,
): Promise<ExternalAccountRow | undefined> {
  const version = event.streamVersion;
  switch (event.type) {
    case 'externalAccount.created': {
      const d = event.data;
      return readModels.insertExternalAccount({
        id: d.externalAccountId,
        project_id: d.projectId,
        customer_id: d.customerId,
        counterparty_id: d.counterpartyId,
        type: d.type,
        details: d.details,
        supported_destinations: d.supportedDestinations,
        provider_reference: d.providerReference,
        label: d.label,
        metadata: d.metadata,
        version,
        at: d.createdAt,
      });
    }
    case 'externalAccount.statusChanged': {
      const d = event.data;
      return readModels.setExternalAccountStatus(d.projectId, d.externalAccountId, d.status, d.failure, version, d.at);
    }
    case 'externalAccount.updated': {
      const d = event.data;
      return readModels.updateExternalAccount(
        d.projectId,
        d.externalAccountId,
        { label: d.label, metadata: d.metadata, failure: d.failure },
        version,
        d.at,
      );
    }
    case 'externalAccount.deleted':
      await readModels.markExternalAccountDeleted(
        event.data.projectId,
        event.data.externalAccountId,
        version,
        event.data.at,
      );
      return undefined;
    case 'externalAccount.verified':
    case 'externalAccount.declined':
      return undefined;
  }
}
