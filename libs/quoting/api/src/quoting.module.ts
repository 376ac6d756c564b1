import { Module } from '@nestjs/common';
import { QuotesPort } from '@mm/contracts';
import { CashPickupsService, QuoteCommands, QuotesService, QuotingEventStore } from '@mm/quoting/application';
import { CashPickupRepository, PriceProvider, QuotesReadModel, SandboxPriceProvider } from '@mm/quoting/infrastructure';
import { QuotesController, QuotesInternalController, QuotingEventsController } from './quotes.controllers';

@Module({
  controllers: [QuotesController, QuotesInternalController, QuotingEventsController],
  providers: [
    QuotingEventStore,
    QuotesReadModel,
    CashPickupRepository,
    { provide: PriceProvider, useClass: SandboxPriceProvider },
    CashPickupsService,
    QuoteCommands,
    QuotesService,
    { provide: QuotesPort, useExisting: QuotesService },
  ],
  // In one process the transactions service calls the quotes port directly.
  exports: [QuotesPort],
})
export class QuotingModule {}
