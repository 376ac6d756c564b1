import { Module } from '@nestjs/common';
import {
  AcceptQuoteHandler,
  CashPickupsService,
  QuoteCommands,
  QuotesMadeHere,
  QuotesService,
  QuotingEventStore,
} from '@mm/quoting/application';
import { CashPickupRepository, PriceProvider, QuotesReadModel, SandboxPriceProvider } from '@mm/quoting/infrastructure';
import { QuotesController, QuotesInternalController, QuotingEventsController } from './quotes.controller';

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
  ],
  // The quotes port is the runtime's to bind: in one process an adapter of this acceptance, else an HTTP client.
  exports: [AcceptQuoteHandler],
})
export class QuotingModule {}
