// A customer and its endorsements (spec: Customer; API-CONTRACT: Customers and
// wallets). Endorsements move pending -> active | rejected; a rejected one may
// be requested again.
import { ApiError, type EndorsementName, type EndorsementStatus, type EventPayloads, type TypedEvent } from '@mm/contracts';
import type { Decider } from '@mm/platform/decider';

export type CustomerEvent = TypedEvent<'customer.created' | 'endorsement.requested' | 'endorsement.approved' | 'endorsement.rejected'>;

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
  | { status: 'created'; customerId: string; projectId: string; lastName: string; endorsements: Partial<Record<EndorsementName, EndorsementStatus>> };

function evolve(state: CustomerState, event: CustomerEvent): CustomerState {
  switch (event.type) {
    case 'customer.created':
      return { status: 'created', customerId: event.data.customerId, projectId: event.data.projectId, lastName: event.data.lastName, endorsements: {} };
    case 'endorsement.requested':
      return state.status === 'none' ? state : { ...state, endorsements: { ...state.endorsements, [event.data.name]: 'pending' } };
    case 'endorsement.approved':
      return state.status === 'none' ? state : { ...state, endorsements: { ...state.endorsements, [event.data.name]: 'active' } };
    case 'endorsement.rejected':
      return state.status === 'none' ? state : { ...state, endorsements: { ...state.endorsements, [event.data.name]: 'rejected' } };
  }
}

function event<T extends CustomerEvent['type']>(type: T, data: EventPayloads[T]): CustomerEvent {
  return { type, data } as CustomerEvent;
}

function decide(command: CustomerCommand, state: CustomerState): CustomerEvent[] {
  if (command.type === 'CreateCustomer') {
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
      ...[...new Set(command.endorsements)].map((name) => event('endorsement.requested', { customerId, projectId, name, requestedAt: at })),
    ];
  }
  if (state.status === 'none') throw new ApiError('CustomerNotFound');
  const { customerId, projectId } = state;
  const current = state.endorsements[command.name];
  switch (command.type) {
    case 'RequestEndorsement':
      // Pending or active already: nothing new to ask for.
      if (current === 'pending' || current === 'active') return [];
      return [event('endorsement.requested', { customerId, projectId, name: command.name, requestedAt: command.at })];
    case 'ApproveEndorsement':
      if (current !== 'pending') return [];
      return [event('endorsement.approved', { customerId, projectId, name: command.name, previousStatus: current, approvedAt: command.at })];
    case 'RejectEndorsement':
      if (current !== 'pending') return [];
      return [
        event('endorsement.rejected', { customerId, projectId, name: command.name, previousStatus: current, reason: command.reason, rejectedAt: command.at }),
      ];
  }
}

export const customerDecider: Decider<CustomerCommand, CustomerEvent, CustomerState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const customerStreamId = (customerId: string) => `customer-${customerId}`;
