// A deposit address (spec: Deposit address; States / Deposit address; Events,
// tie 3; ADR 0030). Created `pending`; the custodian provisions it (`active`,
// with its on-chain address) or cannot (`failed`, terminal). The custodian may
// lock it (`frozen`) and unlock it, or close it (`closed`, terminal). Its
// destination bank account may be deleted or turn invalid: an active address is
// then `inactiveActionRequired` until a PATCH points it at an active bank
// account, which makes it `active` again and releases every deposit held for
// want of a destination. A deposit the transactions service held for a destination the address has
// replaced already is released to the one it has (ADR 0056). There is no delete.
import {
  ApiError,
  type DepositAddressCreated,
  type DepositAddressDestination,
  type DepositAddressField,
  type DepositAddressInstrument,
  type DepositAddressStatus,
  type DepositAddressStatusChange,
  type DepositInstructions,
  type DepositPayoutTarget,
  type EventPayloads,
  type PayoutInstruction,
  type TypedEvent,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';
import { paidOn } from './deposit-address-request';

export type DepositAddressEvent = TypedEvent<
  | 'depositAddress.created'
  | 'depositAddress.provisioned'
  | 'depositAddress.provisioningFailed'
  | 'depositAddress.frozen'
  | 'depositAddress.unfrozen'
  | 'depositAddress.closed'
  | 'depositAddress.destinationLost'
  | 'depositAddress.updated'
  | 'depositAddress.reactivated'
  | 'depositAddress.destinationRestored'
>;

/** What a PATCH asks for, resolved: each given field with its new value (returnDestination and label null: removed). */
export interface DepositAddressChanges {
  /** The bank account the PATCH names (checked active and the customer's or a counterparty's). */
  destination?: DepositAddressDestination;
  payout?: PayoutInstruction;
  returnDestination?: DepositAddressInstrument | null;
  label?: string | null;
  /** Merged into the metadata: a key set to null or "" is removed. */
  metadata?: Record<string, string | null> | null;
}

export type ProvisioningOutcome = { address: string } | { failure: { code: string; message: string } };

export type DepositAddressCommand =
  | { type: 'CreateDepositAddress'; record: DepositAddressCreated }
  | { type: 'CompleteProvisioning'; projectId: string; outcome: ProvisioningOutcome; at: string }
  | { type: 'FreezeDepositAddress'; projectId: string; at: string }
  | { type: 'UnfreezeDepositAddress'; projectId: string; at: string }
  | { type: 'CloseDepositAddress'; projectId: string; at: string }
  | { type: 'LoseDestination'; projectId: string; externalAccountId: string; reason: 'deleted' | 'invalid'; at: string }
  | {
      type: 'UpdateDepositAddress';
      projectId: string;
      changes: DepositAddressChanges;
      /** The deposits held for a destination, each with its payout to the new one (used when the destination changes). */
      releases: Array<{ transactionId: string; target: DepositPayoutTarget }>;
      at: string;
    }
  /** Deposits held for a destination the address has replaced since: released to the one it has. */
  | {
      type: 'ReleaseDeposits';
      projectId: string;
      releases: Array<{ transactionId: string; target: DepositPayoutTarget }>;
      at: string;
    };

export interface ExistingDepositAddress {
  status: DepositAddressStatus;
  record: DepositAddressCreated;
  destination: DepositAddressDestination;
  payout: PayoutInstruction;
  returnDestination: DepositAddressInstrument | null;
  label: string | null;
  metadata: Record<string, string>;
  depositInstructions: DepositInstructions | null;
  /** The destination was deleted or turned invalid and no PATCH has replaced it yet. */
  destinationLost: boolean;
  updatedAt: string;
}

export type DepositAddressState = { status: 'none' } | ExistingDepositAddress;

/** Stripe's metadata limit, as external accounts have it. */
export const METADATA_MAX_KEYS = 50;

function event<T extends DepositAddressEvent['type']>(type: T, data: EventPayloads[T]): DepositAddressEvent {
  return { type, data } as DepositAddressEvent;
}

type CommandOf<T extends DepositAddressCommand['type']> = Extract<DepositAddressCommand, { type: T }>;

function evolve(state: DepositAddressState, e: DepositAddressEvent): DepositAddressState {
  switch (e.type) {
    case 'depositAddress.created': {
      const r = e.data;
      return {
        status: 'pending',
        record: r,
        destination: r.destination,
        payout: r.payout,
        returnDestination: r.returnDestination,
        label: r.label,
        metadata: r.metadata,
        depositInstructions: null,
        destinationLost: false,
        updatedAt: r.createdAt,
      };
    }
    case 'depositAddress.provisioned':
      if (state.status === 'none') return state;
      return { ...state, status: e.data.status, depositInstructions: e.data.depositInstructions, updatedAt: e.data.at };
    case 'depositAddress.provisioningFailed':
    case 'depositAddress.frozen':
    case 'depositAddress.unfrozen':
    case 'depositAddress.closed':
    case 'depositAddress.reactivated':
      if (state.status === 'none') return state;
      return { ...state, status: e.data.status, updatedAt: e.data.at };
    case 'depositAddress.destinationLost':
      if (state.status === 'none') return state;
      return { ...state, status: e.data.status, destinationLost: true, updatedAt: e.data.at };
    case 'depositAddress.updated': {
      if (state.status === 'none') return state;
      const d = e.data;
      return {
        ...state,
        destination: d.destination ?? state.destination,
        destinationLost: d.destination ? false : state.destinationLost,
        payout: d.payout ?? state.payout,
        returnDestination: d.returnDestination !== undefined ? d.returnDestination : state.returnDestination,
        label: d.label !== undefined ? d.label : state.label,
        metadata: d.metadata ?? state.metadata,
        updatedAt: d.at,
      };
    }
    case 'depositAddress.destinationRestored':
      // The deposits it releases are the transactions service's; the address itself is as it was.
      return state;
    default:
      return unknownEvent(e, state);
  }
}

/**
 * The address a stream holds: DepositAddressNotFound when it has none, or, with `projectId`, when it is
 * another project's (another project's address is no address of this one).
 */
export function requireDepositAddress(state: DepositAddressState, projectId?: string): ExistingDepositAddress {
  if (state.status === 'none' || (projectId !== undefined && state.record.projectId !== projectId))
    throw new ApiError('DepositAddressNotFound');
  return state;
}

/** The address of the tenant asking, or none: the commands the custodian and the accounts service give are no-ops on another's. */
function ownAddress(state: DepositAddressState, projectId: string): ExistingDepositAddress | null {
  return state.status === 'none' || state.record.projectId !== projectId ? null : state;
}

function refuse(state: ExistingDepositAddress, action: string): never {
  throw new ApiError(
    'DepositAddressTransitionNotAllowed',
    `deposit address ${state.record.depositAddressId} is ${state.status}: it cannot be ${action}`,
  );
}

function change(state: ExistingDepositAddress, status: DepositAddressStatus, at: string): DepositAddressStatusChange {
  return {
    depositAddressId: state.record.depositAddressId,
    projectId: state.record.projectId,
    previousStatus: state.status,
    status,
    at,
  };
}

/** The status an address takes up when it becomes usable again (provisioned, unfrozen): active unless its destination is lost. */
function usableStatus(state: ExistingDepositAddress): DepositAddressStatus {
  return state.destinationLost ? 'inactiveActionRequired' : 'active';
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

function sameRecord(a: object, b: object): boolean {
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every((k) => Object.hasOwn(b, k) && (b as Record<string, unknown>)[k] === (a as Record<string, unknown>)[k])
  );
}

function updateDepositAddress(
  command: CommandOf<'UpdateDepositAddress'>,
  state: ExistingDepositAddress,
): DepositAddressEvent[] {
  if (state.status === 'failed') refuse(state, 'changed: its provisioning failed and it never takes deposits');
  const { changes, at } = command;
  const { depositAddressId, projectId } = state.record;
  const changedFields: DepositAddressField[] = [];
  const data: EventPayloads['depositAddress.updated'] = { depositAddressId, projectId, changedFields, at };
  // Re-pointed: a new account, or any account named while the one it had is lost.
  const named = changes.destination;
  const repointedTo =
    named !== undefined && (named.instrument.id !== state.destination.instrument.id || state.destinationLost)
      ? named
      : undefined;
  const repointed = repointedTo !== undefined;
  const destination = paidOn(repointedTo ?? state.destination, changes.payout ?? state.payout);
  if (repointed) changedFields.push('destination');
  // The instrument shows the rail it is paid on: a new rail changes it too, the payout being what changed.
  if (repointed || destination.instrument.network !== state.destination.instrument.network)
    data.destination = destination;
  if (changes.payout !== undefined && !sameRecord(changes.payout, state.payout)) {
    changedFields.push('payout');
    data.payout = changes.payout;
  }
  if (
    changes.returnDestination !== undefined &&
    (changes.returnDestination?.id ?? null) !== (state.returnDestination?.id ?? null)
  ) {
    changedFields.push('returnDestination');
    data.returnDestination = changes.returnDestination;
  }
  if (changes.label !== undefined && changes.label !== state.label) {
    changedFields.push('label');
    data.label = changes.label;
  }
  if (changes.metadata !== undefined) {
    const metadata = mergeMetadata(state.metadata, changes.metadata);
    if (Object.keys(metadata).length > METADATA_MAX_KEYS)
      throw new ApiError('InvalidRequest', `metadata: at most ${METADATA_MAX_KEYS} keys`);
    if (!sameRecord(metadata, state.metadata)) {
      changedFields.push('metadata');
      data.metadata = metadata;
    }
  }
  if (changedFields.length === 0) return [];
  const events = [event('depositAddress.updated', data)];
  if (repointed && state.status === 'inactiveActionRequired')
    events.push(event('depositAddress.reactivated', change(state, 'active', at)));
  if (repointed && command.releases.length > 0) {
    events.push(
      event('depositAddress.destinationRestored', { depositAddressId, projectId, releases: command.releases, at }),
    );
  }
  return events;
}

function createDepositAddress(
  command: CommandOf<'CreateDepositAddress'>,
  state: DepositAddressState,
): DepositAddressEvent[] {
  if (state.status !== 'none') return [];
  return [event('depositAddress.created', command.record)];
}

function completeProvisioning(
  command: CommandOf<'CompleteProvisioning'>,
  current: DepositAddressState,
): DepositAddressEvent[] {
  const state = ownAddress(current, command.projectId);
  // The custodian answers once; a repeated timer changes nothing.
  if (state === null || state.status !== 'pending') return [];
  const { outcome, at } = command;
  if ('failure' in outcome)
    return [event('depositAddress.provisioningFailed', { ...change(state, 'failed', at), failure: outcome.failure })];
  const depositInstructions = {
    address: outcome.address,
    asset: state.record.expectedSourceAsset,
    network: state.record.expectedSourceNetwork,
  };
  return [event('depositAddress.provisioned', { ...change(state, usableStatus(state), at), depositInstructions })];
}

function freezeDepositAddress(
  command: CommandOf<'FreezeDepositAddress'>,
  state: ExistingDepositAddress,
): DepositAddressEvent[] {
  if (state.status !== 'active' && state.status !== 'inactiveActionRequired')
    refuse(state, 'frozen (only an active or inactiveActionRequired address can be)');
  return [event('depositAddress.frozen', change(state, 'frozen', command.at))];
}

function unfreezeDepositAddress(
  command: CommandOf<'UnfreezeDepositAddress'>,
  state: ExistingDepositAddress,
): DepositAddressEvent[] {
  if (state.status !== 'frozen') refuse(state, 'unfrozen (only a frozen address can be)');
  return [event('depositAddress.unfrozen', change(state, usableStatus(state), command.at))];
}

function closeDepositAddress(
  command: CommandOf<'CloseDepositAddress'>,
  state: ExistingDepositAddress,
): DepositAddressEvent[] {
  if (state.status === 'pending' || state.status === 'failed' || state.status === 'closed')
    refuse(state, 'closed (only an active, inactiveActionRequired or frozen address can be)');
  return [event('depositAddress.closed', change(state, 'closed', command.at))];
}

/** The destination was deleted or turned invalid: an active address paying to it waits for a new one (inactiveActionRequired). */
function loseDestination(command: CommandOf<'LoseDestination'>, current: DepositAddressState): DepositAddressEvent[] {
  const state = ownAddress(current, command.projectId);
  if (state === null || state.status === 'closed' || state.status === 'failed') return [];
  if (state.destinationLost || state.destination.instrument.id !== command.externalAccountId) return [];
  const status = state.status === 'active' ? 'inactiveActionRequired' : state.status;
  return [
    event('depositAddress.destinationLost', {
      ...change(state, status, command.at),
      externalAccountId: command.externalAccountId,
      reason: command.reason,
    }),
  ];
}

function releaseDeposits(command: CommandOf<'ReleaseDeposits'>, state: ExistingDepositAddress): DepositAddressEvent[] {
  if (state.destinationLost || command.releases.length === 0) return [];
  return [
    event('depositAddress.destinationRestored', {
      depositAddressId: state.record.depositAddressId,
      projectId: state.record.projectId,
      releases: command.releases,
      at: command.at,
    }),
  ];
}

function decide(command: DepositAddressCommand, state: DepositAddressState): DepositAddressEvent[] {
  switch (command.type) {
    case 'CreateDepositAddress':
      return createDepositAddress(command, state);
    case 'CompleteProvisioning':
      return completeProvisioning(command, state);
    case 'FreezeDepositAddress':
      return freezeDepositAddress(command, requireDepositAddress(state, command.projectId));
    case 'UnfreezeDepositAddress':
      return unfreezeDepositAddress(command, requireDepositAddress(state, command.projectId));
    case 'CloseDepositAddress':
      return closeDepositAddress(command, requireDepositAddress(state, command.projectId));
    case 'LoseDestination':
      return loseDestination(command, state);
    case 'UpdateDepositAddress':
      return updateDepositAddress(command, requireDepositAddress(state, command.projectId));
    case 'ReleaseDeposits':
      return releaseDeposits(command, requireDepositAddress(state, command.projectId));
    default:
      return unknownCommand(command);
  }
}

/** Unreachable while the switch above is exhaustive (the compiler checks it); a caller's bug at run time. */

export const depositAddressDecider: Decider<DepositAddressCommand, DepositAddressEvent, DepositAddressState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const depositAddressStreamId = (depositAddressId: string) => `depositAddress-${depositAddressId}`;
