// One delivery: its status, its attempts (numbered across the whole history, retries included) with each one's
// status code, duration and the start of the answer, and its retry; a retry refused because the endpoint is not
// enabled says why, with Enable in place.
import { get, post } from '../api';
import { useAction, useResource } from '../hooks';
import { Empty, Loaded, ProblemNote, Status, Time } from '../ui';
import { DELIVERY_POLL_MS } from './webhook-deliveries';
import { EndpointNotEnabled, isNotEnabled } from './webhook-parts';

export function DeliveryDetail({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) {
  const delivery = useResource(
    () => get('/v0.13/webhooks/{id}/deliveries/{deliveryId}', { params: { id: webhookId, deliveryId } }),
    [webhookId, deliveryId],
    { pollMs: DELIVERY_POLL_MS },
  );
  const endpoint = useResource(() => get('/v0.13/webhooks/{id}', { params: { id: webhookId } }), [webhookId]);
  const retry = useAction(() =>
    post('/v0.13/webhooks/{id}/deliveries/retry', { params: { id: webhookId }, body: { deliveryIds: [deliveryId] } }),
  );
  const enable = useAction(async () => {
    await post('/v0.13/webhooks/{id}/enable', { params: { id: webhookId } });
    retry.clear();
  });
  const state = endpoint.data?.status ?? 'enabled';
  const refused = isNotEnabled(retry.error);
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
              {/* The history numbers every attempt; the count the schedule goes by starts again at each retry. */}
              <dd data-testid="delivery-attempts">
                {d.attempts.length} in all, {d.attemptCount} since the last retry
              </dd>
              <dt>Next attempt</dt>
              <dd>
                <Time iso={d.nextAttemptAt} />
              </dd>
              <dt>Delivered</dt>
              <dd>
                <Time iso={d.deliveredAt} />
              </dd>
            </dl>
            {(refused || state !== 'enabled') && (
              <EndpointNotEnabled
                status={state}
                refused={refused}
                busy={enable.busy}
                onEnable={() => void enable.act()}
              />
            )}
            {enable.error && <ProblemNote problem={enable.error} />}
            <button type="button" disabled={retry.busy} aria-busy={retry.busy} onClick={() => void retry.act()}>
              Retry this delivery
            </button>
            {retry.error && !refused && <ProblemNote problem={retry.error} />}
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
