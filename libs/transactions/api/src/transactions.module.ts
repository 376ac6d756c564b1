import { Module, type OnModuleInit } from '@nestjs/common';
import { ReadModels } from '@mm/platform/event-store';
import { TRANSACTIONS_APPLICATION, TransactionCommands, TransactionsEventStore } from '@mm/transactions/application';
import {
  ChainPayoutRail,
  HeldQueueMetrics,
  PaymentRails,
  TransactionStatusMetrics,
  RailSubmissions,
  SandboxRails,
  TransactionLimitsRepository,
  TransactionsReadModel,
  ApprovalsReadModel,
} from '@mm/transactions/infrastructure';
import { TransactionsPort } from '@mm/contracts';
import { TransactionsInternalController, TransactionsPortAdapter } from './transactions.port';
import { ApprovalsAdminController } from './approvals.controller';
import {
  SandboxTransactionsController,
  TransactionsAdminController,
  TransactionsController,
  TransactionsEventsController,
} from './transactions.controller';

@Module({
  controllers: [
    TransactionsController,
    SandboxTransactionsController,
    TransactionsAdminController,
    TransactionsEventsController,
    TransactionsInternalController,
    ApprovalsAdminController,
  ],
  // Crypto payouts to external wallets on a network on a chain go on the chain; the sandbox's provider simulates
  // every other rail, behind the port a real provider's adapter would take (PaymentRails).
  providers: [
    ...TRANSACTIONS_APPLICATION,
    TransactionsReadModel,
    ApprovalsReadModel,
    TransactionLimitsRepository,
    ChainPayoutRail,
    HeldQueueMetrics,
    TransactionStatusMetrics,
    RailSubmissions,
    { provide: PaymentRails, useClass: SandboxRails },
    TransactionsPortAdapter,
    { provide: TransactionsPort, useExisting: TransactionsPortAdapter },
  ],
  exports: [TransactionsPort],
})
export class TransactionsModule implements OnModuleInit {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: TransactionsEventStore,
    private readonly commands: TransactionCommands,
  ) {}

  /** Its read models, for a rebuild from its log (docs/kubernetes.md, Rebuilding a read model). */
  onModuleInit(): void {
    this.readModels.register({ service: 'transactions', store: this.log, readModels: this.commands.readModels });
  }
}
