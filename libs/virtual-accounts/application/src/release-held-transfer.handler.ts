// A deposit the transactions service held for a destination (ADR 0056): the account it could not be paid to
// was invalidated or deleted. Decided under the virtual account's lock, which a PATCH takes too: still the
// account's destination, the deposit waits for the PATCH that replaces it (which asks which deposits wait);
// replaced already, the deposit is released to the destination the account has now.
import { Injectable } from '@nestjs/common';
import type { EventPayloads } from '@mm/contracts';
import {
  depositTarget,
  destinationAsset,
  virtualAccountDecider,
  virtualAccountStreamId,
  type VirtualAccountEvent,
} from '@mm/virtual-accounts/domain';
import { VirtualAccountPrices, VirtualAccountsReadModel } from '@mm/virtual-accounts/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand, type RecordedEvent } from '@mm/platform/event-store';
import { VirtualAccountCommands } from './virtual-account.commands';
import { usdRate } from './virtual-account.queries';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

@Injectable()
export class ReleaseHeldTransferHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: VirtualAccountsEventStore,
    private readonly commands: VirtualAccountCommands,
    private readonly readModel: VirtualAccountsReadModel,
    private readonly prices: VirtualAccountPrices,
    private readonly clock: ProjectClock,
  ) {}

  async onTransactionHeld(event: RecordedEvent<'transaction.held', EventPayloads['transaction.held']>): Promise<void> {
    const { projectId, transactionId, hold, destinationId } = event.data;
    if (hold.code !== 'payoutDestinationMissing' || !destinationId) return;
    const deposit = await this.readModel.deposit(projectId, transactionId);
    if (!deposit) return; // another origin's deposit
    const id = deposit.virtual_account_id;
    await runCommand(this.uow, async () => {
      const history = await this.store.lockAndReadStream(virtualAccountStreamId(id));
      const state = fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]);
      if (state.status === 'none' || state.destination.instrument.id === destinationId) return;
      const at = (await this.clock.now(projectId)).toISOString();
      const target = depositTarget(state, deposit.amount, usdRate(this.prices, destinationAsset(state)));
      await this.commands.handle(projectId, id, {
        type: 'ReleaseDeposits',
        projectId,
        releases: [{ transactionId, target }],
        at,
      });
    });
  }
}
