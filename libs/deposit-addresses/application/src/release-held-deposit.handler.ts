// A deposit the transactions service held for a destination (ADR 0056): the account its payout could not go
// to was invalidated or deleted. Decided under the address's lock, which a PATCH takes too: still the
// address's destination (or its destination is lost), the deposit waits for the PATCH that replaces it
// (which asks which deposits wait); replaced already, the deposit is released to the destination the
// address has now.
import { Injectable } from '@nestjs/common';
import { ApiError, type DepositPayoutTarget, type EventPayloads } from '@mm/contracts';
import {
  depositAddressDecider,
  depositAddressStreamId,
  payoutTarget,
  type DepositAddressEvent,
} from '@mm/deposit-addresses/domain';
import { DepositAddressesReadModel, DepositPrices } from '@mm/deposit-addresses/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand, type RecordedEvent } from '@mm/platform/event-store';
import { DepositAddressCommands } from './deposit-address.commands';
import { amountText, usdcRate } from './deposit-address.queries';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';

@Injectable()
export class ReleaseHeldDepositHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: DepositAddressesEventStore,
    private readonly commands: DepositAddressCommands,
    private readonly readModel: DepositAddressesReadModel,
    private readonly prices: DepositPrices,
    private readonly clock: ProjectClock,
  ) {}

  async onTransactionHeld(event: RecordedEvent<'transaction.held', EventPayloads['transaction.held']>): Promise<void> {
    const { projectId, transactionId, hold, destinationId } = event.data;
    if (hold.code !== 'payoutDestinationMissing' || !destinationId) return;
    const deposit = await this.readModel.deposit(projectId, transactionId);
    if (!deposit) return; // another origin's deposit
    const id = deposit.deposit_address_id;
    await runCommand(this.uow, async () => {
      const history = await this.store.lockAndReadStream(depositAddressStreamId(id));
      const state = fold(depositAddressDecider, history as unknown as DepositAddressEvent[]);
      if (state.status === 'none' || state.destinationLost || state.destination.instrument.id === destinationId) return;
      let target: DepositPayoutTarget;
      try {
        target = payoutTarget(
          state,
          amountText(deposit.amount),
          usdcRate(this.prices, state.destination.instrument.asset),
        );
      } catch (error) {
        // Not payable exactly to this destination: it waits for one it can be paid to.
        if (error instanceof ApiError && error.errorName === 'InexactConversion') return;
        throw error;
      }
      const at = (await this.clock.now(projectId)).toISOString();
      await this.commands.handle(projectId, id, {
        type: 'ReleaseDeposits',
        projectId,
        releases: [{ transactionId, target }],
        at,
      });
    });
  }
}
