import { Module, type OnModuleInit } from '@nestjs/common';
import { ReadModels } from '@mm/platform/event-store';
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
export class CashInModule implements OnModuleInit {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: CashInEventStore,
    private readonly commands: CashInCommands,
  ) {}

  /** Its read models, for a rebuild from its log (docs/kubernetes.md, Rebuilding a read model). */
  onModuleInit(): void {
    this.readModels.register({ service: 'cash-in', store: this.log, readModels: this.commands.readModels });
  }
}
