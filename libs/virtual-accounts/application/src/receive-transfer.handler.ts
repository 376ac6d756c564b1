// Sandbox: an inbound bank transfer reaches a virtual account (spec: Virtual account; Transaction; ADR 0032;
// docs/sandbox.md, "Virtual accounts"). Decided under the account's stream lock (which a DELETE takes),
// recorded in its own stream with the read model in the same transaction, then handed to the transactions
// service (the port) once committed.
import { Injectable, Logger } from '@nestjs/common';
import { requireAmount, TransactionsPort, type InboundRail, type VirtualAccountDepositReceived } from '@mm/contracts';
import {
  destinationAsset,
  requireProvisioned,
  virtualAccountDecider,
  virtualAccountStreamId,
  type VirtualAccountEvent,
} from '@mm/virtual-accounts/domain';
import {
  VirtualAccountBank,
  VirtualAccountPrices,
  VirtualAccountsReadModel,
} from '@mm/virtual-accounts/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { fold } from '@mm/platform/decider';
import { runCommand } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { inboundRail, requireVirtualAccountId, usdRate, VirtualAccountQueries } from './virtual-account.queries';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';
import { DepositCommands } from './deposit.commands';

/** POST /virtual-accounts/{id}/simulate/inbound-transfer's answer. */
export interface VirtualAccountDepositView {
  object: 'virtualAccountDeposit';
  virtualAccountId: string;
  amount: string;
  asset: 'usd';
  rail: InboundRail;
  senderName: string | null;
  reference: string;
  transactionId: string;
}

@Injectable()
export class ReceiveTransferHandler {
  private readonly logger = new Logger('virtual-accounts');

  constructor(
    private readonly uow: UnitOfWork,
    private readonly store: VirtualAccountsEventStore,
    private readonly deposits: DepositCommands,
    private readonly queries: VirtualAccountQueries,
    private readonly readModel: VirtualAccountsReadModel,
    private readonly transactions: TransactionsPort,
    private readonly bank: VirtualAccountBank,
    private readonly prices: VirtualAccountPrices,
    private readonly clock: ProjectClock,
  ) {}

  async deposit(
    projectId: string,
    id: string,
    input: { amount: string; rail?: string; senderName?: string },
  ): Promise<VirtualAccountDepositView> {
    const rail = inboundRail(input.rail ?? 'ach', 'rail');
    requireAmount(input.amount, 'amount', { asset: 'usd' });
    requireVirtualAccountId(id);
    const received = await runCommand(this.uow, async () => {
      // The account's row (a 404 for one this project does not have) and its history under its lock, in one
      // round trip; the row's refusal first.
      const [account, locked] = await Promise.allSettled([
        this.queries.row(projectId, id),
        this.store.lockAndReadStream(virtualAccountStreamId(id)),
      ]);
      if (account.status === 'rejected') throw account.reason;
      if (locked.status === 'rejected') throw locked.reason;
      const history = locked.value;
      const state = fold(virtualAccountDecider, history as unknown as VirtualAccountEvent[]);
      const now = await this.clock.now(projectId);
      const existing = requireProvisioned(state, projectId);
      const transactionId = newId('transaction');
      // A stream of the transaction id minted above: its first event travels with the commit.
      const { events } = await this.deposits.handle(
        projectId,
        transactionId,
        {
          type: 'ReceiveTransfer',
          account: state,
          transfer: {
            projectId,
            transactionId,
            amount: input.amount,
            rail,
            senderName: input.senderName ?? null,
            reference: this.bank.inboundReference(rail, now),
            rate: usdRate(this.prices, destinationAsset(existing)),
            at: now.toISOString(),
          },
        },
        { newStream: true, deferAppend: true },
      );
      const data = events[0].data as VirtualAccountDepositReceived;
      await this.readModel.recordDeposit({
        transactionId: data.transactionId,
        projectId,
        customerId: data.customerId,
        virtualAccountId: id,
        amount: data.deposit.amount,
        rail,
        reference: data.deposit.reference,
        disposition: data.disposition,
        at: data.at,
      });
      // Once the deposit is committed (the record the transactions service would make it from anyway),
      // before the answer: the transaction exists when its id is announced.
      await this.uow.afterCommit(() => this.createTransaction(projectId, data));
      return data;
    });
    return {
      object: 'virtualAccountDeposit',
      virtualAccountId: id,
      amount: received.deposit.amount,
      asset: 'usd',
      rail: received.deposit.rail,
      senderName: received.deposit.senderName,
      reference: received.deposit.reference,
      transactionId: received.transactionId,
    };
  }

  private async createTransaction(projectId: string, data: VirtualAccountDepositReceived): Promise<void> {
    try {
      await this.transactions.createForVirtualAccount(projectId, data);
    } catch (error) {
      // The deposit is committed: the transactions service makes the transaction from its event in our log.
      this.logger.warn(
        `deposit ${data.transactionId} to ${data.virtualAccountId}: the transactions service did not take it at once (${error instanceof Error ? error.message : String(error)}); it follows from the log`,
      );
    }
  }
}
