// Counterparties (spec: Counterparty; API-CONTRACT fills the read, list and
// update routes the spec leaves out). A tax id goes to the screening provider
// and is never stored: reads say only whether one was given.
import { Injectable } from '@nestjs/common';
import { ApiError, type CounterpartyAddress, type CounterpartyEntityType } from '@mm/contracts';
import type { CounterpartyFields } from '@mm/accounts/domain';
import { ExternalAccountsReadModels, ScreeningProvider, type CounterpartyRow } from '@mm/accounts/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { isId, newId } from '@mm/platform/ids';
import { CounterpartyCommands } from './counterparty.commands';
import { CustomersService } from './customers.service';

export interface CounterpartyInput {
  firstName?: string | null;
  lastName?: string | null;
  businessName?: string | null;
  email?: string | null;
  phone?: string | null;
  taxId?: string | null;
  address?: CounterpartyAddress | null;
}

@Injectable()
export class CounterpartiesService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: CounterpartyCommands,
    private readonly readModels: ExternalAccountsReadModels,
    private readonly customers: CustomersService,
    private readonly screening: ScreeningProvider,
    private readonly clock: ProjectClock,
  ) {}

  async require(projectId: string, id: string): Promise<CounterpartyRow> {
    if (!isId('counterparty', id))
      throw new ApiError('InvalidCounterpartyID', `"${id.slice(0, 64)}" is not a counterparty id (cpty_…)`);
    const row = await this.readModels.counterparty(projectId, id);
    if (!row) throw new ApiError('CounterpartyNotFound');
    return row;
  }

  async create(
    projectId: string,
    customerId: string,
    entityType: CounterpartyEntityType,
    input: CounterpartyInput,
  ): Promise<CounterpartyRow> {
    return runCommand(this.uow, async () => {
      await this.customers.require(projectId, customerId);
      const counterpartyId = newId('counterparty');
      const at = (await this.clock.now(projectId)).toISOString();
      const fields: CounterpartyFields = {
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        businessName: input.businessName ?? null,
        email: input.email ?? null,
        phone: input.phone ?? null,
        taxIdProvided: typeof input.taxId === 'string',
        address: input.address ?? null,
      };
      const { row } = await this.commands.handle(
        projectId,
        counterpartyId,
        { type: 'CreateCounterparty', counterpartyId, projectId, customerId, entityType, ...fields, at },
        { newStream: true },
      );
      if (typeof input.taxId === 'string') await this.screening.recordTaxId(counterpartyId, input.taxId);
      return row!;
    });
  }

  async update(projectId: string, id: string, input: CounterpartyInput): Promise<CounterpartyRow> {
    return runCommand(this.uow, async () => {
      const before = await this.require(projectId, id);
      const at = (await this.clock.now(projectId)).toISOString();
      const { taxId, ...rest } = input;
      const changes = Object.fromEntries(
        Object.entries(rest).filter(([, value]) => value !== undefined),
      ) as Partial<CounterpartyFields>;
      // A tax id can be replaced, not removed (the API refuses null for it).
      const { row } = await this.commands.handle(projectId, id, {
        type: 'UpdateCounterparty',
        changes,
        taxIdReplaced: typeof taxId === 'string',
        at,
      });
      if (typeof taxId === 'string') await this.screening.recordTaxId(id, taxId);
      return row ?? before;
    });
  }

  /** Spec Errors: 409 while it still owns active external accounts (pending ones are about to be). */
  async delete(projectId: string, id: string): Promise<void> {
    await runCommand(this.uow, async () => {
      await this.require(projectId, id);
      const live = await this.readModels.liveAccountsOfCounterparty(projectId, id);
      if (live.length > 0) {
        const listed = live
          .slice(0, 5)
          .map((a) => `${a.id} (${a.status})`)
          .join(', ');
        throw new ApiError(
          'CounterpartyHasActiveExternalAccounts',
          `it owns ${live.length} active or pending external account(s): ${listed}${live.length > 5 ? ', …' : ''}; delete them first`,
        );
      }
      const at = (await this.clock.now(projectId)).toISOString();
      await this.commands.handle(projectId, id, { type: 'DeleteCounterparty', at });
    });
  }
}
