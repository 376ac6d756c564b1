// Spec: States/Webhook; Webhook endpoint and delivery.
import { ApiError } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import { subscribesTo, unknownSubscriptions } from './subscriptions';
import { webhookEndpointDecider, type WebhookEndpointEvent } from './webhook-endpoint.decider';

const given = specFor(webhookEndpointDecider);
const at = '2026-01-01T00:00:00.000Z';
const ids = { webhookId: 'wh_1', projectId: 'prj_1' };
const settings = {
  url: 'https://example.com/h',
  subscriptions: ['*'],
  timeoutMs: 5000,
  notifyThresholdSecs: 3600,
  description: null,
};
const created: WebhookEndpointEvent = { type: 'webhookEndpoint.created', data: { ...ids, ...settings, createdAt: at } };
const disabled: WebhookEndpointEvent = {
  type: 'webhookEndpoint.disabled',
  data: { ...ids, previousStatus: 'enabled', at },
};
const deleted: WebhookEndpointEvent = { type: 'webhookEndpoint.deleted', data: { ...ids, at } };
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('webhook endpoint decider', () => {
  it('creates an enabled endpoint', () =>
    given([])
      .when({ type: 'CreateWebhookEndpoint', ...ids, ...settings, at })
      .then([created]));

  it('names only the settings that changed', () =>
    given([created])
      .when({ type: 'UpdateWebhookEndpoint', changes: { url: settings.url, timeoutMs: 2000 }, at })
      .then([
        {
          type: 'webhookEndpoint.updated',
          data: { ...ids, changedFields: ['timeoutMs'], changes: { timeoutMs: 2000 }, at },
        },
      ]));

  it('disables and enables once each', () => {
    given([created]).when({ type: 'DisableWebhookEndpoint', at }).then([disabled]);
    given([created, disabled]).when({ type: 'DisableWebhookEndpoint', at }).then([]);
    given([created, disabled])
      .when({ type: 'EnableWebhookEndpoint', at })
      .then([{ type: 'webhookEndpoint.enabled', data: { ...ids, previousStatus: 'disabled', at } }]);
    given([created]).when({ type: 'EnableWebhookEndpoint', at }).then([]);
  });

  const downSince = '2026-01-01T01:00:00.000Z';
  const notified: WebhookEndpointEvent = { type: 'webhookEndpoint.downNotified', data: { ...ids, downSince, at } };
  const suspended: WebhookEndpointEvent = {
    type: 'webhookEndpoint.suspended',
    data: { ...ids, previousStatus: 'enabled', downSince, at },
  };
  const enabled: WebhookEndpointEvent = {
    type: 'webhookEndpoint.enabled',
    data: { ...ids, previousStatus: 'suspended', at },
  };

  it('notifies a down endpoint once per episode; enabling starts a new episode', () => {
    given([created]).when({ type: 'NotifyEndpointDown', downSince, at }).then([notified]);
    given([created, notified]).when({ type: 'NotifyEndpointDown', downSince, at }).then([]);
    given([created, notified])
      .when({ type: 'NotifyEndpointDown', downSince: '2026-01-02T00:00:00.000Z', at })
      .then([{ ...notified, data: { ...notified.data, downSince: '2026-01-02T00:00:00.000Z' } }]);
    // Suspended first (the clock moved days at once): the notice is still given; disabled: never.
    given([created, suspended]).when({ type: 'NotifyEndpointDown', downSince, at }).then([notified]);
    given([created, disabled]).when({ type: 'NotifyEndpointDown', downSince, at }).then([]);
  });

  it('suspends only an enabled endpoint, and enable brings it back', () => {
    given([created]).when({ type: 'SuspendWebhookEndpoint', downSince, at }).then([suspended]);
    given([created, suspended]).when({ type: 'SuspendWebhookEndpoint', downSince, at }).then([]);
    given([created, disabled]).when({ type: 'SuspendWebhookEndpoint', downSince, at }).then([]);
    given([created, suspended]).when({ type: 'EnableWebhookEndpoint', at }).then([enabled]);
    given([created, notified, suspended, enabled]).when({ type: 'NotifyEndpointDown', downSince, at }).then([notified]);
  });

  it('refuses everything on a deleted endpoint', () => {
    given([created, deleted]).when({ type: 'RotateSigningKey', at }).thenThrows(isError('WebhookNotFound'));
    given([created, deleted]).when({ type: 'DeleteWebhookEndpoint', at }).thenThrows(isError('WebhookNotFound'));
  });
});

describe('subscriptions', () => {
  it('* covers partner events but not the compliance review events, which must be named', () => {
    expect(subscribesTo(['*'], 'externalAccount.statusChanged')).toBe(true);
    expect(subscribesTo(['*'], 'transaction.cryptoToFiat.underReview')).toBe(false);
    expect(subscribesTo(['transaction.cryptoToFiat.underReview'], 'transaction.cryptoToFiat.underReview')).toBe(true);
  });

  it('delivers webhook.test whatever the subscriptions', () =>
    expect(subscribesTo(['cashIn.created'], 'webhook.test')).toBe(true));

  it('knows the catalogue', () =>
    expect(unknownSubscriptions(['*', 'cashIn.created', 'cashIn.deleted'])).toEqual(['cashIn.deleted']));
});
