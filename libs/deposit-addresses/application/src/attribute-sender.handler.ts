// A sender's wallet registered (spec: Deposit address; Transaction, hold; ADR 0030): a walletExternal of the
// customer or one of its counterparties became active, and every deposit of the customer held for a sender at
// that address on that network is attributed to it, under the customer's lock, so that a deposit deciding at
// the same moment either sees the wallet registered or is seen here. An attributed deposit pays out to the
// address's destination as it is now, or waits on for one while the destination is lost.
import { Injectable } from '@nestjs/common';
import {
  AccountsPort,
  ApiError,
  type DepositAddressSenderAttributed,
  type EventPayloads,
  type ExternalAccountView,
} from '@mm/contracts';
import {
  depositAddressDecider,
  depositAddressStreamId,
  requireDepositAddress,
  type DepositAddressEvent,
} from '@mm/deposit-addresses/domain';
import { DepositAddressesReadModel, DepositPrices } from '@mm/deposit-addresses/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand, type RecordedEvent } from '@mm/platform/event-store';
import { usdcRate } from './deposit-address.queries';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';
import { DepositCommands } from './deposit.commands';

@Injectable()
export class AttributeSenderHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: DepositAddressesEventStore,
    private readonly deposits: DepositCommands,
    private readonly readModel: DepositAddressesReadModel,
    private readonly accounts: AccountsPort,
    private readonly prices: DepositPrices,
    private readonly clock: ProjectClock,
  ) {}

  async onExternalAccountStatusChanged(
    event: RecordedEvent<'externalAccount.statusChanged', EventPayloads['externalAccount.statusChanged']>,
  ): Promise<void> {
    const { projectId, externalAccountId, status } = event.data;
    if (status === 'active') await this.attribute(projectId, externalAccountId);
  }

  private async attribute(projectId: string, externalAccountId: string): Promise<void> {
    let account: ExternalAccountView;
    try {
      account = await this.accounts.externalAccount(projectId, externalAccountId);
    } catch (error) {
      if (error instanceof ApiError && error.errorName === 'ExternalAccountNotFound') return; // deleted since
      throw error;
    }
    if (account.type !== 'walletExternal' || account.status !== 'active') return;
    const { address, network } = account.details as { address: string; network: string };
    await runCommand(this.uow, async () => {
      await this.readModel.lockCustomer(projectId, account.customerId);
      const held = await this.readModel.heldForSender(projectId, account.customerId, network, address);
      const at = (await this.clock.now(projectId)).toISOString();
      for (const deposit of held) {
        const history = await this.store.lockAndReadStream(depositAddressStreamId(deposit.deposit_address_id));
        const state = requireDepositAddress(
          fold(depositAddressDecider, history as unknown as DepositAddressEvent[]),
          projectId,
        );
        // Past its deadline the transaction has failed (attributionTimeout), or is about to: nothing to clear.
        if (deposit.attribution_deadline && Date.parse(at) >= new Date(deposit.attribution_deadline).getTime()) {
          await this.readModel.setHeld([deposit.transaction_id], null);
          continue;
        }
        // The deposit's stream holds its arrival alone until now (the read model holds it for its sender): its
        // attribution is its second event, not read first.
        const { events } = await this.deposits.handle(
          projectId,
          deposit.transaction_id,
          {
            type: 'AttributeSender',
            address: state,
            deposit: { transactionId: deposit.transaction_id, amount: deposit.amount },
            account,
            rate: usdcRate(this.prices, state.destination.instrument.asset),
            at,
          },
          { read: { events: [], version: 1 } },
        );
        const data = events[0].data as DepositAddressSenderAttributed;
        await this.readModel.setHeld([deposit.transaction_id], data.destinationMissing ? 'destination' : null);
      }
    });
  }
}
