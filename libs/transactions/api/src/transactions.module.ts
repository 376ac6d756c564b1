import { Module } from '@nestjs/common';
import { TransactionsEventStore, TransactionsService } from '@mm/transactions/application';
import { PaymentRails, SandboxRails, TransactionLimitsRepository, TransactionsReadModel } from '@mm/transactions/infrastructure';
import { TransactionsPort } from '@mm/contracts';
import { TransactionsInternalController, TransactionsPortAdapter } from './transactions-port';
import { SandboxTransactionsController, TransactionsAdminController, TransactionsController, TransactionsEventsController } from './transactions.controllers';

@Module({
  controllers: [TransactionsController, SandboxTransactionsController, TransactionsAdminController, TransactionsEventsController, TransactionsInternalController],
  // The sandbox simulates every rail; production binds real adapters to PaymentRails.
  providers: [TransactionsEventStore, TransactionsReadModel, TransactionLimitsRepository, { provide: PaymentRails, useClass: SandboxRails }, TransactionsService, TransactionsPortAdapter, { provide: TransactionsPort, useExisting: TransactionsPortAdapter }],
  exports: [TransactionsPort],
})
export class TransactionsModule {}
