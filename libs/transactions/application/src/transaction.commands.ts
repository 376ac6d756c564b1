// The transaction aggregate's command path (ARCHITECTURE: Inside one service): what follows each decision,
// in its transaction and in this order, is the read model as of the last event, the partner events, each
// with the transaction as it stood at its step (spec: Events, tie 5), and the rails' timers.
import { Injectable } from '@nestjs/common';
import { ProjectClock } from '@mm/platform/clock';
import { CommandHandler, loadState } from '@mm/platform/event-store';
import {
  existingTransaction,
  transactionDecider,
  transactionStreamId,
  type ExistingTransaction,
  type TransactionCommand,
  type TransactionEvent,
  type TransactionState,
} from '@mm/transactions/domain';
import { ChainPayoutRail, PaymentRails, RailSubmissions, TransactionsReadModel } from '@mm/transactions/infrastructure';
import { publishAnnouncements } from './transaction-partner-events.projection';
import { projectReadModel } from './transaction-read-model.projection';
import { scheduleRails } from './rail-submissions.step';
import { TransactionTimerService } from './transaction.timers';
import { TransactionsEventStore } from './transactions.event-store';

@Injectable()
export class TransactionCommands extends CommandHandler<TransactionCommand, TransactionEvent, TransactionState> {
  constructor(
    private readonly log: TransactionsEventStore,
    readModel: TransactionsReadModel,
    provider: PaymentRails,
    submissions: RailSubmissions,
    clock: ProjectClock,
    timers: TransactionTimerService,
    chain: ChainPayoutRail,
  ) {
    super(log, {
      decider: transactionDecider,
      streamId: transactionStreamId,
      then: [
        projectReadModel(readModel),
        publishAnnouncements(log),
        scheduleRails(clock, { chain, provider, submissions }, timers),
      ],
    });
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
