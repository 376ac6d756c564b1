// PATCH /virtual-accounts/{id} (spec: Virtual account; API-CONTRACT: Virtual accounts; ADR 0032, ADR 0056):
// a new destination, a return destination (null removes it) or its rail, the label, the metadata;
// virtualAccount.updated names what changed. A new destination releases the deposits waiting for one (the
// transactions service holds them), each priced to it.
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  namedExternalAccount,
  TransactionsPort,
  type VirtualAccountDestination,
} from '@mm/contracts';
import {
  depositTarget,
  destinationAsset,
  requireVirtualAccount,
  returnBank,
  returnOn,
  virtualAccountDecider,
  virtualAccountStreamId,
  virtualAccountView,
  type DepositRelease,
  type ExistingVirtualAccount,
  type VirtualAccountChanges,
  type VirtualAccountCommand,
  type VirtualAccountEvent,
  type VirtualAccountState,
  type VirtualAccountView,
} from '@mm/virtual-accounts/domain';
import { VirtualAccountPrices, VirtualAccountsReadModel } from '@mm/virtual-accounts/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand } from '@mm/platform/event-store';
import { DestinationResolver, type DestinationInput } from './virtual-account-destination.resolver';
import { VirtualAccountCommands } from './virtual-account.commands';
import { usdRate, VirtualAccountQueries } from './virtual-account.queries';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

export interface UpdateVirtualAccountRequest {
  destination?: DestinationInput;
  returnDestination?: { externalAccountId: string } | null;
  returnPayout?: { rail: string } | null;
  label?: string | null;
  metadata?: Record<string, string | null> | null;
}

@Injectable()
export class UpdateVirtualAccountHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: VirtualAccountsEventStore,
    private readonly commands: VirtualAccountCommands,
    private readonly queries: VirtualAccountQueries,
    private readonly readModel: VirtualAccountsReadModel,
    private readonly accounts: AccountsPort,
    private readonly destinations: DestinationResolver,
    private readonly transactions: TransactionsPort,
    private readonly prices: VirtualAccountPrices,
    private readonly clock: ProjectClock,
  ) {}

  async update(projectId: string, id: string, patch: UpdateVirtualAccountRequest): Promise<VirtualAccountView> {
    const row = await this.queries.row(projectId, id);
    const customerId = row.customer_id;
    if (patch.returnDestination === null && patch.returnPayout !== undefined && patch.returnPayout !== null) {
      throw new ApiError('InvalidRequest', 'returnPayout: cannot be set while returnDestination is removed (null)');
    }
    const destination = patch.destination
      ? await this.destinations.resolve(
          projectId,
          patch.destination.type === 'walletOms'
            ? await this.accounts.customer(projectId, customerId)
            : { id: customerId },
          patch.destination,
        )
      : undefined;
    const returnAccount = patch.returnDestination
      ? await namedExternalAccount(
          this.accounts,
          projectId,
          patch.returnDestination.externalAccountId,
          'returnDestination',
        )
      : undefined;
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      // A new destination releases the deposits waiting for one, each priced to it. Asked under the account's
      // lock: a deposit held meanwhile is counted here, or its hold, heard of later, finds this destination.
      const releases = destination ? await this.releases(projectId, id, destination) : [];
      const { state } = await this.commands.handle(
        projectId,
        id,
        (current: VirtualAccountState): VirtualAccountCommand => {
          const changes: VirtualAccountChanges = {};
          const currentReturn = current.status === 'none' ? null : current.returnDestination;
          if (destination) changes.destination = destination;
          if (patch.returnDestination === null) changes.returnDestination = null;
          else if (returnAccount) {
            const rail = patch.returnPayout?.rail ?? currentReturn?.rail;
            if (!rail)
              throw new ApiError(
                'InvalidRequest',
                'returnPayout: is required with a returnDestination (the rail refunds go on)',
              );
            changes.returnDestination = returnBank(customerId, returnAccount, rail);
          } else if (patch.returnPayout) {
            if (!currentReturn)
              throw new ApiError(
                'InvalidRequest',
                'returnPayout: the account has no returnDestination; give one with it',
              );
            changes.returnDestination = returnOn(currentReturn, patch.returnPayout.rail);
          }
          if (patch.label !== undefined) changes.label = patch.label;
          if (patch.metadata !== undefined) changes.metadata = patch.metadata;
          return { type: 'UpdateVirtualAccount', projectId, changes, releases, at };
        },
      );
      return virtualAccountView(requireVirtualAccount(state, projectId));
    });
  }

  /**
   * The deposits of the account whose transactions wait for a destination (asked of the transactions service,
   * which holds them), each priced to `destination`. Under the account's stream lock (taken here; re-entrant).
   */
  private async releases(
    projectId: string,
    id: string,
    destination: VirtualAccountDestination,
  ): Promise<DepositRelease[]> {
    const history = await this.store.lockAndReadStream(virtualAccountStreamId(id));
    const state = fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]);
    const deposits = await this.readModel.deposits(id);
    if (state.status === 'none' || deposits.length === 0) return [];
    const held = new Set(
      await this.transactions.heldForDestination(
        projectId,
        deposits.map((d) => d.transaction_id),
      ),
    );
    const next: ExistingVirtualAccount = { ...state, destination };
    const rate = usdRate(this.prices, destinationAsset(next));
    return deposits
      .filter((d) => held.has(d.transaction_id))
      .map((d) => ({ transactionId: d.transaction_id, target: depositTarget(next, d.amount, rate) }));
  }
}
