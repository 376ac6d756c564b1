// External accounts (spec: External account; Endpoints "External accounts and
// counterparties"). Registration checks the owner and every identifier, hands
// the full number to the provider (which returns a token) and records the
// account `pending`; provisioning follows asynchronously
// (ExternalAccountProvisioner), bounded by a timer on the project clock. A card
// has a second timer, at the end of its expiry month on the project clock
// (CardExpiry): it lapses then, whether or not anything reads it.
import { Injectable } from '@nestjs/common';
import { ApiError, EXTERNAL_ACCOUNT_PROVISIONING_TIMEOUT_SECONDS, type ExternalAccountFailure } from '@mm/contracts';
import { describeInstrument, type ExternalAccountCommand, type InstrumentInput } from '@mm/accounts/domain';
import { ExternalAccountsReadModels, InstrumentProvider, type ExternalAccountRow } from '@mm/accounts/infrastructure';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { isId, newId } from '@mm/platform/ids';
import { CounterpartiesService } from './counterparties.service';
import { CARD_EXPIRY_TIMER, ExternalAccountCommands, PROVISIONING_TIMEOUT_TIMER } from './external-account.commands';
import { CustomersService } from './customers.service';

export type ExternalAccountOwner =
  { kind: 'customer'; customerId: string } | { kind: 'counterparty'; counterpartyId: string };

export interface RegisterExternalAccountInput {
  owner: ExternalAccountOwner;
  instrument: InstrumentInput;
  label?: string | null;
  metadata?: Record<string, string>;
}

@Injectable()
export class ExternalAccountsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: ExternalAccountCommands,
    private readonly readModels: ExternalAccountsReadModels,
    private readonly customers: CustomersService,
    private readonly counterparties: CounterpartiesService,
    private readonly provider: InstrumentProvider,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  /** 400 for a malformed id; 404 for one this project does not have, or has deleted. */
  async require(projectId: string, id: string): Promise<ExternalAccountRow> {
    if (!isId('externalAccount', id))
      throw new ApiError('InvalidExternalAccountID', `"${id.slice(0, 64)}" is not an external account id (ext_…)`);
    const row = await this.readModels.externalAccount(projectId, id);
    if (!row) throw new ApiError('ExternalAccountNotFound');
    return row;
  }

  async register(projectId: string, input: RegisterExternalAccountInput): Promise<ExternalAccountRow> {
    return runCommand(this.uow, async () => {
      const owner = await this.resolveOwner(projectId, input.owner);
      const now = await this.clock.now(projectId);
      const instrument = describeInstrument(input.instrument, owner.name, now);
      const providerReference = await this.provider.register(instrument.type, instrument.sensitive);
      const externalAccountId = newId('externalAccount');
      const deadline = new Date(now.getTime() + EXTERNAL_ACCOUNT_PROVISIONING_TIMEOUT_SECONDS * 1000);
      // The command arms the provisioning deadline and a card's expiry (ExternalAccountCommands).
      const { row } = await this.commands.handle(
        projectId,
        externalAccountId,
        {
          type: 'RegisterExternalAccount',
          externalAccountId,
          projectId,
          customerId: owner.customerId,
          counterpartyId: owner.counterpartyId,
          instrumentType: instrument.type,
          details: instrument.details,
          supportedDestinations: instrument.supportedDestinations,
          providerReference,
          screenedNames: instrument.screenedNames,
          label: input.label ?? null,
          metadata: input.metadata ?? {},
          provisioningDeadline: deadline.toISOString(),
          at: now.toISOString(),
        },
        { newStream: true },
      );
      return row!;
    });
  }

  async update(
    projectId: string,
    id: string,
    changes: { label?: string | null; metadata?: Record<string, string | null> | null },
  ): Promise<ExternalAccountRow> {
    return runCommand(this.uow, async () => {
      const before = await this.require(projectId, id);
      const at = (await this.clock.now(projectId)).toISOString();
      const { row } = await this.commands.handle(projectId, id, { type: 'UpdateExternalAccount', ...changes, at });
      return row ?? before;
    });
  }

  async delete(projectId: string, id: string): Promise<void> {
    await runCommand(this.uow, async () => {
      await this.require(projectId, id);
      const at = (await this.clock.now(projectId)).toISOString();
      await this.commands.handle(projectId, id, { type: 'DeleteExternalAccount', at });
      await this.timers.cancel(PROVISIONING_TIMEOUT_TIMER, id);
      await this.timers.cancel(CARD_EXPIRY_TIMER, id);
    });
  }

  /** The provider's (or the screening's, or the timer's) verdict on a pending account. */
  async completeProvisioning(
    projectId: string,
    id: string,
    verdict: { active: true } | { active: false; failure: ExternalAccountFailure },
  ): Promise<void> {
    await runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const command: ExternalAccountCommand = verdict.active
        ? { type: 'CompleteProvisioning', at }
        : { type: 'FailProvisioning', failure: verdict.failure, at };
      await this.commands.handle(projectId, id, command);
      await this.timers.cancel(PROVISIONING_TIMEOUT_TIMER, id);
    });
  }

  /** The card expiry timer: a card still usable when its expiry month ended becomes invalid (card_expired). */
  async expireCard(projectId: string, id: string): Promise<void> {
    await runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      await this.commands.handle(projectId, id, { type: 'ExpireCard', at });
    });
  }

  /** Sandbox: the provider reports the account can no longer be used (closed, frozen). */
  async invalidate(projectId: string, id: string, failure: ExternalAccountFailure): Promise<ExternalAccountRow> {
    return runCommand(this.uow, async () => {
      const before = await this.require(projectId, id);
      const at = (await this.clock.now(projectId)).toISOString();
      const { row } = await this.commands.handle(projectId, id, { type: 'InvalidateExternalAccount', failure, at });
      await this.timers.cancel(PROVISIONING_TIMEOUT_TIMER, id);
      return row ?? before;
    });
  }

  private async resolveOwner(
    projectId: string,
    owner: ExternalAccountOwner,
  ): Promise<{ customerId: string; counterpartyId: string | null; name: string }> {
    if (owner.kind === 'counterparty') {
      const counterparty = await this.counterparties.require(projectId, owner.counterpartyId);
      return { customerId: counterparty.customer_id, counterpartyId: counterparty.id, name: counterparty.name };
    }
    const customer = await this.customers.require(projectId, owner.customerId);
    return { customerId: customer.id, counterpartyId: null, name: `${customer.first_name} ${customer.last_name}` };
  }
}
