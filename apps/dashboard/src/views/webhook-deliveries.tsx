// An endpoint's deliveries: filtered by status, selected one by one or all at once, retried by selection or every
// failed or skipped one in a single request. On a phone, each delivery reads as a card rather than a row of a
// table too wide for it.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { get, type Schemas } from '../api';
import { navigate, useResource } from '../hooks';
import { Empty, IdLink, Loaded, Pager, Status, Time } from '../ui';
import { useNarrow } from './webhook-parts';

type Delivery = Schemas['WebhookDeliveryResponse'];
/** What POST /webhooks/{id}/deliveries/retry selects: ids, or every delivery of a status. */
export type RetrySelection = { deliveryIds: string[] } | { status: 'failed' | 'skipped' };

const DELIVERY_STATUSES = ['queued', 'delivered', 'failed', 'skipped'] as const;
/** Deliveries change without a partner event of their own: their pages read them again this often. */
export const DELIVERY_POLL_MS = 2_000;

/** The endpoint's deliveries, with the retry buttons; `outcome` (what the last retry gave) shows under them. */
export function Deliveries({
  webhookId,
  status,
  cursor,
  busy,
  onRetry,
  outcome,
}: {
  webhookId: string;
  status: string;
  cursor: string;
  busy: boolean;
  onRetry: (selection: RetrySelection) => Promise<boolean>;
  outcome: ComponentChildren;
}) {
  const narrow = useNarrow();
  const deliveries = useResource(
    () =>
      get('/v0.13/webhooks/{id}/deliveries', {
        params: { id: webhookId },
        query: { limit: 50, status: status || undefined, cursor: cursor || undefined },
      }),
    [webhookId, status, cursor],
    { pollMs: DELIVERY_POLL_MS },
  );
  const [selected, setSelected] = useState<string[]>([]);
  // A selection is of the deliveries listed: another filter or page starts a new one.
  useEffect(() => setSelected([]), [webhookId, status, cursor]);
  const listed = deliveries.data?.data.map((d) => d.id) ?? [];
  const all = listed.length > 0 && listed.every((id) => selected.includes(id));
  const retry = async (selection: RetrySelection) => {
    if (await onRetry(selection)) setSelected([]);
  };
  const select = (id: string, on: boolean) => setSelected((s) => (on ? [...s, id] : s.filter((x) => x !== id)));
  return (
    <>
      <h3>Deliveries</h3>
      <form class="filters" aria-label="Filter deliveries">
        <label>
          Status
          <select
            name="status"
            value={status}
            onChange={(e) =>
              navigate(`/webhooks/${webhookId}${e.currentTarget.value ? `?status=${e.currentTarget.value}` : ''}`)
            }
          >
            <option value="">any</option>
            {DELIVERY_STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
      </form>
      <div class="actions" role="group" aria-label="Retry deliveries">
        <label>
          <input
            type="checkbox"
            checked={all}
            disabled={listed.length === 0}
            onChange={(e) => setSelected(e.currentTarget.checked ? listed : [])}
          />
          Select all {listed.length} listed
        </label>
        <button
          type="button"
          disabled={selected.length === 0 || busy}
          onClick={() => void retry({ deliveryIds: selected })}
        >
          Retry selected ({selected.length})
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => void retry({ status: 'failed' })}>
          Retry every failed
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => void retry({ status: 'skipped' })}>
          Retry every skipped
        </button>
      </div>
      {outcome}
      <Loaded resource={deliveries} label="deliveries">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No delivery.</Empty>
          ) : narrow ? (
            <ul class="queue" aria-label="Deliveries">
              {page.data.map((d) => (
                <li key={d.id}>
                  <DeliveryCard webhookId={webhookId} d={d} selected={selected.includes(d.id)} onSelect={select} />
                </li>
              ))}
            </ul>
          ) : (
            <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
              <table class="striped">
                <thead>
                  <tr>
                    <th scope="col">Select</th>
                    <th scope="col">Delivery</th>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts since retry</th>
                    <th scope="col">Next attempt</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((d) => (
                    <tr key={d.id}>
                      <td>
                        <SelectBox id={d.id} selected={selected.includes(d.id)} onSelect={select} />
                      </td>
                      <td>
                        <IdLink id={d.id} href={`#/webhooks/${webhookId}/deliveries/${d.id}`} />
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
    </>
  );
}

function SelectBox({
  id,
  selected,
  onSelect,
}: {
  id: string;
  selected: boolean;
  onSelect: (id: string, on: boolean) => void;
}) {
  return (
    <input
      type="checkbox"
      aria-label={`Select delivery ${id}`}
      checked={selected}
      onChange={(e) => onSelect(id, e.currentTarget.checked)}
    />
  );
}

function DeliveryCard(props: {
  webhookId: string;
  d: Delivery;
  selected: boolean;
  onSelect: (id: string, on: boolean) => void;
}) {
  const { webhookId, d } = props;
  return (
    <article aria-label={`Delivery ${d.id}`}>
      <header class="actions">
        <SelectBox id={d.id} selected={props.selected} onSelect={props.onSelect} />
        <IdLink id={d.id} href={`#/webhooks/${webhookId}/deliveries/${d.id}`} />
        <Status status={d.status} />
      </header>
      <dl class="facts">
        <dt>Event</dt>
        <dd>
          {d.event}
          {d.test ? ' (test)' : ''}
        </dd>
        <dt>Attempts since retry</dt>
        <dd>{d.attemptCount}</dd>
        <dt>Next attempt</dt>
        <dd>
          <Time iso={d.nextAttemptAt} />
        </dd>
        <dt>Created</dt>
        <dd>
          <Time iso={d.createdAt} />
        </dd>
      </dl>
    </article>
  );
}
