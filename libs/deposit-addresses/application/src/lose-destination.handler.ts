// The accounts service's news of a destination deleted or turned invalid (spec: States / Deposit address;
// ADR 0030): each address paying to it is inactiveActionRequired (an active one) until a PATCH points it at
// an active bank account; deposits that reach it meanwhile are held for one.
import { Injectable } from '@nestjs/common';
import type { EventPayloads } from '@mm/contracts';
import { DepositAddressesReadModel } from '@mm/deposit-addresses/infrastructure';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand, type RecordedEvent } from '@mm/platform/event-store';
import { DepositAddressCommands } from './deposit-address.commands';

@Injectable()
export class LoseDestinationHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: DepositAddressCommands,
    private readonly readModel: DepositAddressesReadModel,
  ) {}

  async onExternalAccountStatusChanged(
    event: RecordedEvent<'externalAccount.statusChanged', EventPayloads['externalAccount.statusChanged']>,
  ): Promise<void> {
    const { projectId, externalAccountId, status, at } = event.data;
    if (status === 'invalid') await this.loseDestination(projectId, externalAccountId, 'invalid', at);
  }

  async onExternalAccountDeleted(
    event: RecordedEvent<'externalAccount.deleted', EventPayloads['externalAccount.deleted']>,
  ): Promise<void> {
    await this.loseDestination(event.data.projectId, event.data.externalAccountId, 'deleted', event.data.at);
  }

  private async loseDestination(
    projectId: string,
    externalAccountId: string,
    reason: 'deleted' | 'invalid',
    at: string,
  ): Promise<void> {
    for (const id of await this.readModel.payingTo(projectId, externalAccountId)) {
      await runCommand(this.uow, () =>
        this.commands.handle(projectId, id, { type: 'LoseDestination', projectId, externalAccountId, reason, at }),
      );
    }
  }
}
