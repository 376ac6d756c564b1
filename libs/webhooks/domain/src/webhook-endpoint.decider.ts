// A webhook endpoint (spec: Webhook endpoint and delivery; States/Webhook):
// `enabled` on creation, `disabled` by the partner, `suspended` after about three
// days of continuous failure; `enable` brings either back. Deletion is soft: the
// endpoint is gone from reads, its delivery history stays for the retention window.
import { ApiError, type EventPayloads, type TypedEvent, type WebhookEndpointStatus } from '@mm/contracts';
import { type Decider, unknownCommand, unknownEvent } from '@mm/platform/decider';

export type WebhookEndpointEvent = TypedEvent<
  | 'webhookEndpoint.created'
  | 'webhookEndpoint.updated'
  | 'webhookEndpoint.enabled'
  | 'webhookEndpoint.disabled'
  | 'webhookEndpoint.signingKeyRotated'
  | 'webhookEndpoint.deleted'
  | 'webhookEndpoint.downNotified'
  | 'webhookEndpoint.suspended'
>;

export interface WebhookEndpointSettings {
  url: string;
  subscriptions: string[];
  timeoutMs: number;
  notifyThresholdSecs: number;
  description: string | null;
}

export type WebhookEndpointCommand =
  | ({ type: 'CreateWebhookEndpoint'; webhookId: string; projectId: string; at: string } & WebhookEndpointSettings)
  | { type: 'UpdateWebhookEndpoint'; changes: Partial<WebhookEndpointSettings>; at: string }
  | { type: 'EnableWebhookEndpoint'; at: string }
  | { type: 'DisableWebhookEndpoint'; at: string }
  | { type: 'RotateSigningKey'; at: string }
  | { type: 'DeleteWebhookEndpoint'; at: string }
  /** The delivery worker: down since `downSince` for longer than notifyThresholdSecs. */
  | { type: 'NotifyEndpointDown'; downSince: string; at: string }
  /** The delivery worker: about three days of continuous failure. */
  | { type: 'SuspendWebhookEndpoint'; downSince: string; at: string };

export type WebhookEndpointState =
  | { status: 'none' }
  | ({
      status: WebhookEndpointStatus;
      webhookId: string;
      projectId: string;
      deleted: boolean;
      notifiedDownSince: string | null;
    } & WebhookEndpointSettings);

/** Spec Limits 5: timeoutMs default 5000, hard cap 10000; notifyThresholdSecs 600 to 86400, default 3600. */
export const WEBHOOK_DEFAULTS = {
  timeoutMs: 5000,
  maxTimeoutMs: 10_000,
  notifyThresholdSecs: 3600,
  minNotifyThresholdSecs: 600,
  maxNotifyThresholdSecs: 86_400,
} as const;

const SETTINGS: ReadonlyArray<keyof WebhookEndpointSettings> = [
  'url',
  'subscriptions',
  'timeoutMs',
  'notifyThresholdSecs',
  'description',
];

export type ExistingWebhookEndpoint = Exclude<WebhookEndpointState, { status: 'none' }>;

function evolve(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  switch (event.type) {
    case 'webhookEndpoint.created': {
      const { createdAt: _at, ...rest } = event.data;
      return { status: 'enabled', deleted: false, notifiedDownSince: null, ...rest };
    }
    case 'webhookEndpoint.updated':
      return state.status === 'none' ? state : { ...state, ...event.data.changes };
    case 'webhookEndpoint.enabled':
      // Enabling resets the down clock: a new failure starts a new episode.
      return state.status === 'none' ? state : { ...state, status: 'enabled', notifiedDownSince: null };
    case 'webhookEndpoint.suspended':
      return state.status === 'none' ? state : { ...state, status: 'suspended' };
    case 'webhookEndpoint.downNotified':
      return state.status === 'none' ? state : { ...state, notifiedDownSince: event.data.downSince };
    case 'webhookEndpoint.disabled':
      return state.status === 'none' ? state : { ...state, status: 'disabled' };
    case 'webhookEndpoint.deleted':
      return state.status === 'none' ? state : { ...state, deleted: true };
    case 'webhookEndpoint.signingKeyRotated':
      return state;
    default:
      return unknownEvent(event, state);
  }
}

function event<T extends WebhookEndpointEvent['type']>(type: T, data: EventPayloads[T]): WebhookEndpointEvent {
  return { type, data } as WebhookEndpointEvent;
}

type CommandOf<T extends WebhookEndpointCommand['type']> = Extract<WebhookEndpointCommand, { type: T }>;

function createWebhookEndpoint(
  command: CommandOf<'CreateWebhookEndpoint'>,
  state: WebhookEndpointState,
): WebhookEndpointEvent[] {
  if (state.status !== 'none') return [];
  const { type: _type, at, ...data } = command;
  return [event('webhookEndpoint.created', { ...data, createdAt: at })];
}

/** Only the settings that differ change. */
function updateWebhookEndpoint(
  command: CommandOf<'UpdateWebhookEndpoint'>,
  state: ExistingWebhookEndpoint,
): WebhookEndpointEvent[] {
  const changes: Partial<WebhookEndpointSettings> = {};
  for (const field of SETTINGS) {
    if (!Object.hasOwn(command.changes, field) || command.changes[field] === undefined) continue;
    if (JSON.stringify(command.changes[field]) !== JSON.stringify(state[field]))
      Object.assign(changes, { [field]: command.changes[field] });
  }
  const changedFields = Object.keys(changes);
  if (changedFields.length === 0) return [];
  return [
    event('webhookEndpoint.updated', {
      webhookId: state.webhookId,
      projectId: state.projectId,
      changedFields,
      changes,
      at: command.at,
    }),
  ];
}

/** From disabled or suspended. */
function enableWebhookEndpoint(
  { at }: CommandOf<'EnableWebhookEndpoint'>,
  state: ExistingWebhookEndpoint,
): WebhookEndpointEvent[] {
  const { webhookId, projectId } = state;
  return state.status === 'enabled'
    ? []
    : [event('webhookEndpoint.enabled', { webhookId, projectId, previousStatus: state.status, at })];
}

function disableWebhookEndpoint(
  { at }: CommandOf<'DisableWebhookEndpoint'>,
  state: ExistingWebhookEndpoint,
): WebhookEndpointEvent[] {
  const { webhookId, projectId } = state;
  return state.status === 'disabled'
    ? []
    : [event('webhookEndpoint.disabled', { webhookId, projectId, previousStatus: state.status, at })];
}

function rotateSigningKey(
  { at }: CommandOf<'RotateSigningKey'>,
  { webhookId, projectId }: ExistingWebhookEndpoint,
): WebhookEndpointEvent[] {
  return [event('webhookEndpoint.signingKeyRotated', { webhookId, projectId, at })];
}

function deleteWebhookEndpoint(
  { at }: CommandOf<'DeleteWebhookEndpoint'>,
  { webhookId, projectId }: ExistingWebhookEndpoint,
): WebhookEndpointEvent[] {
  return [event('webhookEndpoint.deleted', { webhookId, projectId, at })];
}

/**
 * Once per down episode; a partner who disabled the endpoint is not told it is down. A suspension that came
 * first (a clock moved days at once) does not swallow the notice.
 */
function notifyEndpointDown(
  { downSince, at }: CommandOf<'NotifyEndpointDown'>,
  state: ExistingWebhookEndpoint,
): WebhookEndpointEvent[] {
  const { webhookId, projectId } = state;
  return state.status === 'disabled' || state.notifiedDownSince === downSince
    ? []
    : [event('webhookEndpoint.downNotified', { webhookId, projectId, downSince, at })];
}

/** Set only by the service, and only on an endpoint that is being delivered to. */
function suspendWebhookEndpoint(
  { downSince, at }: CommandOf<'SuspendWebhookEndpoint'>,
  state: ExistingWebhookEndpoint,
): WebhookEndpointEvent[] {
  const { webhookId, projectId } = state;
  return state.status !== 'enabled'
    ? []
    : [event('webhookEndpoint.suspended', { webhookId, projectId, previousStatus: state.status, downSince, at })];
}

/** A deleted endpoint is gone from every command. */
function requireEndpoint(state: WebhookEndpointState): ExistingWebhookEndpoint {
  if (state.status === 'none' || state.deleted) throw new ApiError('WebhookNotFound');
  return state;
}

function decide(command: WebhookEndpointCommand, state: WebhookEndpointState): WebhookEndpointEvent[] {
  switch (command.type) {
    case 'CreateWebhookEndpoint':
      return createWebhookEndpoint(command, state);
    case 'UpdateWebhookEndpoint':
      return updateWebhookEndpoint(command, requireEndpoint(state));
    case 'EnableWebhookEndpoint':
      return enableWebhookEndpoint(command, requireEndpoint(state));
    case 'DisableWebhookEndpoint':
      return disableWebhookEndpoint(command, requireEndpoint(state));
    case 'RotateSigningKey':
      return rotateSigningKey(command, requireEndpoint(state));
    case 'DeleteWebhookEndpoint':
      return deleteWebhookEndpoint(command, requireEndpoint(state));
    case 'NotifyEndpointDown':
      return notifyEndpointDown(command, requireEndpoint(state));
    case 'SuspendWebhookEndpoint':
      return suspendWebhookEndpoint(command, requireEndpoint(state));
    default:
      return unknownCommand(command);
  }
}

export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const webhookEndpointStreamId = (webhookId: string) => `webhook-endpoint-${webhookId}`;
