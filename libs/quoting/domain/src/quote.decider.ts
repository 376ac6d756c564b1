// A quote (spec: States / Quote): open with its pricing locked, then accepted
// by exactly one transaction before it expires, or expired.
import { ApiError, type EventPayloads, type QuoteRecord, type TypedEvent } from '@mm/contracts';
import type { Decider } from '@mm/platform/decider';

export type QuoteEvent = TypedEvent<'quote.created' | 'quote.accepted' | 'quote.expired' | 'quote.released'>;
export type QuoteStatus = 'open' | 'accepted' | 'expired';

export type QuoteCommand =
  | { type: 'CreateQuote'; quote: QuoteRecord }
  | { type: 'AcceptQuote'; transactionId: string; at: string }
  | { type: 'ExpireQuote'; at: string }
  | { type: 'ReleaseQuote'; transactionId: string; at: string };

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
    case 'quote.expired':
      return state.status === 'none' ? state : { ...state, status: 'expired', updatedAt: e.data.at };
    case 'quote.released':
      return state.status === 'none' ? state : { ...state, status: 'open', transactionId: null, updatedAt: e.data.at };
  }
}

function decide(command: QuoteCommand, state: QuoteState): QuoteEvent[] {
  if (command.type === 'CreateQuote') {
    if (state.status !== 'none') return [];
    return [event('quote.created', command.quote)];
  }
  if (state.status === 'none') throw new ApiError('QuoteNotFound');
  const { quoteId, projectId, expiresAt } = state.quote;
  if (command.type === 'ExpireQuote') {
    // Only an open quote expires, and only once its time has come.
    if (state.status !== 'open' || Date.parse(command.at) < Date.parse(expiresAt)) return [];
    return [event('quote.expired', { quoteId, projectId, at: command.at })];
  }
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
