// The quote aggregate's command path (ARCHITECTURE: Inside one service): each new event projected into the
// quote read model (the row a use case answers with). Every append to a quote's stream is deferred (it travels
// with the transaction's next statement): a new quote's as its first events, the others after its history read
// under the stream's lock, which every command on a quote takes; the projections need only the events' data
// and versions.
import { Injectable } from '@nestjs/common';
import { quoteDecider, quoteStreamId, type QuoteCommand, type QuoteEvent, type QuoteState } from '@mm/quoting/domain';
import { QuotesReadModel, type QuoteRow } from '@mm/quoting/infrastructure';
import { CommandHandler, type ReadModelDefinition, type RecordedEvent } from '@mm/platform/event-store';
import { QuotingEventStore } from './quoting.event-store';

@Injectable()
export class QuoteCommands extends CommandHandler<QuoteCommand, QuoteEvent, QuoteState, QuoteRow> {
  /** What a rebuild from the log writes again (docs/kubernetes.md, Rebuilding a read model). */
  readonly readModels: ReadModelDefinition[];

  constructor(store: QuotingEventStore, quotes: QuotesReadModel) {
    super(store, {
      decider: quoteDecider,
      streamId: quoteStreamId,
      project: (event) => projectQuote(quotes, event),
      options: { deferAppend: true },
    });
    this.readModels = [this.readModel({ name: 'quotes', table: 'quoting.quotes', inline: true })];
  }
}

function projectQuote(quotes: QuotesReadModel, event: RecordedEvent & QuoteEvent): Promise<QuoteRow | void> {
  switch (event.type) {
    case 'quote.created':
      return quotes.insert(event.data, event.streamVersion);
    case 'quote.accepted':
      return quotes.setStatus(
        event.data.projectId,
        event.data.quoteId,
        'accepted',
        event.data.transactionId,
        event.streamVersion,
        event.data.at,
      );
    case 'quote.released':
      return quotes.reopen(event.data.projectId, event.data.quoteId, event.streamVersion, event.data.at);
  }
}
