// A quote (spec: States / Quote): open with its pricing locked, then accepted
// by exactly one transaction before it expires, or expired: past expiresAt on
// the project's clock it reads as expired and cannot be accepted.
import { ApiError, type EventPayloads, type QuoteRecord, type TypedEvent } from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type QuoteEvent = TypedEvent<'quote.created' | 'quote.accepted' | 'quote.released'>;
export type QuoteStatus = 'open' | 'accepted' | 'expired';

export type QuoteCommand =
  | { type: 'CreateQuote'; quote: QuoteRecord }
  | { type: 'AcceptQuote'; projectId: string; transactionId: string; at: string }
  | { type: 'ReleaseQuote'; projectId: string; transactionId: string; at: string };

/** Expiry is not a state of the stream: an open quote reads as expired from expiresAt on the project's clock. */
export type QuoteState =
  | { status: 'none' }
  | { status: 'open'; quote: QuoteRecord; transactionId: null; updatedAt: string }
  | { status: 'accepted'; quote: QuoteRecord; transactionId: string; updatedAt: string };

function event<T extends QuoteEvent['type']>(type: T, data: EventPayloads[T]): QuoteEvent {
  return { type, data } as QuoteEvent;
}

export type ExistingQuote = Exclude<QuoteState, { status: 'none' }>;

function evolve(state: QuoteState, e: QuoteEvent): QuoteState {
  switch (e.type) {
    case 'quote.created':
      return { status: 'open', quote: e.data, transactionId: null, updatedAt: e.data.createdAt };
    case 'quote.accepted':
      return state.status === 'none'
        ? state
        : { ...state, status: 'accepted', transactionId: e.data.transactionId, updatedAt: e.data.at };
    case 'quote.released':
      return state.status === 'none' ? state : { ...state, status: 'open', transactionId: null, updatedAt: e.data.at };
    default:
      return unknownEvent(e, state);
  }
}

type CommandOf<T extends QuoteCommand['type']> = Extract<QuoteCommand, { type: T }>;

function createQuote(command: CommandOf<'CreateQuote'>, state: QuoteState): QuoteEvent[] {
  if (state.status !== 'none') return [];
  return [event('quote.created', command.quote)];
}

/** Exactly one transaction accepts a quote, before it expires on the project's clock (spec: States / Quote). */
function acceptQuote(command: CommandOf<'AcceptQuote'>, state: ExistingQuote): QuoteEvent[] {
  const { quoteId, projectId, expiresAt } = state.quote;
  if (state.status === 'accepted') {
    if (state.transactionId === command.transactionId) return [];
    throw new ApiError('QuoteAlreadyAccepted', `quote ${quoteId} was accepted by transaction ${state.transactionId}`);
  }
  if (Date.parse(command.at) >= Date.parse(expiresAt)) {
    throw new ApiError('QuoteExpired', `quote ${quoteId} expired at ${expiresAt}; create a new quote`);
  }
  return [event('quote.accepted', { quoteId, projectId, transactionId: command.transactionId, at: command.at })];
}

/** The accepting transaction was refused after all: open again until it expires. */
function releaseQuote(command: CommandOf<'ReleaseQuote'>, state: ExistingQuote): QuoteEvent[] {
  if (state.status !== 'accepted' || state.transactionId !== command.transactionId) return [];
  const { quoteId, projectId } = state.quote;
  return [event('quote.released', { quoteId, projectId, transactionId: command.transactionId, at: command.at })];
}

/** Another project's quote is no quote of this one. */
function requireQuote(state: QuoteState, projectId: string): ExistingQuote {
  if (state.status === 'none' || state.quote.projectId !== projectId) throw new ApiError('QuoteNotFound');
  return state;
}

function decide(command: QuoteCommand, state: QuoteState): QuoteEvent[] {
  switch (command.type) {
    case 'CreateQuote':
      return createQuote(command, state);
    case 'AcceptQuote':
      return acceptQuote(command, requireQuote(state, command.projectId));
    case 'ReleaseQuote':
      return releaseQuote(command, requireQuote(state, command.projectId));
    default:
      return unknownCommand(command);
  }
}

export const quoteDecider: Decider<QuoteCommand, QuoteEvent, QuoteState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const quoteStreamId = (quoteId: string) => `quote-${quoteId}`;
