// Sandbox: the retail network reports a cash pickup (spec: rule 8; Events, tie 7).
import { Injectable } from '@nestjs/common';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import {
  existingTransaction,
  nextLegId,
  refundLeg,
  transactionView,
  type TransactionView,
} from '@mm/transactions/domain';
import { TransactionCommands } from './transaction.commands';
import { TransactionQueries } from './transaction.queries';

@Injectable()
export class CashPickupHandler {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: TransactionCommands,
    private readonly queries: TransactionQueries,
    private readonly clock: ProjectClock,
  ) {}

  /**
   * Collected, the payout leg settles and the transaction completes `completed.cashPickupCollected`; expired,
   * the money goes back to the source wallet (`processing.returningToSender`) and, once the accounts service
   * has credited it, the transaction completes `completed.cashPickupExpired`.
   */
  async simulateCashPickup(projectId: string, id: string, outcome: 'collected' | 'expired'): Promise<TransactionView> {
    await this.queries.require(projectId, id);
    return runCommand(this.uow, async () => {
      const at = (await this.clock.now(projectId)).toISOString();
      const { state } = await this.commands.handle(projectId, id, (current) => {
        const transaction = existingTransaction(current);
        return {
          type: 'ReportCashPickup',
          outcome,
          refundLeg: refundLeg(transaction.record, nextLegId(transaction)),
          at,
        };
      });
      return transactionView(existingTransaction(state));
    });
  }
}
