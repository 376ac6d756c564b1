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
import type { Decider } from '@mm/platform/decider';
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
  | { type: 'ReleaseDeposits'; projectId: string; releases: Array<{ transactionId: string; target: DepositPayoutTarget }>; at: string };

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

function evolve(state: DepositAddressState, e: DepositAddressEvent): DepositAddressState {
  if (e.type === 'depositAddress.created') {
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
  if (state.status === 'none') return state;
  switch (e.type) {
    case 'depositAddress.provisioned':
      return { ...state, status: e.data.status, depositInstructions: e.data.depositInstructions, updatedAt: e.data.at };
    case 'depositAddress.provisioningFailed':
    case 'depositAddress.frozen':
    case 'depositAddress.unfrozen':
    case 'depositAddress.closed':
    case 'depositAddress.reactivated':
      return { ...state, status: e.data.status, updatedAt: e.data.at };
    case 'depositAddress.destinationLost':
      return { ...state, status: e.data.status, destinationLost: true, updatedAt: e.data.at };
    case 'depositAddress.updated': {
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
  }
}

function refuse(state: ExistingDepositAddress, action: string): never {
  throw new ApiError('DepositAddressTransitionNotAllowed', `deposit address ${state.record.depositAddressId} is ${state.status}: it cannot be ${action}`);
}

function change(state: ExistingDepositAddress, status: DepositAddressStatus, at: string): DepositAddressStatusChange {
  return { depositAddressId: state.record.depositAddressId, projectId: state.record.projectId, previousStatus: state.status, status, at };
}

/** The status an address takes up when it becomes usable again (provisioned, unfrozen): active unless its destination is lost. */
function usableStatus(state: ExistingDepositAddress): DepositAddressStatus {
  return state.destinationLost ? 'inactiveActionRequired' : 'active';
}

/**
 * Merges a metadata patch, as Stripe does: a key set to null or "" is removed, and a patch that is null
 * itself removes every key, as every PATCH of the API reads null (docs/sandbox.md, "Changing a resource").
 */
export function mergeMetadata(current: Record<string, string>, patch: Record<string, string | null> | null): Record<string, string> {
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
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && (b as Record<string, unknown>)[k] === (a as Record<string, unknown>)[k]);
}

function decideUpdate(state: ExistingDepositAddress, command: Extract<DepositAddressCommand, { type: 'UpdateDepositAddress' }>): DepositAddressEvent[] {
  if (state.status === 'failed') refuse(state, 'changed: its provisioning failed and it never takes deposits');
  const { changes, at } = command;
  const { depositAddressId, projectId } = state.record;
  const changedFields: DepositAddressField[] = [];
  const data: EventPayloads['depositAddress.updated'] = { depositAddressId, projectId, changedFields, at };
  // Re-pointed: a new account, or any account named while the one it had is lost.
  const repointed = changes.destination !== undefined && (changes.destination.instrument.id !== state.destination.instrument.id || state.destinationLost);
  const destination = paidOn(repointed ? changes.destination! : state.destination, changes.payout ?? state.payout);
  if (repointed) changedFields.push('destination');
  // The instrument shows the rail it is paid on: a new rail changes it too, the payout being what changed.
  if (repointed || destination.instrument.network !== state.destination.instrument.network) data.destination = destination;
  if (changes.payout !== undefined && !sameRecord(changes.payout, state.payout)) {
    changedFields.push('payout');
    data.payout = changes.payout;
  }
  if (changes.returnDestination !== undefined && (changes.returnDestination?.id ?? null) !== (state.returnDestination?.id ?? null)) {
    changedFields.push('returnDestination');
    data.returnDestination = changes.returnDestination;
  }
  if (changes.label !== undefined && changes.label !== state.label) {
    changedFields.push('label');
    data.label = changes.label;
  }
  if (changes.metadata !== undefined) {
    const metadata = mergeMetadata(state.metadata, changes.metadata);
    if (Object.keys(metadata).length > METADATA_MAX_KEYS) throw new ApiError('InvalidRequest', `metadata: at most ${METADATA_MAX_KEYS} keys`);
    if (!sameRecord(metadata, state.metadata)) {
      changedFields.push('metadata');
      data.metadata = metadata;
    }
  }
  if (changedFields.length === 0) return [];
  const events = [event('depositAddress.updated', data)];
  if (repointed && state.status === 'inactiveActionRequired') events.push(event('depositAddress.reactivated', change(state, 'active', at)));
  if (repointed && command.releases.length > 0) {
    events.push(event('depositAddress.destinationRestored', { depositAddressId, projectId, releases: command.releases, at }));
  }
  return events;
}

function decide(command: DepositAddressCommand, state: DepositAddressState): DepositAddressEvent[] {
  if (command.type === 'CreateDepositAddress') {
    if (state.status !== 'none') return [];
    return [event('depositAddress.created', command.record)];
  }
  // Another project's address is no address of this one.
  if (state.status === 'none' || state.record.projectId !== command.projectId) {
    if (command.type === 'CompleteProvisioning' || command.type === 'LoseDestination') return [];
    throw new ApiError('DepositAddressNotFound');
  }
  const at = command.at;
  switch (command.type) {
    case 'CompleteProvisioning': {
      // The custodian answers once; a repeated timer changes nothing.
      if (state.status !== 'pending') return [];
      const { outcome } = command;
      if ('failure' in outcome) return [event('depositAddress.provisioningFailed', { ...change(state, 'failed', at), failure: outcome.failure })];
      const depositInstructions = { address: outcome.address, asset: state.record.expectedSourceAsset, network: state.record.expectedSourceNetwork };
      return [event('depositAddress.provisioned', { ...change(state, usableStatus(state), at), depositInstructions })];
    }
    case 'FreezeDepositAddress':
      if (state.status !== 'active' && state.status !== 'inactiveActionRequired') refuse(state, 'frozen (only an active or inactiveActionRequired address can be)');
      return [event('depositAddress.frozen', change(state, 'frozen', at))];
    case 'UnfreezeDepositAddress':
      if (state.status !== 'frozen') refuse(state, 'unfrozen (only a frozen address can be)');
      return [event('depositAddress.unfrozen', change(state, usableStatus(state), at))];
    case 'CloseDepositAddress':
      if (state.status === 'pending' || state.status === 'failed' || state.status === 'closed') refuse(state, 'closed (only an active, inactiveActionRequired or frozen address can be)');
      return [event('depositAddress.closed', change(state, 'closed', at))];
    case 'LoseDestination': {
      if (state.status === 'closed' || state.status === 'failed') return [];
      if (state.destinationLost || state.destination.instrument.id !== command.externalAccountId) return [];
      const status = state.status === 'active' ? 'inactiveActionRequired' : state.status;
      return [event('depositAddress.destinationLost', { ...change(state, status, at), externalAccountId: command.externalAccountId, reason: command.reason })];
    }
    case 'UpdateDepositAddress':
      return decideUpdate(state, command);
    case 'ReleaseDeposits':
      if (state.destinationLost || command.releases.length === 0) return [];
      return [event('depositAddress.destinationRestored', { depositAddressId: state.record.depositAddressId, projectId: state.record.projectId, releases: command.releases, at })];
  }
}

export const depositAddressDecider: Decider<DepositAddressCommand, DepositAddressEvent, DepositAddressState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const depositAddressStreamId = (depositAddressId: string) => `depositAddress-${depositAddressId}`;
