import { Module } from '@nestjs/common';
import { QuotesPort } from '@mm/contracts';
import { QuotesService, QuotingEventStore } from '@mm/quoting/application';
import { PriceProvider, QuotesReadModel, SandboxPriceProvider } from '@mm/quoting/infrastructure';
import { QuotesController, QuotesInternalController } from './quotes.controllers';

@Module({
  controllers: [QuotesController, QuotesInternalController],
  providers: [QuotingEventStore, QuotesReadModel, { provide: PriceProvider, useClass: SandboxPriceProvider }, QuotesService, { provide: QuotesPort, useExisting: QuotesService }],
  // In one process the transactions service calls the quotes port directly.
  exports: [QuotesPort],
})
export class QuotingModule {}
