// The quotes this process made lately, as their acceptance can use them before reading the quote: their
// instruments never change, so an acceptance in this process can send the reads it and its caller will need
// with the quote's own (one round trip less).
import { Injectable } from '@nestjs/common';
import { sideExternalAccountId, type QuoteRecord, type QuoteSide } from '@mm/contracts';

/** How many quotes made here a process keeps the outline of. */
const QUOTES_MADE_HERE = 10_000;

/** Where a quote's money comes from: what a caller's reads beside its acceptance need of it. */
export type QuoteSource = Pick<QuoteSide, 'type' | 'details'>;

/** What the acceptance of a quote made in this process can ask before reading the quote. */
export interface MadeHere {
  projectId: string;
  source: QuoteSource;
  /** The external accounts the acceptance checks again, source first. */
  accountIds: string[];
}

@Injectable()
export class QuotesMadeHere {
  private readonly made = new Map<string, MadeHere>();

  /** A quote this process made, from its commit on; the oldest is forgotten first. */
  remember(quote: QuoteRecord): void {
    if (this.made.size >= QUOTES_MADE_HERE) this.made.delete(this.made.keys().next().value!);
    this.made.set(quote.quoteId, {
      projectId: quote.projectId,
      source: { type: quote.source.type, details: quote.source.details },
      accountIds: [quote.source, quote.destination].flatMap((side) => sideExternalAccountId(side) ?? []),
    });
  }

  /** The quote of this project this process made, if it remembers it. */
  get(projectId: string, quoteId: string): MadeHere | undefined {
    const made = this.made.get(quoteId);
    return made?.projectId === projectId ? made : undefined;
  }
}
