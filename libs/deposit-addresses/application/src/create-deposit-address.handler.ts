// POST /deposit-addresses (spec: Deposit address; API-CONTRACT: Deposit addresses; ADR 0030). An address is
// made for a customer when the project has the feature (the gateway's answer now), with a destination and
// return wallet the accounts port resolves; it starts pending, and the custodian's answer comes on a durable
// timer of the project's clock (provision-deposit-address.handler.ts).
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  GatewayPort,
  namedExternalAccount,
  requireEndorsement,
  type DepositAddressCreated,
  requireCustomerId,
} from '@mm/contracts';
import {
  bankDestination,
  checkExpectedSource,
  depositAddressView,
  payoutEndorsement,
  payoutInstruction,
  requireDepositAddress,
  returnWallet,
  type DepositAddressView,
  type PayoutInput,
} from '@mm/deposit-addresses/domain';
import { DepositAddressCustodian } from '@mm/deposit-addresses/infrastructure';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { DepositAddressCommands } from './deposit-address.commands';
import { PROVISIONING_TIMER } from './provision-deposit-address.handler';

export interface CreateDepositAddressRequest {
  customerId: string;
  expectedSourceAsset: string;
  expectedSourceNetwork: string;
  destination: { externalAccountId: string };
  payout: PayoutInput;
  returnDestination?: { externalAccountId: string };
  requiresCounterpartyWalletRegistration?: boolean;
  sponsorGas?: boolean;
  label?: string;
  metadata?: Record<string, string>;
}

@Injectable()
export class CreateDepositAddressHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: DepositAddressCommands,
    private readonly accounts: AccountsPort,
    private readonly gateway: GatewayPort,
    private readonly custodian: DepositAddressCustodian,
    private readonly clock: ProjectClock,
    private readonly timers: TimerService,
  ) {}

  async create(projectId: string, request: CreateDepositAddressRequest): Promise<DepositAddressView> {
    // The gateway's answer as of now: an operator's PATCH counts from its 200 on.
    const project = await this.gateway.project(projectId);
    if (!project.features.depositAddresses) {
      throw new ApiError(
        'FeatureNotEnabled',
        'deposit addresses are not enabled for this project: the operator enables the depositAddresses feature (PATCH /admin/projects/{projectId})',
      );
    }
    requireCustomerId(request.customerId);
    checkExpectedSource(request.expectedSourceAsset, request.expectedSourceNetwork);
    const payout = payoutInstruction(request.payout);
    const customer = await this.accounts.customer(projectId, request.customerId);
    const account = await namedExternalAccount(
      this.accounts,
      projectId,
      request.destination.externalAccountId,
      'destination',
    );
    const destination = bankDestination(customer.id, account, payout);
    const returnDestination = request.returnDestination
      ? returnWallet(
          customer.id,
          await namedExternalAccount(
            this.accounts,
            projectId,
            request.returnDestination.externalAccountId,
            'returnDestination',
          ),
          request.expectedSourceAsset,
          request.expectedSourceNetwork,
        )
      : null;
    const endorsement = payoutEndorsement(destination);
    requireEndorsement(customer, endorsement.name, endorsement.operation);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const depositAddressId = newId('depositAddress');
      const record: DepositAddressCreated = {
        depositAddressId,
        projectId,
        customerId: customer.id,
        customerName: customer.name,
        expectedSourceAsset: request.expectedSourceAsset,
        expectedSourceNetwork: request.expectedSourceNetwork,
        destination,
        payout,
        returnDestination,
        requiresCounterpartyWalletRegistration: request.requiresCounterpartyWalletRegistration ?? null,
        sponsorGas: request.sponsorGas ?? null,
        label: request.label ?? null,
        metadata: request.metadata ?? {},
        createdAt: at,
      };
      const { state } = await this.commands.handle(
        projectId,
        depositAddressId,
        { type: 'CreateDepositAddress', record },
        { newStream: true },
      );
      const delay = this.custodian.provisioningDelaySeconds({
        depositAddressId,
        asset: record.expectedSourceAsset,
        network: record.expectedSourceNetwork,
        label: record.label,
      });
      await this.timers.schedule(
        projectId,
        PROVISIONING_TIMER,
        depositAddressId,
        new Date(Date.parse(at) + delay * 1000),
        { depositAddressId },
      );
      return depositAddressView(requireDepositAddress(state, projectId));
    });
  }
}
