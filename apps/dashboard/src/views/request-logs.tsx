// The request log (docs/request-logs.md): every API request the project's keys made, newest first, filtered by
// the API (status class, method, path, request id), and each one with its masked bodies, the way a partner
// finds what their integration sent and what it was answered.
import { useState } from 'preact/hooks';
import { get, type Schemas } from '../api';
import { navigateWithFilters, routeQuery, useResource } from '../hooks';
import { Empty, Filters, Loaded, Pager, Time } from '../ui';

type Entry = Schemas['RequestLogResponse'];
const FILTERS = ['status', 'method', 'path', 'requestId'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;
const STATUSES = [
  ['', 'Any status'],
  ['2xx', 'Succeeded (2xx)'],
  ['4xx', 'Refused (4xx)'],
  ['5xx', 'Failed (5xx)'],
] as const;
const METHODS = ['', 'GET', 'POST', 'PATCH', 'DELETE'] as const;

function StatusCode({ status }: { status: number }) {
  const kind = status >= 500 ? 'failed' : status >= 400 ? 'refused' : 'succeeded';
  return (
    <span class={`status status-${kind === 'succeeded' ? 'completed' : 'failed'}`} title={kind}>
      {status}
    </span>
  );
}

export function RequestLogs() {
  const query = routeQuery();
  const applied = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])) as Filters;
  const cursor = query.get('cursor') ?? '';
  const [form, setForm] = useState(applied);
  const list = useResource(
    () =>
      get('/v0.13/request-logs', {
        query: {
          limit: 50,
          cursor: cursor || undefined,
          status: applied.status || undefined,
          method: applied.method || undefined,
          path: applied.path || undefined,
          requestId: applied.requestId || undefined,
        },
      }),
    [applied.status, applied.method, applied.path, applied.requestId, cursor],
  );
  const field = (name: keyof Filters) => ({
    name,
    value: form[name],
    onInput: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }),
  });
  return (
    <section aria-labelledby="request-logs-title">
      <h2 id="request-logs-title">Request log</h2>
      <p>
        Every API request of this project's keys, newest first, with what was sent and answered. Secrets, account and
        card numbers are masked; entries are kept 30 days by default.
      </p>
      <Filters applied={Object.values(applied).some(Boolean)}>
        <form
          class="filters"
          aria-label="Filter the request log"
          onSubmit={(e) => {
            e.preventDefault();
            navigateWithFilters('/request-logs', form);
          }}
        >
          <div class="grid">
            <label>
              Status
              <select {...field('status')} onChange={(e) => setForm({ ...form, status: e.currentTarget.value })}>
                {STATUSES.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Method
              <select {...field('method')} onChange={(e) => setForm({ ...form, method: e.currentTarget.value })}>
                {METHODS.map((method) => (
                  <option key={method} value={method}>
                    {method || 'Any method'}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Path
              <input {...field('path')} placeholder="/transactions" />
            </label>
            <label>
              Request id
              <input {...field('requestId')} placeholder="req_…" />
            </label>
          </div>
          <button type="submit">Filter</button>
        </form>
      </Filters>
      <Loaded resource={list} label="the request log">
        {(page) => (
          <>
            {page.data.length === 0 ? <Empty>No requests match.</Empty> : <RequestTable rows={page.data} />}
            <Pager page={page} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function RequestTable({ rows }: { rows: Entry[] }) {
  return (
    <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
      <table class="striped cards" aria-label="Requests">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Request</th>
            <th scope="col">Status</th>
            <th scope="col">Took</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((entry) => (
            <tr key={entry.id}>
              <td data-label="When">
                <Time iso={entry.createdAt} />
              </td>
              <td data-label="Request">
                <a href={`#/request-logs/${entry.id}`}>
                  <code>
                    {entry.method} {entry.path}
                  </code>
                </a>
              </td>
              <td data-label="Status">
                <StatusCode status={entry.status} />
              </td>
              <td data-label="Took">{entry.durationMs} ms</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Body({ label, value }: { label: string; value: unknown }) {
  return (
    <section aria-label={label}>
      <h3>{label}</h3>
      {value === null || value === undefined ? (
        <p>None.</p>
      ) : (
        <pre class="body" tabIndex={0}>
          {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
        </pre>
      )}
    </section>
  );
}

export function RequestLogDetail({ id }: { id: string }) {
  const entry = useResource(() => get('/v0.13/request-logs/{id}', { params: { id } }), [id], { live: false });
  return (
    <section aria-labelledby="request-log-title">
      <p>
        <a href="#/request-logs">← Request log</a>
      </p>
      <Loaded resource={entry} label="the request">
        {(e) => (
          <>
            <h2 id="request-log-title">
              <code>
                {e.method} {e.path}
              </code>{' '}
              <StatusCode status={e.status} />
            </h2>
            <dl class="facts">
              <dt>When</dt>
              <dd>
                <Time iso={e.createdAt} />
              </dd>
              <dt>Took</dt>
              <dd>{e.durationMs} ms</dd>
              <dt>Request id</dt>
              <dd>
                <code>{e.requestId}</code>
              </dd>
              <dt>Idempotency key</dt>
              <dd>{e.idempotencyKey ? <code>{e.idempotencyKey}</code> : 'none'}</dd>
            </dl>
            <Body label="Request body" value={e.requestBody} />
            <Body label="Response body" value={e.responseBody} />
          </>
        )}
      </Loaded>
    </section>
  );
}
