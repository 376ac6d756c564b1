// Webhook endpoints, and one endpoint: why it sends nothing when it does not (suspended or disabled) with Enable in
// place, its test send, enable, disable and key rotation (the new key shown once), and its deliveries
// (webhook-deliveries.tsx). On a phone, endpoints read as cards, their URLs wrapped across the card's width.
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { routeQuery, useAction, useResource } from '../hooks';
import { Empty, IdLink, Loaded, Pager, ProblemNote, ShownOnce, Status, Time } from '../ui';
import { Deliveries, type RetrySelection } from './webhook-deliveries';
import { EndpointNotEnabled, isNotEnabled, useNarrow } from './webhook-parts';

export { DeliveryDetail } from './webhook-delivery';
export { EventsList } from './webhook-events';

export function WebhooksList() {
  const cursor = routeQuery().get('cursor') ?? '';
  const narrow = useNarrow();
  const list = useResource(
    () => get('/v0.13/webhooks', { query: { limit: 100, cursor: cursor || undefined } }),
    [cursor],
  );
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook endpoints</h2>
      <Loaded resource={list} label="webhook endpoints">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No endpoint yet: create one with POST /webhooks.</Empty>
          ) : narrow ? (
            <ul class="queue" aria-label="Webhook endpoints">
              {page.data.map((w) => (
                <li key={w.id}>
                  <article aria-label={`Endpoint ${w.id}`}>
                    <header class="actions">
                      <IdLink id={w.id} href={`#/webhooks/${w.id}`} />
                      <Status status={w.status} />
                    </header>
                    <dl class="facts">
                      <dt>URL</dt>
                      <dd>
                        <code>{w.url}</code>
                      </dd>
                      <dt>Subscriptions</dt>
                      <dd>{w.subscriptions.join(', ')}</dd>
                      <dt>Created</dt>
                      <dd>
                        <Time iso={w.createdAt} />
                      </dd>
                    </dl>
                  </article>
                </li>
              ))}
            </ul>
          ) : (
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
              <table class="striped">
                <thead>
                  <tr>
                    <th scope="col">Endpoint</th>
                    <th scope="col">URL</th>
                    <th scope="col">Status</th>
                    <th scope="col">Subscriptions</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((w) => (
                    <tr key={w.id}>
                      <td>
                        <IdLink id={w.id} href={`#/webhooks/${w.id}`} />
                      </td>
                      <td>
                        <code>{w.url}</code>
                      </td>
                      <td>
                        <Status status={w.status} />
                      </td>
                      <td>{w.subscriptions.join(', ')}</td>
                      <td>
                        <Time iso={w.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      {list.data && <Pager page={list.data} />}
    </section>
  );
}

type Action = 'enable' | 'disable' | 'test' | 'rotate-key' | 'retry';

export function WebhookDetail({ id }: { id: string }) {
  const status = routeQuery().get('status') ?? '';
  const cursor = routeQuery().get('cursor') ?? '';
  const endpoint = useResource(() => get('/v0.13/webhooks/{id}', { params: { id } }), [id]);
  const [newKey, setNewKey] = useState<string>();
  const [last, setLast] = useState<Action>();
  // Each action answers what it did, for the page to say (a rotated key is shown on its own, once).
  const action = useAction(async (what: Action, selection?: RetrySelection): Promise<string | undefined> => {
    setLast(what);
    switch (what) {
      case 'enable':
        await post('/v0.13/webhooks/{id}/enable', { params: { id } });
        return 'Enabled: deliveries are sent to it again.';
      case 'disable':
        await post('/v0.13/webhooks/{id}/disable', { params: { id } });
        return 'Disabled: nothing is sent to it until it is enabled.';
      case 'test':
        return `Test sent as ${(await post('/v0.13/webhooks/{id}/test', { params: { id } })).id}.`;
      case 'rotate-key':
        setNewKey((await post('/v0.13/webhooks/{id}/rotate-key', { params: { id } })).signingKey);
        return undefined;
      case 'retry': {
        const { requeued } = await post('/v0.13/webhooks/{id}/deliveries/retry', { params: { id }, body: selection! });
        return `Requeued: ${requeued} ${requeued === 1 ? 'delivery' : 'deliveries'}.`;
      }
    }
  });
  const state = endpoint.data?.status ?? 'enabled';
  // A request refused because the endpoint is not enabled is answered by the explanation and its Enable, where
  // the request was made, instead of the refusal's words.
  const refused = isNotEnabled(action.error);
  const retrying = last === 'retry';
  const enable = () => void action.act('enable');
  const outcome = (
    <>
      {refused ? (
        <EndpointNotEnabled status={state} refused busy={action.busy} onEnable={enable} />
      ) : (
        action.error && <ProblemNote problem={action.error} />
      )}
      {action.result && <p role="status">{action.result}</p>}
    </>
  );
  return (
    <section aria-labelledby="webhook-title">
      <h2 id="webhook-title">
        Webhook endpoint <code>{id}</code>
      </h2>
      <Loaded resource={endpoint} label="the endpoint">
        {(w) => (
          <>
            <dl class="facts">
              <dt>URL</dt>
              <dd>
                <code>{w.url}</code>
              </dd>
              <dt>Status</dt>
              <dd data-testid="endpoint-status">
                <Status status={w.status} />
              </dd>
              <dt>Subscriptions</dt>
              <dd>{w.subscriptions.join(', ')}</dd>
              <dt>Timeout</dt>
              <dd>{w.timeoutMs} ms</dd>
            </dl>
            {w.status !== 'enabled' && !refused && (
              <EndpointNotEnabled status={w.status} busy={action.busy} onEnable={enable} />
            )}
            <div class="actions">
              <button
                type="button"
                disabled={action.busy || w.status !== 'enabled'}
                onClick={() => void action.act('test')}
              >
                Send a test
              </button>
              {w.status === 'enabled' && (
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  onClick={() => void action.act('disable')}
                >
                  Disable
                </button>
              )}
              <button
                type="button"
                class="contrast"
                disabled={action.busy}
                onClick={() => void action.act('rotate-key')}
              >
                Rotate signing key
              </button>
            </div>
          </>
        )}
      </Loaded>
      {!retrying && outcome}
      {newKey && <ShownOnce label="New signing key" value={newKey} onDone={() => setNewKey(undefined)} />}
      <Deliveries
        webhookId={id}
        status={status}
        cursor={cursor}
        busy={action.busy}
        onRetry={async (selection) => (await action.act('retry', selection)) !== undefined}
        outcome={retrying && outcome}
      />
    </section>
  );
}
