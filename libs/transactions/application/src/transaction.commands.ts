// The transaction aggregate's command path (ARCHITECTURE: Inside one service): what follows each decision,
// in its transaction and in this order, is the read model as of the last event, the partner events, each
// with the transaction as it stood at its step (spec: Events, tie 5), and the rails' timers.
import { Injectable } from '@nestjs/common';
import { ProjectClock } from '@mm/platform/clock';
import { UnitOfWork } from '@mm/platform/database';
import { CommandHandler, loadState, type AfterDecision, type ReadModelDefinition } from '@mm/platform/event-store';
import {
  existingTransaction,
  transactionDecider,
  transactionStreamId,
  type ExistingTransaction,
  type TransactionCommand,
  type TransactionEvent,
  type TransactionState,
} from '@mm/transactions/domain';
import {
  ChainPayoutRail,
  PaymentRails,
  RailSubmissions,
  TransactionStatusMetrics,
  TransactionsReadModel,
} from '@mm/transactions/infrastructure';
import { publishAnnouncements } from './transaction-partner-events.projection';
import { projectReadModel } from './transaction-read-model.projection';
import { scheduleRails } from './rail-submissions.step';
import { TransactionTimerService } from './transaction.timers';
import { TransactionsEventStore } from './transactions.event-store';

const ENDED: ReadonlySet<string> = new Set(['completed', 'failed']);

/** A transaction that this command ended is counted once the command has committed (mm_transactions_ended_total). */
function countEnds(
  uow: UnitOfWork,
  statuses: TransactionStatusMetrics,
): AfterDecision<TransactionEvent, TransactionState> {
  return async ({ before, state }) => {
    if (state.status === 'none' || !ENDED.has(state.status) || ENDED.has(before.status)) return;
    const { status, subStatus } = state;
    await uow.afterCommit(async () => statuses.ended(status, subStatus));
  };
}

@Injectable()
export class TransactionCommands extends CommandHandler<TransactionCommand, TransactionEvent, TransactionState> {
  /** What a rebuild from the log writes again (docs/kubernetes.md, Rebuilding a read model). */
  readonly readModels: ReadModelDefinition[];

  constructor(
    private readonly log: TransactionsEventStore,
    readModel: TransactionsReadModel,
    provider: PaymentRails,
    submissions: RailSubmissions,
    clock: ProjectClock,
    timers: TransactionTimerService,
    chain: ChainPayoutRail,
    statuses: TransactionStatusMetrics,
    uow: UnitOfWork,
  ) {
    const project = projectReadModel(readModel);
    super(log, {
      decider: transactionDecider,
      streamId: transactionStreamId,
      then: [
        project,
        publishAnnouncements(log),
        scheduleRails(clock, { chain, provider, submissions }, timers),
        countEnds(uow, statuses),
      ],
    });
    this.readModels = [this.readModel({ name: 'transactions', table: 'transactions.transactions', step: project })];
  }

  /** The transaction as its log has it now (outside the stream's lock), or none. */
  async current(transactionId: string): Promise<TransactionState> {
    return (
      (await loadState(this.log, transactionStreamId(transactionId), transactionDecider))?.state ??
      transactionDecider.initialState()
    );
  }

  /** The transaction as its log has it now; TransactionNotFound without one. */
  async load(transactionId: string): Promise<ExistingTransaction> {
    return existingTransaction(await this.current(transactionId));
  }

  /** Whether the transaction was made: its stream has an event (an index probe; no event is read). */
  exists(transactionId: string): Promise<boolean> {
    return this.log.streamExists(transactionStreamId(transactionId));
  }
}
