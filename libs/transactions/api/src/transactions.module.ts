import { Module } from '@nestjs/common';
import { TRANSACTIONS_APPLICATION } from '@mm/transactions/application';
import {
  PaymentRails,
  SandboxRails,
  TransactionLimitsRepository,
  TransactionsReadModel,
} from '@mm/transactions/infrastructure';
import { TransactionsPort } from '@mm/contracts';
import { TransactionsInternalController, TransactionsPortAdapter } from './transactions.port';
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
  ],
  // The sandbox simulates every rail; production binds real adapters to PaymentRails.
  providers: [
    ...TRANSACTIONS_APPLICATION,
    TransactionsReadModel,
    TransactionLimitsRepository,
    { provide: PaymentRails, useClass: SandboxRails },
    TransactionsPortAdapter,
    { provide: TransactionsPort, useExisting: TransactionsPortAdapter },
  ],
  exports: [TransactionsPort],
})
export class TransactionsModule {}
