// A virtual account (spec: Virtual account; States / Virtual account; Events,
// tie 3; ADR 0032). Created `pending`; the bank provisions it (`active`, with
// its bank details) or cannot (`failed`, terminal). The bank may freeze it
// (`frozen`) and unfreeze it, or close it (`closed`). A DELETE of an account the
// bank holds (active, frozen or closed) makes it `deleting`; the bank's close
// makes it `deleted` (terminal), its refusal `failed` (terminal), and a
// temporary "not now" puts back the status it had. A sweeper finalises a delete
// whose close the bank made but whose answer never came. Deposits whose transactions wait for a
// destination (the one they were made for was invalidated or deleted) are released to the account's
// destination as it is: by the PATCH that gives it a new one, or at once when the account had one
// already when the deposit was held (ADR 0056).
import {
  ApiError,
  VIRTUAL_ACCOUNT_DELETABLE,
  type EventPayloads,
  type TypedEvent,
  type VirtualAccountBankDetails,
  type VirtualAccountCreated,
  type VirtualAccountDestination,
  type VirtualAccountField,
  type VirtualAccountReturnDestination,
  type VirtualAccountStatus,
  type VirtualAccountStatusChange,
  type VirtualAccountTarget,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type VirtualAccountEvent = TypedEvent<
  | 'virtualAccount.created'
  | 'virtualAccount.provisioned'
  | 'virtualAccount.provisioningFailed'
  | 'virtualAccount.frozen'
  | 'virtualAccount.unfrozen'
  | 'virtualAccount.closed'
  | 'virtualAccount.updated'
  | 'virtualAccount.deletionRequested'
  | 'virtualAccount.deletionRestored'
  | 'virtualAccount.deleted'
  | 'virtualAccount.closeRefused'
  | 'virtualAccount.destinationRestored'
>;

/** What a PATCH asks for, resolved: each given field with its new value (returnDestination and label null: removed). */
export interface VirtualAccountChanges {
  destination?: VirtualAccountDestination;
  returnDestination?: VirtualAccountReturnDestination | null;
  label?: string | null;
  /** Merged into the metadata: a key set to null or "" is removed. */
  metadata?: Record<string, string | null> | null;
}

export type ProvisioningOutcome =
  { bankDetails: VirtualAccountBankDetails } | { failure: { code: string; message: string } };

export type VirtualAccountCommand =
  | { type: 'CreateVirtualAccount'; record: VirtualAccountCreated }
  | { type: 'CompleteProvisioning'; projectId: string; outcome: ProvisioningOutcome; at: string }
  | { type: 'FreezeVirtualAccount'; projectId: string; at: string }
  | { type: 'UnfreezeVirtualAccount'; projectId: string; at: string }
  | { type: 'CloseVirtualAccount'; projectId: string; at: string }
  /** releases: the deposits held for a destination, each priced to the new one (released only when the destination changes). */
  | {
      type: 'UpdateVirtualAccount';
      projectId: string;
      changes: VirtualAccountChanges;
      releases?: DepositRelease[];
      at: string;
    }
  /** A deposit held for a destination the account has replaced since: released to the one it has. */
  | { type: 'ReleaseDeposits'; projectId: string; releases: DepositRelease[]; at: string }
  | { type: 'RequestDeletion'; projectId: string; at: string }
  | { type: 'RestoreAfterDeletion'; projectId: string; reason: string; at: string }
  | { type: 'CompleteDeletion'; projectId: string; by: 'bank' | 'sweeper'; at: string }
  | { type: 'RefuseClose'; projectId: string; failure: { code: string; message: string }; at: string };

/** A deposit waiting for a destination, and its payout to the account's destination now. */
export interface DepositRelease {
  transactionId: string;
  target: VirtualAccountTarget;
}

export interface ExistingVirtualAccount {
  status: VirtualAccountStatus;
  record: VirtualAccountCreated;
  destination: VirtualAccountDestination;
  returnDestination: VirtualAccountReturnDestination | null;
  label: string | null;
  metadata: Record<string, string>;
  bankDetails: VirtualAccountBankDetails | null;
  /** Set while a delete is in flight, and after it ends (deleted, or failed by the bank's refusal). */
  deletionRequestedAt: string | null;
  /** The status a delete started from: restored when the bank cannot close the account now. */
  statusBeforeDeletion: VirtualAccountStatus | null;
  updatedAt: string;
}

export type VirtualAccountState = { status: 'none' } | ExistingVirtualAccount;

/** Stripe's metadata limit, as external accounts and deposit addresses have it. */
export const METADATA_MAX_KEYS = 50;

function event<T extends VirtualAccountEvent['type']>(type: T, data: EventPayloads[T]): VirtualAccountEvent {
  return { type, data } as VirtualAccountEvent;
}

type CommandOf<T extends VirtualAccountCommand['type']> = Extract<VirtualAccountCommand, { type: T }>;

function evolve(state: VirtualAccountState, e: VirtualAccountEvent): VirtualAccountState {
  switch (e.type) {
    case 'virtualAccount.created': {
      const r = e.data;
      return {
        status: 'pending',
        record: r,
        destination: r.destination,
        returnDestination: r.returnDestination,
        label: r.label,
        metadata: r.metadata,
        bankDetails: null,
        deletionRequestedAt: null,
        statusBeforeDeletion: null,
        updatedAt: r.createdAt,
      };
    }
    case 'virtualAccount.provisioned':
      if (state.status === 'none') return state;
      return { ...state, status: e.data.status, bankDetails: e.data.bankDetails, updatedAt: e.data.at };
    case 'virtualAccount.provisioningFailed':
    case 'virtualAccount.frozen':
    case 'virtualAccount.unfrozen':
    case 'virtualAccount.closed':
    case 'virtualAccount.deleted':
    case 'virtualAccount.closeRefused':
      if (state.status === 'none') return state;
      return { ...state, status: e.data.status, updatedAt: e.data.at };
    case 'virtualAccount.destinationRestored':
      // The deposits it releases are the transactions service's; the account itself is as it was.
      return state;
    case 'virtualAccount.deletionRequested':
      if (state.status === 'none') return state;
      return {
        ...state,
        status: e.data.status,
        deletionRequestedAt: e.data.deletionRequestedAt,
        statusBeforeDeletion: e.data.previousStatus,
        updatedAt: e.data.at,
      };
    case 'virtualAccount.deletionRestored':
      if (state.status === 'none') return state;
      return {
        ...state,
        status: e.data.status,
        deletionRequestedAt: null,
        statusBeforeDeletion: null,
        updatedAt: e.data.at,
      };
    case 'virtualAccount.updated': {
      if (state.status === 'none') return state;
      const d = e.data;
      return {
        ...state,
        destination: d.destination ?? state.destination,
        returnDestination: d.returnDestination !== undefined ? d.returnDestination : state.returnDestination,
        label: d.label !== undefined ? d.label : state.label,
        metadata: d.metadata ?? state.metadata,
        updatedAt: d.at,
      };
    }
    default:
      return unknownEvent(e, state);
  }
}

/**
 * The account a stream holds: VirtualAccountNotFound when it has none, or, with `projectId`, when it is
 * another project's (another project's account is no account of this one).
 */
export function requireVirtualAccount(state: VirtualAccountState, projectId?: string): ExistingVirtualAccount {
  if (state.status === 'none' || (projectId !== undefined && state.record.projectId !== projectId))
    throw new ApiError('VirtualAccountNotFound');
  return state;
}

/** The account of the tenant asking, or none: the commands the bank and the sweeper give are no-ops on another's. */
function ownAccount(state: VirtualAccountState, projectId: string): ExistingVirtualAccount | null {
  return state.status === 'none' || state.record.projectId !== projectId ? null : state;
}

function refuse(state: ExistingVirtualAccount, action: string): never {
  throw new ApiError(
    'VirtualAccountTransitionNotAllowed',
    `virtual account ${state.record.virtualAccountId} is ${state.status}: it cannot be ${action}`,
  );
}

function change(state: ExistingVirtualAccount, status: VirtualAccountStatus, at: string): VirtualAccountStatusChange {
  return {
    virtualAccountId: state.record.virtualAccountId,
    projectId: state.record.projectId,
    previousStatus: state.status,
    status,
    at,
  };
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

/** Same keys, same values, compared deeply (instruments and payouts are plain data). */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => Object.hasOwn(b, k) && same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/** A destination compared as partners see it: the instrument and its payout. */
const sameDestination = (a: VirtualAccountDestination, b: VirtualAccountDestination) =>
  same(a.instrument, b.instrument) && same(a.payout, b.payout);

function updateFields(
  command: CommandOf<'UpdateVirtualAccount'>,
  state: ExistingVirtualAccount,
): VirtualAccountEvent[] {
  if (state.status === 'failed' || state.status === 'deleting' || state.status === 'deleted') refuse(state, 'changed');
  const { changes, at } = command;
  const { virtualAccountId, projectId } = state.record;
  const changedFields: VirtualAccountField[] = [];
  const data: EventPayloads['virtualAccount.updated'] = { virtualAccountId, projectId, changedFields, at };
  if (changes.destination !== undefined && !sameDestination(changes.destination, state.destination)) {
    changedFields.push('destination');
    data.destination = changes.destination;
  }
  if (changes.returnDestination !== undefined) {
    const before = state.returnDestination;
    const after = changes.returnDestination;
    if ((before?.instrument.id ?? null) !== (after?.instrument.id ?? null)) changedFields.push('returnDestination');
    if ((before?.rail ?? null) !== (after?.rail ?? null)) changedFields.push('returnPayout');
    if (changedFields.includes('returnDestination') || changedFields.includes('returnPayout'))
      data.returnDestination = after;
  }
  if (changes.label !== undefined && changes.label !== state.label) {
    changedFields.push('label');
    data.label = changes.label;
  }
  if (changes.metadata !== undefined) {
    const metadata = mergeMetadata(state.metadata, changes.metadata);
    if (Object.keys(metadata).length > METADATA_MAX_KEYS)
      throw new ApiError('InvalidRequest', `metadata: at most ${METADATA_MAX_KEYS} keys`);
    if (!same(metadata, state.metadata)) {
      changedFields.push('metadata');
      data.metadata = metadata;
    }
  }
  return changedFields.length === 0 ? [] : [event('virtualAccount.updated', data)];
}

function createVirtualAccount(
  command: CommandOf<'CreateVirtualAccount'>,
  state: VirtualAccountState,
): VirtualAccountEvent[] {
  if (state.status !== 'none') return [];
  return [event('virtualAccount.created', command.record)];
}

function completeProvisioning(
  command: CommandOf<'CompleteProvisioning'>,
  current: VirtualAccountState,
): VirtualAccountEvent[] {
  const state = ownAccount(current, command.projectId);
  // The bank answers once; a repeated timer changes nothing.
  if (state === null || state.status !== 'pending') return [];
  const { outcome, at } = command;
  if ('failure' in outcome)
    return [event('virtualAccount.provisioningFailed', { ...change(state, 'failed', at), failure: outcome.failure })];
  return [event('virtualAccount.provisioned', { ...change(state, 'active', at), bankDetails: outcome.bankDetails })];
}

function freezeVirtualAccount(
  command: CommandOf<'FreezeVirtualAccount'>,
  state: ExistingVirtualAccount,
): VirtualAccountEvent[] {
  if (state.status !== 'active') refuse(state, 'frozen (only an active account can be)');
  return [event('virtualAccount.frozen', change(state, 'frozen', command.at))];
}

function unfreezeVirtualAccount(
  command: CommandOf<'UnfreezeVirtualAccount'>,
  state: ExistingVirtualAccount,
): VirtualAccountEvent[] {
  if (state.status !== 'frozen') refuse(state, 'unfrozen (only a frozen account can be)');
  return [event('virtualAccount.unfrozen', change(state, 'active', command.at))];
}

function closeVirtualAccount(
  command: CommandOf<'CloseVirtualAccount'>,
  state: ExistingVirtualAccount,
): VirtualAccountEvent[] {
  if (state.status !== 'active' && state.status !== 'frozen')
    refuse(state, 'closed (only an active or frozen account can be)');
  return [event('virtualAccount.closed', change(state, 'closed', command.at))];
}

/** A PATCH; a new destination releases the deposits waiting for one. */
function updateVirtualAccount(
  command: CommandOf<'UpdateVirtualAccount'>,
  state: ExistingVirtualAccount,
): VirtualAccountEvent[] {
  const events = updateFields(command, state);
  const repointed = events.some((e) => e.type === 'virtualAccount.updated' && e.data.destination !== undefined);
  return repointed && command.releases?.length ? [...events, restored(state, command.releases, command.at)] : events;
}

function releaseDeposits(command: CommandOf<'ReleaseDeposits'>, state: ExistingVirtualAccount): VirtualAccountEvent[] {
  return command.releases.length > 0 ? [restored(state, command.releases, command.at)] : [];
}

function requestDeletion(command: CommandOf<'RequestDeletion'>, state: ExistingVirtualAccount): VirtualAccountEvent[] {
  // A delete already in flight or done: nothing more to ask (the DELETE answers the account as it is).
  if (state.status === 'deleting' || state.status === 'deleted') return [];
  if (!VIRTUAL_ACCOUNT_DELETABLE.includes(state.status)) {
    refuse(state, `deleted (only an account the bank holds can be: ${VIRTUAL_ACCOUNT_DELETABLE.join(', ')})`);
  }
  return [
    event('virtualAccount.deletionRequested', {
      ...change(state, 'deleting', command.at),
      deletionRequestedAt: command.at,
    }),
  ];
}

/**
 * The bank's answers and the sweeper's apply to a delete in flight only, and are no-ops otherwise: "not now"
 * puts back the status the delete started from; the bank's close ends it (deleted); its refusal fails it.
 */
function deletionInFlight(current: VirtualAccountState, projectId: string): ExistingVirtualAccount | null {
  const state = ownAccount(current, projectId);
  return state !== null && state.status === 'deleting' ? state : null;
}

function restoreAfterDeletion(
  command: CommandOf<'RestoreAfterDeletion'>,
  current: VirtualAccountState,
): VirtualAccountEvent[] {
  const state = deletionInFlight(current, command.projectId);
  if (state === null) return [];
  return [
    event('virtualAccount.deletionRestored', {
      ...change(state, state.statusBeforeDeletion ?? 'active', command.at),
      reason: command.reason,
    }),
  ];
}

function completeDeletion(command: CommandOf<'CompleteDeletion'>, current: VirtualAccountState): VirtualAccountEvent[] {
  const state = deletionInFlight(current, command.projectId);
  if (state === null) return [];
  return [event('virtualAccount.deleted', { ...change(state, 'deleted', command.at), by: command.by })];
}

function refuseClose(command: CommandOf<'RefuseClose'>, current: VirtualAccountState): VirtualAccountEvent[] {
  const state = deletionInFlight(current, command.projectId);
  if (state === null) return [];
  return [event('virtualAccount.closeRefused', { ...change(state, 'failed', command.at), failure: command.failure })];
}

function decide(command: VirtualAccountCommand, state: VirtualAccountState): VirtualAccountEvent[] {
  switch (command.type) {
    case 'CreateVirtualAccount':
      return createVirtualAccount(command, state);
    case 'CompleteProvisioning':
      return completeProvisioning(command, state);
    case 'FreezeVirtualAccount':
      return freezeVirtualAccount(command, requireVirtualAccount(state, command.projectId));
    case 'UnfreezeVirtualAccount':
      return unfreezeVirtualAccount(command, requireVirtualAccount(state, command.projectId));
    case 'CloseVirtualAccount':
      return closeVirtualAccount(command, requireVirtualAccount(state, command.projectId));
    case 'UpdateVirtualAccount':
      return updateVirtualAccount(command, requireVirtualAccount(state, command.projectId));
    case 'ReleaseDeposits':
      return releaseDeposits(command, requireVirtualAccount(state, command.projectId));
    case 'RequestDeletion':
      return requestDeletion(command, requireVirtualAccount(state, command.projectId));
    case 'RestoreAfterDeletion':
      return restoreAfterDeletion(command, state);
    case 'CompleteDeletion':
      return completeDeletion(command, state);
    case 'RefuseClose':
      return refuseClose(command, state);
    default:
      return unknownCommand(command);
  }
}

/** Unreachable while the switch above is exhaustive (the compiler checks it); a caller's bug at run time. */

function restored(state: ExistingVirtualAccount, releases: DepositRelease[], at: string): VirtualAccountEvent {
  return event('virtualAccount.destinationRestored', {
    virtualAccountId: state.record.virtualAccountId,
    projectId: state.record.projectId,
    releases,
    at,
  });
}

export const virtualAccountDecider: Decider<VirtualAccountCommand, VirtualAccountEvent, VirtualAccountState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const virtualAccountStreamId = (virtualAccountId: string) => `virtualAccount-${virtualAccountId}`;
