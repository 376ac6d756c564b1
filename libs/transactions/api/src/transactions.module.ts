import { Module } from '@nestjs/common';
import { TRANSACTIONS_APPLICATION } from '@mm/transactions/application';
import {
  ChainPayoutRail,
  PaymentRails,
  RailSubmissions,
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
  // Crypto payouts to external wallets on a network on a chain go on the chain; the sandbox's provider simulates
  // every other rail, behind the port a real provider's adapter would take (PaymentRails).
  providers: [
    ...TRANSACTIONS_APPLICATION,
    TransactionsReadModel,
    TransactionLimitsRepository,
    ChainPayoutRail,
    RailSubmissions,
    { provide: PaymentRails, useClass: SandboxRails },
    TransactionsPortAdapter,
    { provide: TransactionsPort, useExisting: TransactionsPortAdapter },
  ],
  exports: [TransactionsPort],
})
export class TransactionsModule {}
