// A webhook endpoint (spec: Webhook endpoint and delivery; States/Webhook):
// `enabled` on creation, `disabled` by the partner, `suspended` after about three
// days of continuous failure; `enable` brings either back. Deletion is soft: the
// endpoint is gone from reads, its delivery history stays for the retention window.
import { ApiError, type EventPayloads, type TypedEvent, type WebhookEndpointStatus } from '@mm/contracts';
import type { Decider } from '@mm/platform/decider';

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
  | ({ status: WebhookEndpointStatus; webhookId: string; projectId: string; deleted: boolean; notifiedDownSince: string | null } & WebhookEndpointSettings);

/** Spec Limits 5: timeoutMs default 5000, hard cap 10000; notifyThresholdSecs 600 to 86400, default 3600. */
export const WEBHOOK_DEFAULTS = { timeoutMs: 5000, maxTimeoutMs: 10_000, notifyThresholdSecs: 3600, minNotifyThresholdSecs: 600, maxNotifyThresholdSecs: 86_400 } as const;

const SETTINGS: ReadonlyArray<keyof WebhookEndpointSettings> = ['url', 'subscriptions', 'timeoutMs', 'notifyThresholdSecs', 'description'];

function evolve(state: WebhookEndpointState, event: WebhookEndpointEvent): WebhookEndpointState {
  if (event.type === 'webhookEndpoint.created') {
    const { createdAt: _at, ...rest } = event.data;
    return { status: 'enabled', deleted: false, notifiedDownSince: null, ...rest };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'webhookEndpoint.updated':
      return { ...state, ...event.data.changes };
    case 'webhookEndpoint.enabled':
      // Enabling resets the down clock: a new failure starts a new episode.
      return { ...state, status: 'enabled', notifiedDownSince: null };
    case 'webhookEndpoint.suspended':
      return { ...state, status: 'suspended' };
    case 'webhookEndpoint.downNotified':
      return { ...state, notifiedDownSince: event.data.downSince };
    case 'webhookEndpoint.disabled':
      return { ...state, status: 'disabled' };
    case 'webhookEndpoint.deleted':
      return { ...state, deleted: true };
    case 'webhookEndpoint.signingKeyRotated':
      return state;
  }
}

function event<T extends WebhookEndpointEvent['type']>(type: T, data: EventPayloads[T]): WebhookEndpointEvent {
  return { type, data } as WebhookEndpointEvent;
}

function decide(command: WebhookEndpointCommand, state: WebhookEndpointState): WebhookEndpointEvent[] {
  if (command.type === 'CreateWebhookEndpoint') {
    if (state.status !== 'none') return [];
    const { type: _type, at, ...data } = command;
    return [event('webhookEndpoint.created', { ...data, createdAt: at })];
  }
  if (state.status === 'none' || state.deleted) throw new ApiError('WebhookNotFound');
  const { webhookId, projectId } = state;
  const at = command.at;
  switch (command.type) {
    case 'UpdateWebhookEndpoint': {
      const changes: Partial<WebhookEndpointSettings> = {};
      for (const field of SETTINGS) {
        if (!Object.hasOwn(command.changes, field) || command.changes[field] === undefined) continue;
        if (JSON.stringify(command.changes[field]) !== JSON.stringify(state[field])) Object.assign(changes, { [field]: command.changes[field] });
      }
      const changedFields = Object.keys(changes);
      return changedFields.length === 0 ? [] : [event('webhookEndpoint.updated', { webhookId, projectId, changedFields, changes, at })];
    }
    case 'EnableWebhookEndpoint':
      return state.status === 'enabled' ? [] : [event('webhookEndpoint.enabled', { webhookId, projectId, previousStatus: state.status, at })];
    case 'DisableWebhookEndpoint':
      return state.status === 'disabled' ? [] : [event('webhookEndpoint.disabled', { webhookId, projectId, previousStatus: state.status, at })];
    case 'RotateSigningKey':
      return [event('webhookEndpoint.signingKeyRotated', { webhookId, projectId, at })];
    case 'DeleteWebhookEndpoint':
      return [event('webhookEndpoint.deleted', { webhookId, projectId, at })];
    case 'NotifyEndpointDown':
      // Once per down episode; a partner who disabled the endpoint is not told it is down. A
      // suspension that came first (a clock moved days at once) does not swallow the notice.
      return state.status === 'disabled' || state.notifiedDownSince === command.downSince ? [] : [event('webhookEndpoint.downNotified', { webhookId, projectId, downSince: command.downSince, at })];
    case 'SuspendWebhookEndpoint':
      // Set only by the service, and only on an endpoint that is being delivered to.
      return state.status !== 'enabled' ? [] : [event('webhookEndpoint.suspended', { webhookId, projectId, previousStatus: state.status, downSince: command.downSince, at })];
  }
}

export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointEvent, WebhookEndpointState> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide,
};

export const webhookEndpointStreamId = (webhookId: string) => `webhook-endpoint-${webhookId}`;
