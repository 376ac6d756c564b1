// The operators' audit log (docs/operators.md, Audit log): every operator action, its request and then its
// answer, newest first, filtered by the API (actor, action, target, since when), and the check of its hash
// chain, whose failure names the first entry edited or deleted.
import { useState } from 'preact/hooks';
import { get, type Schemas } from '../api';
import { navigateWithFilters, routeQuery, useAction, useResource } from '../hooks';
import { Empty, Loaded, Pager, ProblemNote, Time } from '../ui';

type Entry = Schemas['AuditEntryResponse'];
const FILTERS = ['actor', 'action', 'targetId', 'createdAfter'] as const;

export function AuditLog() {
  const query = routeQuery();
  const applied = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ''])) as Record<
    (typeof FILTERS)[number],
    string
  >;
  const cursor = query.get('cursor') ?? '';
  const [form, setForm] = useState(applied);
  const list = useResource(
    () =>
      get('/v0.13/admin/audit-log', {
        query: {
          limit: 100,
          cursor: cursor || undefined,
          actor: applied.actor || undefined,
          action: applied.action || undefined,
          targetId: applied.targetId || undefined,
          // The form's local time, as the API's instant.
          createdAfter: applied.createdAfter ? new Date(applied.createdAfter).toISOString() : undefined,
        },
      }),
    [applied.actor, applied.action, applied.targetId, applied.createdAfter, cursor],
    { live: false },
  );
  const verify = useAction(() => get('/v0.13/admin/audit-log/verify'));
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <p>Every operator action: its request, recorded before it ran, then its answer. Reads are not recorded.</p>
      <form
        class="filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          navigateWithFilters('/audit', form);
        }}
      >
        <div class="grid">
          <label>
            Actor (subject)
            <input
              name="actor"
              value={form.actor}
              onInput={(e) => setForm({ ...form, actor: e.currentTarget.value })}
            />
          </label>
          <label>
            Action
            <input
              name="action"
              placeholder="POST /v0.13/admin/…"
              value={form.action}
              onInput={(e) => setForm({ ...form, action: e.currentTarget.value })}
            />
          </label>
          <label>
            Target id
            <input
              name="targetId"
              value={form.targetId}
              onInput={(e) => setForm({ ...form, targetId: e.currentTarget.value })}
            />
          </label>
          <label>
            After
            <input
              type="datetime-local"
              name="createdAfter"
              value={form.createdAfter}
              onInput={(e) => setForm({ ...form, createdAfter: e.currentTarget.value })}
            />
          </label>
        </div>
        <button type="submit">Filter</button>
      </form>
      <div aria-label="The hash chain" role="group">
        <button type="button" class="secondary" disabled={verify.busy} onClick={() => void verify.act()}>
          Verify the chain
        </button>
        {verify.error && <ProblemNote problem={verify.error} />}
        <p role="status">
          {verify.result &&
            (verify.result.valid ? `The chain verifies: ${verify.result.entries} entries as written.` : undefined)}
        </p>
        {verify.result && !verify.result.valid && (
          <div role="alert" class="problem">
            <strong>The audit log was changed</strong>
            <p>
              Entry <code>{verify.result.firstInvalidEntryId}</code> was edited, or the one before it deleted;{' '}
              {verify.result.entries} entries before it verify.
            </p>
          </div>
        )}
      </div>
      <Loaded resource={list} label="the audit log">
        {(page) => (
          <>
            {page.data.length === 0 ? <Empty>No entries match.</Empty> : <EntryTable rows={page.data} />}
            <Pager page={page} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function EntryTable({ rows }: { rows: Entry[] }) {
  return (
    <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
      <table class="striped" aria-label="Audit entries">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Reason</th>
            <th scope="col">Recorded</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((entry) => (
            <tr key={entry.id}>
              <td>
                <Time iso={entry.createdAt} />
              </td>
              <td>
                {entry.actor.name}{' '}
                <small>
                  ({entry.actor.role}
                  {entry.actor.via === 'admin-token' ? ', static token' : ''})
                </small>
              </td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>{entry.targetId ? <code>{entry.targetId}</code> : entry.targetType}</td>
              <td>{entry.reason ?? '—'}</td>
              <td>{entry.phase === 'request' ? 'request' : `answer ${entry.status}`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
