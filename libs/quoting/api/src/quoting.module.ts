import { Module } from '@nestjs/common';
import { QuotesPort } from '@mm/contracts';
import {
  AcceptQuoteHandler,
  CashPickupsService,
  QuoteCommands,
  QuotesMadeHere,
  QuotesService,
  QuotingEventStore,
} from '@mm/quoting/application';
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
    QuotesMadeHere,
    QuotesService,
    AcceptQuoteHandler,
    { provide: QuotesPort, useExisting: AcceptQuoteHandler },
  ],
  // In one process the transactions service calls the quotes port directly.
  exports: [QuotesPort],
})
export class QuotingModule {}
