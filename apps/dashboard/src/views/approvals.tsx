// Four eyes on money (docs/operators.md, Four eyes): the operators' refunds, complete-refunds, mark-failed and
// retries that wait for a second operator, each approved (its action runs then) or rejected here; and those
// decided, with who decided and what the action did.
import { useState } from 'preact/hooks';
import { get, post, type Schemas } from '../api';
import { navigate, routeQuery, useResource } from '../hooks';
import { refreshAll } from '../live';
import { Empty, Loaded, Pager, ReasonAction, Time } from '../ui';

type Approval = Schemas['ApprovalResponse'];
const STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
const ACTION_LABELS: Record<Approval['action'], string> = {
  retry: 'Retry',
  refund: 'Refund',
  markFailed: 'Mark failed',
  completeRefund: 'Complete refund',
};

export function Approvals() {
  const query = routeQuery();
  const status = (STATUSES as readonly string[]).includes(query.get('status') ?? '')
    ? (query.get('status') as (typeof STATUSES)[number])
    : 'pending';
  const cursor = query.get('cursor') ?? '';
  const list = useResource(
    () => get('/v0.13/admin/approvals', { query: { limit: 100, status, cursor: cursor || undefined } }),
    [status, cursor],
  );
  // What the last decision did: kept here, since a decided request leaves the pending list.
  const [outcome, setOutcome] = useState<string>();
  return (
    <section aria-labelledby="approvals-title">
      <h2 id="approvals-title">Approvals</h2>
      <p>
        Money actions at or above a project's four-eyes threshold wait here for a second operator. Approving runs the
        action; its requester cannot approve it.
      </p>
      <nav aria-label="Approval status">
        <ul>
          {STATUSES.map((s) => (
            <li key={s}>
              <a
                href={`#/approvals?status=${s}`}
                aria-current={s === status ? 'page' : undefined}
                onClick={(e) => (e.preventDefault(), navigate(`/approvals?status=${s}`))}
              >
                {s[0].toUpperCase() + s.slice(1)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <p role="status">{outcome}</p>
      <Loaded resource={list} label="approval requests">
        {(page) => (
          <>
            {page.data.length === 0 ? (
              <Empty>No {status} requests.</Empty>
            ) : (
              <ul class="queue">
                {page.data.map((approval) => (
                  <li key={approval.id}>
                    <ApprovalCard approval={approval} onDecided={setOutcome} />
                  </li>
                ))}
              </ul>
            )}
            <Pager page={page} />
          </>
        )}
      </Loaded>
    </section>
  );
}

function ApprovalCard({ approval: a, onDecided }: { approval: Approval; onDecided: (text: string) => void }) {
  const decide = async (decision: 'approve' | 'reject', reason: string) => {
    const body = { reason: reason || undefined };
    const answer =
      decision === 'approve'
        ? await post('/v0.13/admin/approvals/{id}/approve', { params: { id: a.id }, body })
        : await post('/v0.13/admin/approvals/{id}/reject', { params: { id: a.id }, body });
    const text = answer.status === 'approved' ? `approved: ${answer.result ?? 'done'}` : answer.status;
    onDecided(`${ACTION_LABELS[a.action]} of ${a.transactionId}: ${text}`);
    refreshAll();
    return text;
  };
  return (
    <article aria-label={`${ACTION_LABELS[a.action]} of ${a.transactionId}`}>
      <header>
        <strong>{ACTION_LABELS[a.action]}</strong> of <code>{a.transactionId}</code> <small>({a.status})</small>
      </header>
      <dl class="facts">
        <dt>Project</dt>
        <dd>
          <a href={`#/projects/${a.projectId}`}>
            <code>{a.projectId}</code>
          </a>
        </dd>
        <dt>Worth</dt>
        <dd>
          {a.value} USD <small>(threshold {a.threshold})</small>
        </dd>
        <dt>Requested by</dt>
        <dd>
          {a.requestedBy.name} <small>({a.requestedBy.role})</small>, <Time iso={a.requestedAt} />
        </dd>
        <dt>Reason</dt>
        <dd>{a.reason ?? '—'}</dd>
        {a.status === 'pending' && (
          <>
            <dt>Expires</dt>
            <dd>
              <Time iso={a.expiresAt} />
            </dd>
          </>
        )}
        {a.decidedBy && (
          <>
            <dt>Decided by</dt>
            <dd>
              {a.decidedBy.name}, <Time iso={a.decidedAt!} />
              {a.result && <> — {a.result}</>}
              {a.rejectionReason && <> — “{a.rejectionReason}”</>}
            </dd>
          </>
        )}
      </dl>
      {a.status === 'pending' && (
        <div class="actions">
          <ReasonAction label="Approve" onConfirm={(reason) => decide('approve', reason)} />
          <ReasonAction label="Reject" onConfirm={(reason) => decide('reject', reason)} />
        </div>
      )}
    </article>
  );
}
