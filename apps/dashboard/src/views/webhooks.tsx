// Webhook endpoints: their deliveries, each attempt's status code, duration and response excerpt; retry,
// test, enable, disable and key rotation (the new key shown once). The Events list, with re-delivery.
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { navigate, routeQuery, useAction, useResource } from '../hooks';
import { Empty, IdLink, Loaded, Pager, ProblemNote, ShownOnce, Status, Time } from '../ui';

const DELIVERY_STATUSES = ['queued', 'delivered', 'failed', 'skipped'] as const;
/** Deliveries change without a partner event of their own: their pages read them again this often. */
const DELIVERY_POLL_MS = 2_000;

export function WebhooksList() {
  const cursor = routeQuery().get('cursor') ?? '';
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

export function WebhookDetail({ id }: { id: string }) {
  const status = routeQuery().get('status') ?? '';
  const cursor = routeQuery().get('cursor') ?? '';
  const endpoint = useResource(() => get('/v0.13/webhooks/{id}', { params: { id } }), [id]);
  const deliveries = useResource(
    () =>
      get('/v0.13/webhooks/{id}/deliveries', {
        params: { id },
        query: { limit: 50, status: status || undefined, cursor: cursor || undefined },
      }),
    [id, status, cursor],
    { pollMs: DELIVERY_POLL_MS },
  );
  const [selected, setSelected] = useState<string[]>([]);
  const [newKey, setNewKey] = useState<string>();
  const action = useAction(async (what: 'enable' | 'disable' | 'test' | 'rotate-key' | 'retry') => {
    switch (what) {
      case 'enable':
        return void (await post('/v0.13/webhooks/{id}/enable', { params: { id } }));
      case 'disable':
        return void (await post('/v0.13/webhooks/{id}/disable', { params: { id } }));
      case 'test':
        return void (await post('/v0.13/webhooks/{id}/test', { params: { id } }));
      case 'rotate-key':
        return setNewKey((await post('/v0.13/webhooks/{id}/rotate-key', { params: { id } })).signingKey);
      case 'retry': {
        await post('/v0.13/webhooks/{id}/deliveries/retry', { params: { id }, body: { deliveryIds: selected } });
        return setSelected([]);
      }
    }
  });
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
              <dd>
                <Status status={w.status} />
              </dd>
              <dt>Subscriptions</dt>
              <dd>{w.subscriptions.join(', ')}</dd>
              <dt>Timeout</dt>
              <dd>{w.timeoutMs} ms</dd>
            </dl>
            <div class="actions">
              <button type="button" disabled={action.busy} onClick={() => void action.act('test')}>
                Send a test
              </button>
              {w.status === 'enabled' ? (
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  onClick={() => void action.act('disable')}
                >
                  Disable
                </button>
              ) : (
                <button
                  type="button"
                  class="secondary"
                  disabled={action.busy}
                  onClick={() => void action.act('enable')}
                >
                  Enable
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
      {action.error && <ProblemNote problem={action.error} />}
      {newKey && <ShownOnce label="New signing key" value={newKey} onDone={() => setNewKey(undefined)} />}
      <h3>Deliveries</h3>
      <form class="filters" aria-label="Filter deliveries">
        <label>
          Status
          <select
            name="status"
            value={status}
            onChange={(e) =>
              navigate(`/webhooks/${id}${e.currentTarget.value ? `?status=${e.currentTarget.value}` : ''}`)
            }
          >
            <option value="">any</option>
            {DELIVERY_STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
      </form>
      <button type="button" disabled={selected.length === 0 || action.busy} onClick={() => void action.act('retry')}>
        Retry selected ({selected.length})
      </button>
      <Loaded resource={deliveries} label="deliveries">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No delivery.</Empty>
          ) : (
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
              <table class="striped">
                <thead>
                  <tr>
                    <th scope="col">Select</th>
                    <th scope="col">Delivery</th>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Next attempt</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`Select delivery ${d.id}`}
                          checked={selected.includes(d.id)}
                          onChange={(e) =>
                            setSelected((s) => (e.currentTarget.checked ? [...s, d.id] : s.filter((x) => x !== d.id)))
                          }
                        />
                      </td>
                      <td>
                        <IdLink id={d.id} href={`#/webhooks/${id}/deliveries/${d.id}`} />
                      </td>
                      <td>
                        {d.event}
                        {d.test ? ' (test)' : ''}
                      </td>
                      <td>
                        <Status status={d.status} />
                      </td>
                      <td>{d.attemptCount}</td>
                      <td>
                        <Time iso={d.nextAttemptAt} />
                      </td>
                      <td>
                        <Time iso={d.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      {deliveries.data && <Pager page={deliveries.data} />}
    </section>
  );
}

export function DeliveryDetail({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) {
  const delivery = useResource(
    () => get('/v0.13/webhooks/{id}/deliveries/{deliveryId}', { params: { id: webhookId, deliveryId } }),
    [webhookId, deliveryId],
    { pollMs: DELIVERY_POLL_MS },
  );
  const retry = useAction(() =>
    post('/v0.13/webhooks/{id}/deliveries/retry', { params: { id: webhookId }, body: { deliveryIds: [deliveryId] } }),
  );
  return (
    <section aria-labelledby="delivery-title">
      <h2 id="delivery-title">
        Delivery <code>{deliveryId}</code>
      </h2>
      <p>
        <a href={`#/webhooks/${webhookId}`}>Back to the endpoint</a>
      </p>
      <Loaded resource={delivery} label="the delivery">
        {(d) => (
          <>
            <dl class="facts">
              <dt>Status</dt>
              <dd data-testid="delivery-status">
                <Status status={d.status} />
              </dd>
              <dt>Event</dt>
              <dd>
                {d.event} <code>{d.eventId}</code>
              </dd>
              <dt>Attempts</dt>
              <dd>{d.attemptCount}</dd>
              <dt>Next attempt</dt>
              <dd>
                <Time iso={d.nextAttemptAt} />
              </dd>
              <dt>Delivered</dt>
              <dd>
                <Time iso={d.deliveredAt} />
              </dd>
            </dl>
            <button type="button" disabled={retry.busy} aria-busy={retry.busy} onClick={() => void retry.act()}>
              Retry this delivery
            </button>
            {retry.error && <ProblemNote problem={retry.error} />}
            {retry.result && <p role="status">Requeued: {retry.result.requeued} delivery.</p>}
            <h3>Attempts</h3>
            {d.attempts.length === 0 ? (
              <Empty>No attempt yet.</Empty>
            ) : (
              <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">#</th>
                      <th scope="col">At</th>
                      <th scope="col">Status code</th>
                      <th scope="col">Duration</th>
                      <th scope="col">Response (excerpt) or error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.attempts.map((a) => (
                      <tr key={a.attempt}>
                        <td>{a.attempt}</td>
                        <td>
                          <Time iso={a.attemptedAt} />
                        </td>
                        <td>{a.statusCode ?? '—'}</td>
                        <td>{a.durationMs} ms</td>
                        <td>
                          <code class="excerpt">{a.error ?? (a.responseBody ?? '').slice(0, 300)}</code>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <details>
              <summary>Payload</summary>
              <pre tabIndex={0} aria-label="The delivery's payload">
                <code>{JSON.stringify(d.payload, null, 2)}</code>
              </pre>
            </details>
          </>
        )}
      </Loaded>
    </section>
  );
}

export function EventsList() {
  const type = routeQuery().get('type') ?? '';
  const cursor = routeQuery().get('cursor') ?? '';
  const events = useResource(
    () => get('/v0.13/events', { query: { limit: 50, type: type || undefined, cursor: cursor || undefined } }),
    [type, cursor],
  );
  const endpoints = useResource(() => get('/v0.13/webhooks', { query: { limit: 100 } }), [], { live: false });
  const [endpoint, setEndpoint] = useState('');
  const resend = useAction((eventId: string) =>
    post('/v0.13/webhooks/{id}/deliveries', { params: { id: endpoint }, body: { eventIds: [eventId] } }),
  );
  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Events</h2>
      <div class="grid">
        <label>
          Type
          <input
            name="type"
            placeholder="transaction.statusChanged"
            value={type}
            onChange={(e) =>
              navigate(
                `/events${e.currentTarget.value.trim() ? `?type=${encodeURIComponent(e.currentTarget.value.trim())}` : ''}`,
              )
            }
          />
        </label>
        <label>
          Re-deliver to
          <select name="endpoint" value={endpoint} onChange={(e) => setEndpoint(e.currentTarget.value)}>
            <option value="">choose an endpoint</option>
            {(endpoints.data?.data ?? []).map((w) => (
              <option value={w.id}>{w.url}</option>
            ))}
          </select>
        </label>
      </div>
      {resend.error && <ProblemNote problem={resend.error} />}
      {resend.result && (
        <p role="status">
          {resend.result.deliveries.length > 0
            ? `Queued again as ${resend.result.deliveries.map((d) => d.id).join(', ')}.`
            : 'The endpoint does not subscribe to that event: nothing sent.'}
        </p>
      )}
      <Loaded resource={events} label="events">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No event in the retention window.</Empty>
          ) : (
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
              <table class="striped">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Type</th>
                    <th scope="col">Resource</th>
                    <th scope="col">Occurred</th>
                    <th scope="col">Re-deliver</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((e) => {
                    const data = e.data as { id?: string; status?: string; subStatus?: string | null };
                    return (
                      <tr key={e.id}>
                        <td>
                          <code>{e.id}</code>
                        </td>
                        <td>
                          {e.eventType ?? e.event}
                          {data.status ? ` → ${data.subStatus ?? data.status}` : ''}
                        </td>
                        <td>
                          {data.id?.startsWith('txn_') ? (
                            <IdLink id={data.id} href={`#/transactions/${data.id}`} />
                          ) : (
                            <code>{data.id ?? '—'}</code>
                          )}
                        </td>
                        <td>
                          <Time iso={e.occurredAt} />
                        </td>
                        <td>
                          <button
                            type="button"
                            class="secondary outline"
                            disabled={!endpoint || resend.busy}
                            onClick={() => void resend.act(e.id)}
                            aria-label={`Re-deliver ${e.id}`}
                          >
                            Re-deliver
                          </button>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )
        }
      </Loaded>
      {events.data && <Pager page={events.data} />}
    </section>
  );
}
