import { Injectable } from '@nestjs/common';
import { ApiError, type EndorsementName, requireCustomerId } from '@mm/contracts';
import {
  AccountsReadModels,
  type BalanceCustomer,
  type BalanceWallet,
  type CustomerRow,
} from '@mm/accounts/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { CustomerCommands } from './customer.commands';

export interface CreateCustomerInput {
  firstName: string;
  lastName: string;
  email?: string | null;
  endorsements?: EndorsementName[];
}

@Injectable()
export class CustomersService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: CustomerCommands,
    private readonly readModels: AccountsReadModels,
    private readonly clock: ProjectClock,
  ) {}

  /** 400 InvalidCustomerID for a malformed id; 404 CustomerNotFound for one this project does not have. */
  async require(projectId: string, customerId: string): Promise<CustomerRow> {
    requireCustomerId(customerId);
    const row = await this.readModels.customer(projectId, customerId);
    if (!row) throw new ApiError('CustomerNotFound');
    return row;
  }

  /** What a balance read needs of the customer and its wallets (CustomerNotFound when there is no such customer). */
  async requireBalanceHolder(
    projectId: string,
    customerId: string,
  ): Promise<{ customer: BalanceCustomer; wallets: BalanceWallet[] }> {
    requireCustomerId(customerId);
    const { customer, wallets } = await this.readModels.balanceHolder(projectId, customerId);
    if (!customer) throw new ApiError('CustomerNotFound');
    return { customer, wallets };
  }

  async create(projectId: string, input: CreateCustomerInput): Promise<CustomerRow> {
    const customerId = newId('customer');
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { row } = await this.commands.handle(
        projectId,
        customerId,
        {
          type: 'CreateCustomer',
          customerId,
          projectId,
          firstName: input.firstName,
          lastName: input.lastName,
          email: input.email ?? null,
          endorsements: input.endorsements ?? [],
          at,
        },
        { newStream: true },
      );
      return row!;
    });
  }

  async requestEndorsement(projectId: string, customerId: string, name: EndorsementName): Promise<CustomerRow> {
    return runCommand(this.uow, async () => {
      const before = await this.require(projectId, customerId);
      const at = (await this.clock.now(projectId)).toISOString();
      const { row } = await this.commands.handle(projectId, customerId, { type: 'RequestEndorsement', name, at });
      // No event when the endorsement was already requested: the customer as it was.
      return row ?? before;
    });
  }

  /** The sandbox reviewer's (or a KYC provider's) verdict on a pending endorsement. */
  async decideEndorsement(
    projectId: string,
    customerId: string,
    name: EndorsementName,
    verdict: { approved: true } | { approved: false; reason: string },
  ): Promise<void> {
    await runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      await this.commands.handle(
        projectId,
        customerId,
        verdict.approved
          ? { type: 'ApproveEndorsement', name, at }
          : { type: 'RejectEndorsement', name, reason: verdict.reason, at },
      );
    });
  }
}
