// The Events list of the project, each event re-delivered to an endpoint of the partner's choosing (a new
// delivery of it, POST /webhooks/{id}/deliveries).
import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { navigate, routeQuery, useAction, useResource } from '../hooks';
import { Empty, IdLink, Loaded, Pager, ProblemNote, Time } from '../ui';

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
