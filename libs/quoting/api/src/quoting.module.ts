import { Module, type OnModuleInit } from '@nestjs/common';
import { ReadModels } from '@mm/platform/event-store';
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
export class QuotingModule implements OnModuleInit {
  constructor(
    private readonly readModels: ReadModels,
    private readonly log: QuotingEventStore,
    private readonly commands: QuoteCommands,
  ) {}

  /** Its read models, for a rebuild from its log (docs/kubernetes.md, Rebuilding a read model). */
  onModuleInit(): void {
    this.readModels.register({ service: 'quoting', store: this.log, readModels: this.commands.readModels });
  }
}
