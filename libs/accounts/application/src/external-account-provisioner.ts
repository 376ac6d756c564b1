// Provisions external accounts after registration, off the events log (as
// EndorsementReviewer does for endorsements): payout screening first for bank
// beneficiaries (rule 9), then the provider. A provider that never answers
// leaves the account pending until the provisioning timer fails it on the
// project clock. Redeliveries are harmless: the decider ignores a verdict on an
// account that is no longer pending.
import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { EventPayloads } from '@mm/contracts';
import { ExternalAccountsReadModels, InstrumentProvider, ScreeningProvider } from '@mm/accounts/infrastructure';
import { TimerService, type DueTimer } from '@mm/platform/clock';
import type { RecordedEvent } from '@mm/platform/event-store';
import { PROVISIONING_TIMEOUT_TIMER } from './external-account.commands';
import { ExternalAccountsService } from './external-accounts.service';

@Injectable()
export class ExternalAccountProvisioner implements OnModuleInit {
  constructor(
    private readonly externalAccounts: ExternalAccountsService,
    private readonly readModels: ExternalAccountsReadModels,
    private readonly screening: ScreeningProvider,
    private readonly provider: InstrumentProvider,
    private readonly timers: TimerService,
  ) {}

  onModuleInit(): void {
    this.timers.on(PROVISIONING_TIMEOUT_TIMER, (timer) => this.onTimeout(timer));
  }

  async onCreated(
    event: RecordedEvent<'externalAccount.created', EventPayloads['externalAccount.created']>,
  ): Promise<void> {
    const { projectId, externalAccountId, screenedNames } = event.data;
    const account = await this.readModels.externalAccount(projectId, externalAccountId);
    if (account?.status !== 'pending') return; // decided already, or deleted
    const hit = screenedNames.length > 0 ? await this.screening.screen(screenedNames) : null;
    if (hit)
      return this.externalAccounts.completeProvisioning(projectId, externalAccountId, { active: false, failure: hit });
    const result = await this.provider.provision({
      type: account.type,
      details: account.details,
      providerReference: account.provider_reference,
    });
    if (result.outcome === 'active')
      return this.externalAccounts.completeProvisioning(projectId, externalAccountId, { active: true });
    if (result.outcome === 'rejected')
      return this.externalAccounts.completeProvisioning(projectId, externalAccountId, {
        active: false,
        failure: result.failure,
      });
    // noAnswer: the timer decides.
  }

  private async onTimeout(timer: DueTimer): Promise<void> {
    await this.externalAccounts.completeProvisioning(timer.projectId, timer.key, {
      active: false,
      failure: {
        code: 'provisioning_timeout',
        message: 'the provider did not confirm the account before the provisioning deadline',
      },
    });
  }
}
