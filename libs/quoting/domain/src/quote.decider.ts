// A quote (spec: States / Quote): open with its pricing locked, then accepted
// by exactly one transaction before it expires, or expired: past expiresAt on
// the project's clock it reads as expired and cannot be accepted.
import { ApiError, type EventPayloads, type QuoteRecord, type TypedEvent } from '@mm/contracts';
import type { Decider } from '@mm/platform/decider';

export type QuoteEvent = TypedEvent<'quote.created' | 'quote.accepted' | 'quote.released'>;
export type QuoteStatus = 'open' | 'accepted' | 'expired';

export type QuoteCommand =
  | { type: 'CreateQuote'; quote: QuoteRecord }
  | { type: 'AcceptQuote'; projectId: string; transactionId: string; at: string }
  | { type: 'ReleaseQuote'; projectId: string; transactionId: string; at: string };

export type QuoteState =
  | { status: 'none' }
  | { status: QuoteStatus; quote: QuoteRecord; transactionId: string | null; updatedAt: string };

function event<T extends QuoteEvent['type']>(type: T, data: EventPayloads[T]): QuoteEvent {
  return { type, data } as QuoteEvent;
}

function evolve(state: QuoteState, e: QuoteEvent): QuoteState {
  switch (e.type) {
    case 'quote.created':
      return { status: 'open', quote: e.data, transactionId: null, updatedAt: e.data.createdAt };
    case 'quote.accepted':
      return state.status === 'none' ? state : { ...state, status: 'accepted', transactionId: e.data.transactionId, updatedAt: e.data.at };
    case 'quote.released':
      return state.status === 'none' ? state : { ...state, status: 'open', transactionId: null, updatedAt: e.data.at };
  }
}

function decide(command: QuoteCommand, state: QuoteState): QuoteEvent[] {
  if (command.type === 'CreateQuote') {
    if (state.status !== 'none') return [];
    return [event('quote.created', command.quote)];
  }
  // Another project's quote is no quote of this one.
  if (state.status === 'none' || state.quote.projectId !== command.projectId) throw new ApiError('QuoteNotFound');
  const { quoteId, projectId, expiresAt } = state.quote;
  if (command.type === 'ReleaseQuote') {
    if (state.status !== 'accepted' || state.transactionId !== command.transactionId) return [];
    return [event('quote.released', { quoteId, projectId, transactionId: command.transactionId, at: command.at })];
  }
  if (state.status === 'accepted') {
    if (state.transactionId === command.transactionId) return [];
    throw new ApiError('QuoteAlreadyAccepted', `quote ${quoteId} was accepted by transaction ${state.transactionId}`);
  }
  if (state.status === 'expired' || Date.parse(command.at) >= Date.parse(expiresAt)) {
    throw new ApiError('QuoteExpired', `quote ${quoteId} expired at ${expiresAt}; create a new quote`);
  }
  return [event('quote.accepted', { quoteId, projectId, transactionId: command.transactionId, at: command.at })];
}

export const quoteDecider: Decider<QuoteCommand, QuoteEvent, QuoteState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const quoteStreamId = (quoteId: string) => `quote-${quoteId}`;
