// What the transactions read model answers: a project's transactions (spec: Transaction), any project's for
// the operator (spec: Operator-only), and the transactions port's questions about deposits' transactions.
import { Injectable } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { isId } from '@mm/platform/ids';
import { TransactionsReadModel, type TransactionFilter, type TransactionRow } from '@mm/transactions/infrastructure';

@Injectable()
export class TransactionQueries {
  constructor(private readonly readModel: TransactionsReadModel) {}

  async require(projectId: string, id: string): Promise<TransactionRow> {
    requireTransactionId(id);
    const row = await this.readModel.get(projectId, id);
    if (!row) throw new ApiError('TransactionNotFound');
    return row;
  }

  /** Operator routes (spec: Operator-only): any project's transaction, by id. */
  async requireAny(id: string): Promise<TransactionRow> {
    requireTransactionId(id);
    const row = await this.readModel.getById(id);
    if (!row) throw new ApiError('TransactionNotFound');
    return row;
  }

  /** Any project's transaction by id, or undefined: what an operator acted on, for the audit log. */
  async findAny(id: string): Promise<TransactionRow | undefined> {
    return (await this.readModel.getById(id)) ?? undefined;
  }

  list(projectId: string, filter: TransactionFilter): Promise<TransactionRow[]> {
    return this.readModel.list(projectId, filter);
  }

  /** The operator's queue of held transactions, across projects. */
  held(filter: { projectId?: string; before?: string; limit: number }): Promise<TransactionRow[]> {
    return this.readModel.held(filter);
  }

  /**
   * The transactions port: which of these still hold money or may still move it (a virtual account is not
   * deleted while any does): not made yet, processing, awaitingAction, or failed with the money held for
   * an operator's refund (failed.outboundFailed).
   */
  async unfinishedTransactions(projectId: string, transactionIds: string[]): Promise<string[]> {
    const ids = transactionIdsOf(transactionIds);
    const rows = new Map((await this.readModel.statuses(projectId, ids)).map((r) => [r.id, r]));
    return ids.filter((id) => {
      const row = rows.get(id);
      return (
        !row ||
        row.status === 'processing' ||
        row.status === 'awaitingAction' ||
        row.sub_status === 'failed.outboundFailed'
      );
    });
  }

  /**
   * The deposits of these (a deposit address's or a virtual account's) that wait for a payout destination: the
   * transactions port, asked by the origin when it is given a new destination (ADR 0056).
   */
  async heldForDestination(projectId: string, transactionIds: string[]): Promise<string[]> {
    const rows = await this.readModel.statuses(projectId, transactionIdsOf(transactionIds));
    return rows.filter((r) => r.sub_status === 'awaitingAction.payoutDestinationMissing').map((r) => r.id);
  }
}

function requireTransactionId(id: string): void {
  if (!isId('transaction', id))
    throw new ApiError('InvalidTransactionID', `"${id.slice(0, 64)}" is not a transaction id (txn_…)`);
}

function transactionIdsOf(transactionIds: string[]): string[] {
  return [...new Set(transactionIds.filter((id) => isId('transaction', id)))];
}
