import { ApprovalCommands } from './approval.commands';
import { ApprovalDecisionsHandler } from './approval-decisions.handler';
import { ApprovalQueries } from './approval.queries';
import { CashPickupHandler } from './cash-pickup.handler';
import { ChainPayoutAnswersHandler } from './chain-payout-answers.handler';
import { CreateTransactionHandler } from './create-transaction.handler';
import { DepositTransactionsHandler } from './deposit-transactions.handler';
import { FourEyes } from './four-eyes';
import { HoldsHandler } from './holds.handler';
import { LegAccountChecks } from './leg-account-checks';
import { MadeTransactions } from './made-transactions';
import { OperatorActionsHandler } from './operator-actions.handler';
import { RailAnswersHandler } from './rail-answers.handler';
import { RefundsHandler } from './refunds.handler';
import { ReviewDecisionHandler } from './review-decision.handler';
import { TransactionCommands } from './transaction.commands';
import { TransactionQueries } from './transaction.queries';
import { TransactionTimerService } from './transaction.timers';
import { TransactionsEventStore } from './transactions.event-store';
import { UnconfirmedPayoutLookup } from './unconfirmed-payout-lookup';

/** The transactions application layer: its command path, its use cases and its queries. */
export const TRANSACTIONS_APPLICATION = [
  TransactionsEventStore,
  TransactionCommands,
  TransactionTimerService,
  TransactionQueries,
  LegAccountChecks,
  MadeTransactions,
  UnconfirmedPayoutLookup,
  CreateTransactionHandler,
  RailAnswersHandler,
  ChainPayoutAnswersHandler,
  ReviewDecisionHandler,
  OperatorActionsHandler,
  CashPickupHandler,
  DepositTransactionsHandler,
  HoldsHandler,
  RefundsHandler,
  ApprovalCommands,
  ApprovalQueries,
  ApprovalDecisionsHandler,
  FourEyes,
];
