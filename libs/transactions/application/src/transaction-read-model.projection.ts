// The transactions read model (spec: Transaction, current shape): the partner shape of the transaction as of
// a command's last event, written in the command's transaction so that a GET right after it sees it.
import type { AfterDecision } from '@mm/platform/event-store';
import {
  existingTransaction,
  transactionView,
  type TransactionEvent,
  type TransactionState,
} from '@mm/transactions/domain';
import type { TransactionsReadModel } from '@mm/transactions/infrastructure';

export function projectReadModel(readModel: TransactionsReadModel): AfterDecision<TransactionEvent, TransactionState> {
  return async ({ state, version }, { projectId }) => {
    const transaction = existingTransaction(state);
    await readModel.upsert(projectId, transaction.record.customerIds, transactionView(transaction), version);
  };
}
