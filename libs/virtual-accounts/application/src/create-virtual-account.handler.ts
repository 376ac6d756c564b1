// POST /virtual-accounts (spec: Virtual account; API-CONTRACT: Virtual accounts; ADR 0032). An account is
// made for a customer with the usd endorsement, with a destination the accounts port resolves; it starts
// pending, and the simulated bank opens it on a durable timer of the project's clock
// (provision-virtual-account.handler.ts).
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  namedExternalAccount,
  requireEndorsement,
  type VirtualAccountCreated,
  requireCustomerId,
} from '@mm/contracts';
import {
  requireVirtualAccount,
  returnBank,
  virtualAccountView,
  type VirtualAccountView,
} from '@mm/virtual-accounts/domain';
import { VirtualAccountBank } from '@mm/virtual-accounts/infrastructure';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { PROVISIONING_TIMER } from './provision-virtual-account.handler';
import { DestinationResolver, type DestinationInput } from './virtual-account-destination.resolver';
import { VirtualAccountCommands } from './virtual-account.commands';
import { inboundRail } from './virtual-account.queries';

export interface CreateVirtualAccountRequest {
  customerId: string;
  source: { asset: string; network: string };
  destination: DestinationInput;
  accountHolder: string;
  type: string;
  returnDestination?: { externalAccountId: string };
  returnPayout?: { rail: string };
  sponsorGas?: boolean;
  label?: string;
  metadata?: Record<string, string>;
}

@Injectable()
export class CreateVirtualAccountHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: VirtualAccountCommands,
    private readonly accounts: AccountsPort,
    private readonly destinations: DestinationResolver,
    private readonly bank: VirtualAccountBank,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  async create(projectId: string, request: CreateVirtualAccountRequest): Promise<VirtualAccountView> {
    requireCustomerId(request.customerId);
    if (request.source.asset !== 'usd')
      throw new ApiError(
        'InvalidRequest',
        `source.asset: a virtual account receives usd, not ${request.source.asset.slice(0, 32)}`,
      );
    const sourceNetwork = inboundRail(request.source.network, 'source.network');
    if (request.accountHolder !== 'customer') throw new ApiError('InvalidRequest', 'accountHolder must be customer');
    if (request.type !== 'bankUs') throw new ApiError('InvalidRequest', 'type must be bankUs');
    const { returnDestination: returnInput, returnPayout } = request;
    if ((returnInput === undefined) !== (returnPayout === undefined)) {
      throw new ApiError(
        'InvalidRequest',
        'returnDestination and returnPayout go together: give both (where refunds go, and on which rail) or neither (refunds go back to the sender)',
      );
    }
    const customer = await this.accounts.customer(projectId, request.customerId);
    const destination = await this.destinations.resolve(projectId, customer, request.destination);
    const returnDestination =
      returnInput && returnPayout
        ? returnBank(
            customer.id,
            await namedExternalAccount(this.accounts, projectId, returnInput.externalAccountId, 'returnDestination'),
            returnPayout.rail,
          )
        : null;
    requireEndorsement(customer, 'usd', 'a virtual account (it receives US dollars)');
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const virtualAccountId = newId('virtualAccount');
      const record: VirtualAccountCreated = {
        virtualAccountId,
        projectId,
        customerId: customer.id,
        customerName: customer.name,
        sourceNetwork,
        destination,
        returnDestination,
        sponsorGas: request.sponsorGas ?? null,
        label: request.label ?? null,
        metadata: request.metadata ?? {},
        createdAt: at,
      };
      const { state } = await this.commands.handle(
        projectId,
        virtualAccountId,
        { type: 'CreateVirtualAccount', record },
        { newStream: true },
      );
      const delay = this.bank.provisioningDelaySeconds({
        virtualAccountId,
        projectId,
        holderName: customer.name,
        label: record.label,
      });
      await this.timers.schedule(
        projectId,
        PROVISIONING_TIMER,
        virtualAccountId,
        new Date(Date.parse(at) + delay * 1000),
        { virtualAccountId },
      );
      return virtualAccountView(requireVirtualAccount(state, projectId));
    });
  }
}
