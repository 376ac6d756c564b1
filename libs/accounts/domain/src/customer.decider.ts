// A customer and its endorsements (spec: Customer; API-CONTRACT: Customers and
// wallets). Endorsements move pending -> active | rejected; a rejected one may
// be requested again.
import {
  ApiError,
  type EndorsementName,
  type EndorsementStatus,
  type EventPayloads,
  type TypedEvent,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type CustomerEvent = TypedEvent<
  'customer.created' | 'endorsement.requested' | 'endorsement.approved' | 'endorsement.rejected'
>;

export type CustomerCommand =
  | {
      type: 'CreateCustomer';
      customerId: string;
      projectId: string;
      firstName: string;
      lastName: string;
      email: string | null;
      endorsements: EndorsementName[];
      at: string;
    }
  | { type: 'RequestEndorsement'; name: EndorsementName; at: string }
  | { type: 'ApproveEndorsement'; name: EndorsementName; at: string }
  | { type: 'RejectEndorsement'; name: EndorsementName; reason: string; at: string };

export type CustomerState =
  | { status: 'none' }
  | {
      status: 'created';
      customerId: string;
      projectId: string;
      lastName: string;
      endorsements: Partial<Record<EndorsementName, EndorsementStatus>>;
    };

export type ExistingCustomer = Extract<CustomerState, { status: 'created' }>;

function withEndorsement(state: CustomerState, name: EndorsementName, status: EndorsementStatus): CustomerState {
  return state.status === 'none' ? state : { ...state, endorsements: { ...state.endorsements, [name]: status } };
}

function evolve(state: CustomerState, event: CustomerEvent): CustomerState {
  switch (event.type) {
    case 'customer.created':
      return {
        status: 'created',
        customerId: event.data.customerId,
        projectId: event.data.projectId,
        lastName: event.data.lastName,
        endorsements: {},
      };
    case 'endorsement.requested':
      return withEndorsement(state, event.data.name, 'pending');
    case 'endorsement.approved':
      return withEndorsement(state, event.data.name, 'active');
    case 'endorsement.rejected':
      return withEndorsement(state, event.data.name, 'rejected');
    default:
      return unknownEvent(event, state);
  }
}

function event<T extends CustomerEvent['type']>(type: T, data: EventPayloads[T]): CustomerEvent {
  return { type, data } as CustomerEvent;
}

type CommandOf<T extends CustomerCommand['type']> = Extract<CustomerCommand, { type: T }>;

/** Each endorsement asked for is requested once, with the customer. */
function createCustomer(command: CommandOf<'CreateCustomer'>, state: CustomerState): CustomerEvent[] {
  if (state.status !== 'none') return [];
  const { customerId, projectId, at } = command;
  return [
    event('customer.created', {
      customerId,
      projectId,
      type: 'individual',
      firstName: command.firstName,
      lastName: command.lastName,
      email: command.email,
      createdAt: at,
    }),
    ...[...new Set(command.endorsements)].map((name) =>
      event('endorsement.requested', { customerId, projectId, name, requestedAt: at }),
    ),
  ];
}

function requestEndorsement(command: CommandOf<'RequestEndorsement'>, state: ExistingCustomer): CustomerEvent[] {
  const { customerId, projectId } = state;
  const current = state.endorsements[command.name];
  // Pending or active already: nothing new to ask for.
  if (current === 'pending' || current === 'active') return [];
  return [event('endorsement.requested', { customerId, projectId, name: command.name, requestedAt: command.at })];
}

function approveEndorsement(command: CommandOf<'ApproveEndorsement'>, state: ExistingCustomer): CustomerEvent[] {
  const { customerId, projectId } = state;
  const current = state.endorsements[command.name];
  if (current !== 'pending') return [];
  return [
    event('endorsement.approved', {
      customerId,
      projectId,
      name: command.name,
      previousStatus: current,
      approvedAt: command.at,
    }),
  ];
}

function rejectEndorsement(command: CommandOf<'RejectEndorsement'>, state: ExistingCustomer): CustomerEvent[] {
  const { customerId, projectId } = state;
  const current = state.endorsements[command.name];
  if (current !== 'pending') return [];
  return [
    event('endorsement.rejected', {
      customerId,
      projectId,
      name: command.name,
      previousStatus: current,
      reason: command.reason,
      rejectedAt: command.at,
    }),
  ];
}

function requireCustomer(state: CustomerState): ExistingCustomer {
  if (state.status === 'none') throw new ApiError('CustomerNotFound');
  return state;
}

function decide(command: CustomerCommand, state: CustomerState): CustomerEvent[] {
  switch (command.type) {
    case 'CreateCustomer':
      return createCustomer(command, state);
    case 'RequestEndorsement':
      return requestEndorsement(command, requireCustomer(state));
    case 'ApproveEndorsement':
      return approveEndorsement(command, requireCustomer(state));
    case 'RejectEndorsement':
      return rejectEndorsement(command, requireCustomer(state));
    default:
      return unknownCommand(command);
  }
}

export const customerDecider: Decider<CustomerCommand, CustomerEvent, CustomerState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const customerStreamId = (customerId: string) => `customer-${customerId}`;
