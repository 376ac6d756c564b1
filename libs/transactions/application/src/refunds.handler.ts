// A refund's money back at its source (spec: States / Transaction, processing.returningToSender).
import { Injectable } from '@nestjs/common';
import type { EventPayloads } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import type { RecordedEvent } from '@mm/platform/event-store';
import { isVirtualAccountTransaction } from '@mm/transactions/domain';
import { ChainPayoutRail } from '@mm/transactions/infrastructure';
import { TransactionCommands } from './transaction.commands';

@Injectable()
export class RefundsHandler {
  constructor(
    private readonly commands: TransactionCommands,
    private readonly clock: ProjectClock,
    private readonly chain: ChainPayoutRail,
  ) {}

  /** The accounts service returned a refund's money to the source wallet. */
  async onFundsReturned(event: RecordedEvent<'funds.returned', EventPayloads['funds.returned']>): Promise<void> {
    const d = event.data;
    const at = (await this.clock.now(d.projectId)).toISOString();
    // The refund leg in flight; with none (a repeat), the decider confirms nothing. A virtual account's refund
    // leaves over a bank rail, a return on a chain as a transfer: the bank or the chain, not the ledger's posting,
    // says when it arrived.
    await this.commands.handle(d.projectId, d.transactionId, (state) => {
      const leg =
        state.status === 'none' ? undefined : state.legs.find((l) => l.kind === 'refund' && l.status === 'pending');
      const elsewhere =
        state.status === 'none' ||
        isVirtualAccountTransaction(state.record) ||
        (leg !== undefined && this.chain.carries(state.record, leg));
      return { type: 'ConfirmRefund', legId: elsewhere ? '' : (leg?.id ?? ''), at };
    });
  }
}
