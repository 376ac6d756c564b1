// A counterparty: a third party a customer pays (spec: Counterparty). Its
// read-only `name` is composed from the structured fields; an individual has a
// first and last name, a business a business name, and an update may not leave
// it without them. Deletion is refused while it owns active external accounts,
// which the service checks against its read model before deciding.
import {
  ApiError,
  type CounterpartyAddress,
  type CounterpartyEntityType,
  type EventPayloads,
  type TypedEvent,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type CounterpartyEvent = TypedEvent<'counterparty.created' | 'counterparty.updated' | 'counterparty.deleted'>;

export interface CounterpartyFields {
  firstName: string | null;
  lastName: string | null;
  businessName: string | null;
  email: string | null;
  phone: string | null;
  taxIdProvided: boolean;
  address: CounterpartyAddress | null;
}

export type CounterpartyCommand =
  | ({
      type: 'CreateCounterparty';
      counterpartyId: string;
      projectId: string;
      customerId: string;
      entityType: CounterpartyEntityType;
      at: string;
    } & CounterpartyFields)
  /** taxIdReplaced: a tax id was given; it is never stored, so a new one counts as a change even when one was on file. */
  | { type: 'UpdateCounterparty'; changes: Partial<CounterpartyFields>; taxIdReplaced?: boolean; at: string }
  | { type: 'DeleteCounterparty'; at: string };

type CounterpartyRecord = {
  counterpartyId: string;
  projectId: string;
  entityType: CounterpartyEntityType;
} & CounterpartyFields;

/** Active from creation to deletion (spec: Counterparty). */
export type CounterpartyState =
  { status: 'none' } | ({ status: 'active' } & CounterpartyRecord) | ({ status: 'deleted' } & CounterpartyRecord);

/** The read-only name: "First Last" for an individual, the business name for a business. */
export function counterpartyName(
  entityType: CounterpartyEntityType,
  fields: Pick<CounterpartyFields, 'firstName' | 'lastName' | 'businessName'>,
): string {
  return entityType === 'business'
    ? (fields.businessName ?? '').trim()
    : `${(fields.firstName ?? '').trim()} ${(fields.lastName ?? '').trim()}`.trim();
}

/** The structured names an entity type needs, and none of the other type's. */
export function counterpartyNamesProblem(
  entityType: CounterpartyEntityType,
  fields: Pick<CounterpartyFields, 'firstName' | 'lastName' | 'businessName'>,
): string | undefined {
  if (entityType === 'individual') {
    if (!fields.firstName || !fields.lastName) return 'an individual needs firstName and lastName';
    if (fields.businessName) return 'businessName is for entityType business';
    return undefined;
  }
  if (!fields.businessName) return 'a business needs businessName';
  if (fields.firstName || fields.lastName) return 'firstName and lastName are for entityType individual';
  return undefined;
}

const FIELDS: ReadonlyArray<keyof CounterpartyFields> = [
  'firstName',
  'lastName',
  'businessName',
  'email',
  'phone',
  'taxIdProvided',
  'address',
];

export type ActiveCounterparty = Extract<CounterpartyState, { status: 'active' }>;

function evolve(state: CounterpartyState, event: CounterpartyEvent): CounterpartyState {
  switch (event.type) {
    case 'counterparty.created': {
      const { createdAt: _at, customerId: _customer, name: _name, ...rest } = event.data;
      return { status: 'active', ...rest };
    }
    case 'counterparty.updated':
      return state.status === 'none' ? state : { ...state, ...event.data.changes };
    case 'counterparty.deleted':
      return state.status === 'none' ? state : { ...state, status: 'deleted' };
    default:
      return unknownEvent(event, state);
  }
}

function event<T extends CounterpartyEvent['type']>(type: T, data: EventPayloads[T]): CounterpartyEvent {
  return { type, data } as CounterpartyEvent;
}

type CommandOf<T extends CounterpartyCommand['type']> = Extract<CounterpartyCommand, { type: T }>;

function createCounterparty(command: CommandOf<'CreateCounterparty'>, state: CounterpartyState): CounterpartyEvent[] {
  if (state.status !== 'none') return [];
  const problem = counterpartyNamesProblem(command.entityType, command);
  if (problem) throw new ApiError('CounterpartyFieldsInvalid', problem);
  const { type: _type, at, ...data } = command;
  return [
    event('counterparty.created', { ...data, name: counterpartyName(command.entityType, command), createdAt: at }),
  ];
}

/** Only the fields that differ change; the name is composed again from them. */
function updateCounterparty(command: CommandOf<'UpdateCounterparty'>, state: ActiveCounterparty): CounterpartyEvent[] {
  const { counterpartyId, projectId } = state;
  const changes: Partial<CounterpartyFields> = {};
  for (const field of FIELDS) {
    if (!Object.hasOwn(command.changes, field)) continue;
    const value = command.changes[field];
    if (JSON.stringify(value) !== JSON.stringify(state[field])) Object.assign(changes, { [field]: value });
  }
  const next = { ...state, ...changes };
  const problem = counterpartyNamesProblem(state.entityType, next);
  if (problem) throw new ApiError('CounterpartyFieldsInvalid', problem);
  const changedFields: string[] = Object.keys(changes);
  if (command.taxIdReplaced) {
    changes.taxIdProvided = true;
    if (!changedFields.includes('taxIdProvided')) changedFields.push('taxIdProvided');
  }
  if (changedFields.length === 0) return [];
  return [
    event('counterparty.updated', {
      counterpartyId,
      projectId,
      changedFields,
      changes,
      name: counterpartyName(state.entityType, next),
      at: command.at,
    }),
  ];
}

function deleteCounterparty(command: CommandOf<'DeleteCounterparty'>, state: ActiveCounterparty): CounterpartyEvent[] {
  return [
    event('counterparty.deleted', { counterpartyId: state.counterpartyId, projectId: state.projectId, at: command.at }),
  ];
}

/** A deleted counterparty is not found. */
function requireActive(state: CounterpartyState): ActiveCounterparty {
  if (state.status !== 'active') throw new ApiError('CounterpartyNotFound');
  return state;
}

function decide(command: CounterpartyCommand, state: CounterpartyState): CounterpartyEvent[] {
  switch (command.type) {
    case 'CreateCounterparty':
      return createCounterparty(command, state);
    case 'UpdateCounterparty':
      return updateCounterparty(command, requireActive(state));
    case 'DeleteCounterparty':
      return deleteCounterparty(command, requireActive(state));
    default:
      return unknownCommand(command);
  }
}

export const counterpartyDecider: Decider<CounterpartyCommand, CounterpartyEvent, CounterpartyState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const counterpartyStreamId = (counterpartyId: string) => `counterparty-${counterpartyId}`;
