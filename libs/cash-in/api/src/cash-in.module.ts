import { Module } from '@nestjs/common';
import { CashInCommands, CashInEventStore, CashInsService, CashLocationsService } from '@mm/cash-in/application';
import {
  CashInPrices,
  CashInsReadModel,
  CashLocationsReadModel,
  RetailNetwork,
  SandboxCashInPrices,
  SandboxRetailNetwork,
} from '@mm/cash-in/infrastructure';
import { CashInsController, CashLocationsController, SandboxCashInsController } from './cash-ins.controller';

@Module({
  controllers: [CashInsController, SandboxCashInsController, CashLocationsController],
  providers: [
    CashInEventStore,
    CashInsReadModel,
    CashLocationsReadModel,
    // The sandbox simulates the retail cash network and prices usdc at 1.00; production binds real adapters here.
    { provide: RetailNetwork, useClass: SandboxRetailNetwork },
    { provide: CashInPrices, useClass: SandboxCashInPrices },
    CashInCommands,
    CashInsService,
    CashLocationsService,
  ],
})
export class CashInModule {}
