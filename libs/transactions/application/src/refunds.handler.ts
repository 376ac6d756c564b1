// A refund's money back at its source (spec: States / Transaction, processing.returningToSender).
import { Injectable } from '@nestjs/common';
import type { EventPayloads } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import type { RecordedEvent } from '@mm/platform/event-store';
import { isVirtualAccountTransaction } from '@mm/transactions/domain';
import { TransactionCommands } from './transaction.commands';

@Injectable()
export class RefundsHandler {
  constructor(
    private readonly commands: TransactionCommands,
    private readonly clock: ProjectClock,
  ) {}

  /** The accounts service returned a refund's money to the source wallet. */
  async onFundsReturned(event: RecordedEvent<'funds.returned', EventPayloads['funds.returned']>): Promise<void> {
    const d = event.data;
    const at = (await this.clock.now(d.projectId)).toISOString();
    // The refund leg in flight; with none (a repeat), the decider confirms nothing. A virtual account's refund
    // leaves over a bank rail: the bank, not the ledger's posting, says when it arrived.
    await this.commands.handle(d.projectId, d.transactionId, (state) => ({
      type: 'ConfirmRefund',
      legId:
        state.status === 'none' || isVirtualAccountTransaction(state.record)
          ? ''
          : (state.legs.find((l) => l.kind === 'refund' && l.status === 'pending')?.id ?? ''),
      at,
    }));
  }
}
