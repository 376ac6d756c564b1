// A project and its credentials: one stream per project.
import {
  ApiError,
  type EventPayloads,
  type ProjectChanges,
  type ProjectFeatures,
  type ProjectLimits,
  type TypedEvent,
} from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';
import { dec } from '@mm/platform/money';

export type ProjectEvent = TypedEvent<
  | 'project.created'
  | 'project.updated'
  | 'apiKey.created'
  | 'apiKey.revoked'
  | 'apiKey.rolled'
  | 'publishableKey.created'
  | 'publishableKey.revoked'
>;

export type ProjectCommand =
  | {
      type: 'CreateProject';
      projectId: string;
      name: string;
      features: ProjectFeatures;
      fourEyesThreshold: string | null;
      at: string;
    }
  | { type: 'UpdateProject'; changes: ProjectChanges; at: string }
  | { type: 'IssueApiKey'; key: NewApiKey; name: string | null; scopes: string[] | null; at: string }
  | { type: 'RevokeApiKey'; apiKey: string; at: string }
  /** A new key with the rolled one's name and scopes; the rolled one stops working at expiresAt. */
  | { type: 'RollApiKey'; apiKey: string; successor: NewApiKey; expiresAt: string; at: string }
  | { type: 'IssuePublishableKey'; publishableKey: string; mode: 'sdbx' | 'live'; at: string }
  | { type: 'RevokePublishableKey'; publishableKey: string; at: string };

/** A key pair as issued: the secret itself is never recorded (spec: Authentication, item 1). */
export interface NewApiKey {
  apiKey: string;
  mode: 'sdbx' | 'live';
  secretHash: string;
}

/** What the project's decisions need of each API key. */
export interface ApiKeyState {
  status: 'active' | 'revoked';
  name: string | null;
  scopes: string[] | null;
  /** Set once it was rolled: its successor, and when it stops working. */
  rolled?: { successor: string; expiresAt: string };
}

export type ProjectState =
  | { status: 'none' }
  | {
      status: 'active';
      projectId: string;
      name: string;
      features: ProjectFeatures;
      limits: ProjectLimits;
      attributionTimeoutHours: number;
      fourEyesThreshold: string | null;
      apiKeys: Record<string, ApiKeyState>;
      publishableKeys: Record<string, 'active' | 'revoked'>;
    };

export const NO_FEATURES: ProjectFeatures = {
  depositAddresses: false,
  cashPickup: false,
  globalRemittance: false,
  bulkPayouts: false,
};
export const DEFAULT_ATTRIBUTION_TIMEOUT_HOURS = 72;

export type ActiveProject = Extract<ProjectState, { status: 'active' }>;

function evolve(state: ProjectState, event: ProjectEvent): ProjectState {
  switch (event.type) {
    case 'project.created': {
      const d = event.data;
      return {
        status: 'active',
        projectId: d.projectId,
        name: d.name,
        features: d.features,
        limits: {},
        attributionTimeoutHours: DEFAULT_ATTRIBUTION_TIMEOUT_HOURS,
        fourEyesThreshold: d.fourEyesThreshold ?? null,
        apiKeys: {},
        publishableKeys: {},
      };
    }
    case 'project.updated': {
      if (state.status === 'none') return state;
      const c = event.data.changes;
      return {
        ...state,
        features: { ...state.features, ...c.features },
        limits: { ...state.limits, ...c.limits },
        attributionTimeoutHours: c.attributionTimeoutHours ?? state.attributionTimeoutHours,
        fourEyesThreshold: c.fourEyesThreshold !== undefined ? c.fourEyesThreshold : state.fourEyesThreshold,
      };
    }
    case 'apiKey.created': {
      if (state.status === 'none') return state;
      const { apiKey, name, scopes } = event.data;
      return {
        ...state,
        apiKeys: { ...state.apiKeys, [apiKey]: { status: 'active', name: name ?? null, scopes: scopes ?? null } },
      };
    }
    case 'apiKey.revoked': {
      const key = state.status === 'none' ? undefined : state.apiKeys[event.data.apiKey];
      return state.status === 'none' || !key
        ? state
        : { ...state, apiKeys: { ...state.apiKeys, [event.data.apiKey]: { ...key, status: 'revoked' } } };
    }
    case 'apiKey.rolled': {
      const key = state.status === 'none' ? undefined : state.apiKeys[event.data.apiKey];
      const { successor, expiresAt } = event.data;
      return state.status === 'none' || !key
        ? state
        : {
            ...state,
            apiKeys: { ...state.apiKeys, [event.data.apiKey]: { ...key, rolled: { successor, expiresAt } } },
          };
    }
    case 'publishableKey.created':
      return state.status === 'none'
        ? state
        : { ...state, publishableKeys: { ...state.publishableKeys, [event.data.publishableKey]: 'active' } };
    case 'publishableKey.revoked':
      return state.status === 'none'
        ? state
        : { ...state, publishableKeys: { ...state.publishableKeys, [event.data.publishableKey]: 'revoked' } };
    default:
      return unknownEvent(event, state);
  }
}

/** Bounds that must not cross once a change is applied: the side not sent keeps the project's value. */
const ORDERED_LIMITS = [
  ['perTransactionMin', 'perTransactionMax'],
  ['dailyBankPayoutCap', 'monthlyBankPayoutCap'],
] as const;

function checkLimits(current: ProjectLimits, changes: ProjectLimits): void {
  const next = { ...current, ...changes };
  for (const [low, high] of ORDERED_LIMITS) {
    const [a, b] = [next[low], next[high]];
    if (a == null || b == null || dec(a).lte(dec(b))) continue;
    const shown = (name: typeof low | typeof high, value: string) =>
      `${name} ${value}${name in changes ? '' : " (the project's current value)"}`;
    throw new ApiError('InvalidRequest', `limits.${shown(low, a)} must not exceed limits.${shown(high, b)}`);
  }
}

function event<T extends ProjectEvent['type']>(type: T, data: EventPayloads[T]): ProjectEvent {
  return { type, data } as ProjectEvent;
}

type CommandOf<T extends ProjectCommand['type']> = Extract<ProjectCommand, { type: T }>;

/** The same create twice records nothing new. */
function createProject(command: CommandOf<'CreateProject'>, state: ProjectState): ProjectEvent[] {
  if (state.status !== 'none') return [];
  return [
    event('project.created', {
      projectId: command.projectId,
      name: command.name,
      features: command.features,
      fourEyesThreshold: command.fourEyesThreshold,
      createdAt: command.at,
    }),
  ];
}

function updateProject(command: CommandOf<'UpdateProject'>, state: ActiveProject): ProjectEvent[] {
  if (command.changes.limits) checkLimits(state.limits, command.changes.limits);
  return [event('project.updated', { projectId: state.projectId, changes: command.changes, updatedAt: command.at })];
}

function keyCreated(state: ActiveProject, key: NewApiKey, name: string | null, scopes: string[] | null, at: string) {
  return event('apiKey.created', { projectId: state.projectId, ...key, name, scopes, createdAt: at });
}

function issueApiKey(command: CommandOf<'IssueApiKey'>, state: ActiveProject): ProjectEvent[] {
  return [keyCreated(state, command.key, command.name, command.scopes, command.at)];
}

/** Once per key (docs/operators.md, "Rolling a key"): a revoked, expired or rolled key is refused. */
function rollApiKey(command: CommandOf<'RollApiKey'>, state: ActiveProject): ProjectEvent[] {
  const key = state.apiKeys[command.apiKey];
  if (!key) throw new ApiError('ApiKeyNotFound');
  if (key.status === 'revoked') throw new ApiError('ApiKeyNotRollable', 'the key was revoked');
  if (key.rolled && key.rolled.expiresAt <= command.at)
    throw new ApiError('ApiKeyNotRollable', `the key expired at ${key.rolled.expiresAt}`);
  if (key.rolled)
    throw new ApiError('ApiKeyNotRollable', `the key was rolled already, into ${key.rolled.successor}: roll that key`);
  return [
    keyCreated(state, command.successor, key.name, key.scopes, command.at),
    event('apiKey.rolled', {
      projectId: state.projectId,
      apiKey: command.apiKey,
      successor: command.successor.apiKey,
      expiresAt: command.expiresAt,
      rolledAt: command.at,
    }),
  ];
}

function revokeApiKey(command: CommandOf<'RevokeApiKey'>, state: ActiveProject): ProjectEvent[] {
  if (!state.apiKeys[command.apiKey]) throw new ApiError('ApiKeyNotFound');
  if (state.apiKeys[command.apiKey].status === 'revoked') return [];
  return [event('apiKey.revoked', { projectId: state.projectId, apiKey: command.apiKey, revokedAt: command.at })];
}

function issuePublishableKey(command: CommandOf<'IssuePublishableKey'>, state: ActiveProject): ProjectEvent[] {
  return [
    event('publishableKey.created', {
      projectId: state.projectId,
      publishableKey: command.publishableKey,
      mode: command.mode,
      createdAt: command.at,
    }),
  ];
}

function revokePublishableKey(command: CommandOf<'RevokePublishableKey'>, state: ActiveProject): ProjectEvent[] {
  if (!state.publishableKeys[command.publishableKey]) throw new ApiError('ApiKeyNotFound', 'publishable key not found');
  if (state.publishableKeys[command.publishableKey] === 'revoked') return [];
  return [
    event('publishableKey.revoked', {
      projectId: state.projectId,
      publishableKey: command.publishableKey,
      revokedAt: command.at,
    }),
  ];
}

function requireProject(state: ProjectState): ActiveProject {
  if (state.status === 'none') throw new ApiError('ProjectNotFound');
  return state;
}

function decide(command: ProjectCommand, state: ProjectState): ProjectEvent[] {
  switch (command.type) {
    case 'CreateProject':
      return createProject(command, state);
    case 'UpdateProject':
      return updateProject(command, requireProject(state));
    case 'IssueApiKey':
      return issueApiKey(command, requireProject(state));
    case 'RevokeApiKey':
      return revokeApiKey(command, requireProject(state));
    case 'RollApiKey':
      return rollApiKey(command, requireProject(state));
    case 'IssuePublishableKey':
      return issuePublishableKey(command, requireProject(state));
    case 'RevokePublishableKey':
      return revokePublishableKey(command, requireProject(state));
    default:
      return unknownCommand(command);
  }
}

export const projectDecider: Decider<ProjectCommand, ProjectEvent, ProjectState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const projectStreamId = (projectId: string) => `project-${projectId}`;
