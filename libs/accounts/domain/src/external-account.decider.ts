// An external account (spec: External account; States/External account;
// Events, operation to event tie 2). Created `pending`; `active` when
// provisioning completes, `failed` when the provider rejects, screening hits or
// provisioning times out; `invalid` from any status, and a card that is still
// usable when its expiry month ends becomes `invalid` with `card_expired`;
// deleted softly. Only
// `label` and `metadata` change after creation: financial details are immutable.
import {
  ApiError,
  type EventPayloads,
  type ExternalAccountFailure,
  type ExternalAccountStatus,
  type TypedEvent,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type ExternalAccountEvent = TypedEvent<
  | 'externalAccount.created'
  | 'externalAccount.statusChanged'
  | 'externalAccount.verified'
  | 'externalAccount.declined'
  | 'externalAccount.updated'
  | 'externalAccount.deleted'
>;

/** The created event's payload, its `type` (the instrument's) named instrumentType beside the command's own type. */
type Registration = Omit<EventPayloads['externalAccount.created'], 'createdAt' | 'type'> & {
  instrumentType: EventPayloads['externalAccount.created']['type'];
};

export type ExternalAccountCommand =
  | ({ type: 'RegisterExternalAccount'; at: string } & Registration)
  | { type: 'CompleteProvisioning'; at: string }
  | { type: 'FailProvisioning'; failure: ExternalAccountFailure; at: string }
  | { type: 'InvalidateExternalAccount'; failure: ExternalAccountFailure; at: string }
  /** The card's expiry month ended on the project clock (the card expiry timer). */
  | { type: 'ExpireCard'; at: string }
  | {
      type: 'UpdateExternalAccount';
      label?: string | null;
      metadata?: Record<string, string | null> | null;
      at: string;
    }
  | { type: 'DeleteExternalAccount'; at: string };

export type ExternalAccountState =
  | { status: 'none' }
  | {
      status: ExternalAccountStatus;
      externalAccountId: string;
      projectId: string;
      /** A card's expiry (month 1 to 12, year); null for other instruments. */
      cardExpiry: { month: number; year: number } | null;
      label: string | null;
      metadata: Record<string, string>;
      failure: ExternalAccountFailure | null;
      deleted: boolean;
    };

type CardDetails = Extract<EventPayloads['externalAccount.created']['details'], { expiryMonth: number }>;

/** The failure code of a card whose expiry month has ended. */
export const CARD_EXPIRED = 'card_expired';

/**
 * When a card lapses: it is valid through the last day of its expiry month (UTC), so it expires at the first
 * instant of the next month.
 */
export function cardExpiresAt(expiry: { month: number; year: number }): Date {
  return new Date(Date.UTC(expiry.year, expiry.month, 1));
}

/** Stripe's metadata limits: enough for partners' references, bounded for storage. */
export const METADATA_MAX_KEYS = 50;

export type ExistingExternalAccount = Exclude<ExternalAccountState, { status: 'none' }>;

function evolve(state: ExternalAccountState, event: ExternalAccountEvent): ExternalAccountState {
  switch (event.type) {
    case 'externalAccount.created': {
      const d = event.data;
      const cardExpiry =
        d.type === 'card'
          ? { month: (d.details as CardDetails).expiryMonth, year: (d.details as CardDetails).expiryYear }
          : null;
      return {
        status: 'pending',
        externalAccountId: d.externalAccountId,
        projectId: d.projectId,
        cardExpiry,
        label: d.label,
        metadata: d.metadata,
        failure: null,
        deleted: false,
      };
    }
    case 'externalAccount.statusChanged':
      return state.status === 'none' ? state : { ...state, status: event.data.status, failure: event.data.failure };
    case 'externalAccount.updated':
      return state.status === 'none'
        ? state
        : {
            ...state,
            label: event.data.label !== undefined ? event.data.label : state.label,
            metadata: event.data.metadata ?? state.metadata,
            failure: event.data.failure !== undefined ? event.data.failure : state.failure,
          };
    case 'externalAccount.deleted':
      return state.status === 'none' ? state : { ...state, deleted: true };
    case 'externalAccount.verified':
    case 'externalAccount.declined':
      return state;
    default:
      return unknownEvent(event, state);
  }
}

function event<T extends ExternalAccountEvent['type']>(type: T, data: EventPayloads[T]): ExternalAccountEvent {
  return { type, data } as ExternalAccountEvent;
}

function sameFailure(a: ExternalAccountFailure | null, b: ExternalAccountFailure | null): boolean {
  return a?.code === b?.code && a?.message === b?.message;
}

/**
 * Merges a metadata patch, as Stripe does: a key set to null or "" is removed, and a patch that is null
 * itself removes every key, as every PATCH of the API reads null (docs/sandbox.md, "Changing a resource").
 */
export function mergeMetadata(
  current: Record<string, string>,
  patch: Record<string, string | null> | null,
): Record<string, string> {
  if (patch === null) return {};
  const merged: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === '') delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

function sameMetadata(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}

type CommandOf<T extends ExternalAccountCommand['type']> = Extract<ExternalAccountCommand, { type: T }>;

function registerExternalAccount(
  command: CommandOf<'RegisterExternalAccount'>,
  state: ExternalAccountState,
): ExternalAccountEvent[] {
  if (state.status !== 'none') return [];
  const { type: _command, instrumentType, at, ...registration } = command;
  return [event('externalAccount.created', { ...registration, type: instrumentType, createdAt: at })];
}

function completeProvisioning(
  { at }: CommandOf<'CompleteProvisioning'>,
  state: ExistingExternalAccount,
): ExternalAccountEvent[] {
  const { externalAccountId, projectId } = state;
  // A late provider answer after a failure, an invalidation or a deletion changes nothing.
  if (state.status !== 'pending' || state.deleted) return [];
  return [
    event('externalAccount.statusChanged', {
      externalAccountId,
      projectId,
      status: 'active',
      previousStatus: 'pending',
      failure: null,
      at,
    }),
    event('externalAccount.verified', { externalAccountId, projectId, at }),
  ];
}

function failProvisioning(
  { failure, at }: CommandOf<'FailProvisioning'>,
  state: ExistingExternalAccount,
): ExternalAccountEvent[] {
  const { externalAccountId, projectId } = state;
  if (state.status !== 'pending' || state.deleted) return [];
  return [
    event('externalAccount.statusChanged', {
      externalAccountId,
      projectId,
      status: 'failed',
      previousStatus: 'pending',
      failure,
      at,
    }),
    event('externalAccount.declined', { externalAccountId, projectId, failure, at }),
    event('externalAccount.updated', { externalAccountId, projectId, changedFields: ['failure'], failure, at }),
  ];
}

/** From any status (spec: States / External account). */
function invalidateExternalAccount(
  { failure, at }: CommandOf<'InvalidateExternalAccount'>,
  state: ExistingExternalAccount,
): ExternalAccountEvent[] {
  const { externalAccountId, projectId } = state;
  if (state.status === 'invalid' || state.deleted) return [];
  return [
    event('externalAccount.statusChanged', {
      externalAccountId,
      projectId,
      status: 'invalid',
      previousStatus: state.status,
      failure,
      at,
    }),
    ...(sameFailure(state.failure, failure)
      ? []
      : [event('externalAccount.updated', { externalAccountId, projectId, changedFields: ['failure'], failure, at })]),
  ];
}

function expireCard({ at }: CommandOf<'ExpireCard'>, state: ExistingExternalAccount): ExternalAccountEvent[] {
  const { externalAccountId, projectId } = state;
  // Only a card still usable (or still being provisioned) lapses; one already failed, invalid or
  // deleted keeps the reason it has. A timer fired early (before its month ended) changes nothing.
  const expiry = state.cardExpiry;
  if (!expiry || state.deleted || (state.status !== 'active' && state.status !== 'pending')) return [];
  if (Date.parse(at) < cardExpiresAt(expiry).getTime()) return [];
  const failure = {
    code: CARD_EXPIRED,
    message: `the card expired at the end of ${String(expiry.month).padStart(2, '0')}/${expiry.year}`,
  };
  return [
    event('externalAccount.statusChanged', {
      externalAccountId,
      projectId,
      status: 'invalid',
      previousStatus: state.status,
      failure,
      at,
    }),
    event('externalAccount.updated', { externalAccountId, projectId, changedFields: ['failure'], failure, at }),
  ];
}

/** Only label and metadata change after creation. */
function updateExternalAccount(
  command: CommandOf<'UpdateExternalAccount'>,
  state: ExistingExternalAccount,
): ExternalAccountEvent[] {
  if (state.deleted) throw new ApiError('ExternalAccountNotFound');
  const changedFields: Array<'label' | 'metadata'> = [];
  const data: EventPayloads['externalAccount.updated'] = {
    externalAccountId: state.externalAccountId,
    projectId: state.projectId,
    changedFields,
    at: command.at,
  };
  if (command.label !== undefined && command.label !== state.label) {
    changedFields.push('label');
    data.label = command.label;
  }
  if (command.metadata !== undefined) {
    const metadata = mergeMetadata(state.metadata, command.metadata);
    if (Object.keys(metadata).length > METADATA_MAX_KEYS) {
      throw new ApiError('InvalidRequest', `metadata: at most ${METADATA_MAX_KEYS} keys`);
    }
    if (!sameMetadata(metadata, state.metadata)) {
      changedFields.push('metadata');
      data.metadata = metadata;
    }
  }
  return changedFields.length === 0 ? [] : [event('externalAccount.updated', data)];
}

function deleteExternalAccount(
  { at }: CommandOf<'DeleteExternalAccount'>,
  state: ExistingExternalAccount,
): ExternalAccountEvent[] {
  if (state.deleted) throw new ApiError('ExternalAccountNotFound');
  return [
    event('externalAccount.deleted', { externalAccountId: state.externalAccountId, projectId: state.projectId, at }),
  ];
}

function requireExisting(state: ExternalAccountState): ExistingExternalAccount {
  if (state.status === 'none') throw new ApiError('ExternalAccountNotFound');
  return state;
}

function decide(command: ExternalAccountCommand, state: ExternalAccountState): ExternalAccountEvent[] {
  switch (command.type) {
    case 'RegisterExternalAccount':
      return registerExternalAccount(command, state);
    case 'CompleteProvisioning':
      return completeProvisioning(command, requireExisting(state));
    case 'FailProvisioning':
      return failProvisioning(command, requireExisting(state));
    case 'InvalidateExternalAccount':
      return invalidateExternalAccount(command, requireExisting(state));
    case 'ExpireCard':
      return expireCard(command, requireExisting(state));
    case 'UpdateExternalAccount':
      return updateExternalAccount(command, requireExisting(state));
    case 'DeleteExternalAccount':
      return deleteExternalAccount(command, requireExisting(state));
    default:
      return unknownCommand(command);
  }
}

export const externalAccountDecider: Decider<ExternalAccountCommand, ExternalAccountEvent, ExternalAccountState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const externalAccountStreamId = (externalAccountId: string) => `external-account-${externalAccountId}`;
