// The operator's queue: the transactions of every project that wait on an operator, each with its project,
// customer, amount, why it is held, how long, and only the actions that apply to it (docs/sandbox.md,
// "Operator actions"; the spec's "Unconfirmed payout sweep"): each asks for a reason and shows the result or
// the API's refusal in its own words.
import { useState } from 'preact/hooks';
import { get, post, type Schemas } from '../api';
import { routeQuery, useResource } from '../hooks';
import { CustomerRef, ShortId } from '../ids';
import { age, label } from '../labels';
import { refreshAll } from '../live';
import { Amount, Empty, Loaded, Pager, ReasonAction, Status, Time } from '../ui';

type Transaction = Schemas['TransactionResponse'];
type OperatorAction = 'retry' | 'refund' | 'refund-to-sender' | 'mark-failed' | 'complete-refund';
const LABELS: Record<OperatorAction, string> = {
  retry: 'Retry',
  refund: 'Refund',
  'refund-to-sender': 'Refund to sender',
  'mark-failed': 'Mark failed',
  'complete-refund': 'Complete refund',
};
/** A leg that failed because an account it needed was invalidated or deleted: nothing was sent. */
const UNUSABLE_ACCOUNT = ['externalAccountInvalid', 'externalAccountDeleted'];

/**
 * The actions the transactions service takes for this state, and why when none: an unconfirmed payout takes
 * each of retry, refund and mark-failed (each asks the provider first); a payout held after it failed takes
 * them too; a deposit's refund refused for its return destination is refunded to the sender instead; a virtual
 * account's bank refund in flight or reported only as initiated is completed.
 */
export function actionsFor(t: Transaction): { actions: OperatorAction[]; why?: string } {
  const last = t.legs.at(-1);
  if (t.subStatus === 'processing.payoutUnconfirmed') return { actions: ['retry', 'refund', 'mark-failed'] };
  if (t.status === 'awaitingAction')
    return {
      actions: [],
      why: 'It waits on the partner (a sender to attribute, or a destination), not on an operator.',
    };
  if (t.subStatus !== 'processing.underReview') return { actions: [], why: 'No operator action applies now.' };
  if (last?.kind === 'refund' && last.status === 'failed' && UNUSABLE_ACCOUNT.includes(last.failure?.code ?? ''))
    return { actions: ['refund-to-sender'] };
  if (t.precursor.type === 'virtualAccount' && last?.kind === 'refund' && last.status !== 'settled')
    return { actions: ['complete-refund'] };
  const payoutFailed = t.legs.some((l) => l.kind === 'payout' && l.status === 'failed');
  if (payoutFailed && !t.legs.some((l) => l.status === 'pending'))
    return { actions: ['retry', 'refund', 'mark-failed'] };
  return { actions: [], why: 'It is under review with a transfer still in flight: wait for it to settle or fail.' };
}

/** Why it is held, in the platform's words: the hold, the last failed transfer, or the error. */
function reasonOf(t: Transaction): string {
  if (t.hold) return t.hold.message;
  const failed = [...t.legs].reverse().find((l) => l.status === 'failed' && l.failure);
  if (failed?.failure) return `${label(failed.kind)} failed: ${failed.failure.message}`;
  if (t.error) return t.error.message;
  if (t.subStatus === 'processing.payoutUnconfirmed')
    return 'The payout provider has not confirmed the payout: the service stopped waiting for it.';
  return label(t.subStatus ?? t.status);
}

async function operate(id: string, action: OperatorAction, reason: string): Promise<string> {
  const body = { reason: reason || undefined };
  const params = { id };
  const answer =
    action === 'retry'
      ? await post('/v0.13/admin/transactions/{id}/retry', { params, body })
      : action === 'refund'
        ? await post('/v0.13/admin/transactions/{id}/refund', { params, body })
        : action === 'refund-to-sender'
          ? await post('/v0.13/admin/transactions/{id}/refund', { params, body: { ...body, to: 'sender' } })
          : action === 'mark-failed'
            ? await post('/v0.13/admin/transactions/{id}/mark-failed', { params, body })
            : await post('/v0.13/admin/transactions/{id}/complete-refund', { params, body: { reason } });
  // Worth the project's four-eyes threshold or more: a request that another operator approves (Approvals).
  if ('object' in answer) return `waiting for a second operator: approval request ${answer.id}`;
  return `${answer.result}: now ${label(answer.transaction.subStatus ?? answer.transaction.status).toLowerCase()}`;
}

export function HeldQueue() {
  const cursor = routeQuery().get('cursor') ?? '';
  const queue = useResource(
    () => get('/v0.13/admin/transactions/held', { query: { limit: 100, cursor: cursor || undefined } }),
    [cursor],
  );
  // Project names for the queue's items: the operator reads every project.
  const projects = useResource(() => get('/v0.13/admin/projects', { query: { limit: 100 } }), [], { live: false });
  const projectName = (id: string) => projects.data?.data.find((p) => p.id === id)?.name ?? 'Project';
  // What the last action did: kept here, since a resolved transaction leaves the queue.
  const [outcome, setOutcome] = useState<string>();
  const act = async (id: string, action: OperatorAction, reason: string) => {
    const text = await operate(id, action, reason);
    setOutcome(`${id}: ${text}`);
    refreshAll();
    return text;
  };
  return (
    <section aria-labelledby="held-title">
      <h2 id="held-title">Held transactions</h2>
      <p>
        Transactions waiting on an operator: under review, payout unconfirmed, or awaiting action, in every project.
      </p>
      <p role="status">{outcome}</p>
      <Loaded resource={queue} label="held transactions">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>Nothing is held.</Empty>
          ) : (
            <ul class="queue">
              {page.data.map(({ projectId, transaction: t }) => {
                const { actions, why } = actionsFor(t);
                const since = new Date(t.updatedAt).getTime();
                return (
                  <li key={t.id}>
                    <article aria-label={`Held transaction ${t.id}`}>
                      <header>
                        <strong title={t.sourceToDestination}>{label(t.sourceToDestination)}</strong>{' '}
                        <ShortId id={t.id} /> <Status status={t.status} sub={t.subStatus} />
                      </header>
                      <dl class="facts">
                        <dt>Reason</dt>
                        <dd data-testid="held-reason">{reasonOf(t)}</dd>
                        <dt>Amount</dt>
                        <dd>
                          <Amount amount={t.pricing.source.amountGross} asset={t.pricing.source.asset} />
                        </dd>
                        <dt>Customer</dt>
                        <dd>
                          <CustomerRef id={t.customerId} />
                        </dd>
                        <dt>Project</dt>
                        <dd>
                          <a href={`#/projects/${projectId}`}>{projectName(projectId)}</a> <ShortId id={projectId} />
                        </dd>
                        <dt>Held</dt>
                        <dd>
                          {since <= Date.now() ? `${age(t.updatedAt, Date.now())} ago, since ` : 'since '}
                          <Time iso={t.updatedAt} />
                        </dd>
                        <dt>History</dt>
                        <dd>
                          <a href={`#/audit?targetId=${t.id}`}>Operator actions on it (audit log)</a>
                        </dd>
                      </dl>
                      <div class="actions">
                        {actions.length === 0 ? (
                          <small>{why}</small>
                        ) : (
                          actions.map((action) => (
                            <ReasonAction
                              key={action}
                              label={LABELS[action]}
                              required={action === 'complete-refund'}
                              onConfirm={(reason) => act(t.id, action, reason)}
                            />
                          ))
                        )}
                      </div>
                    </article>
                  </li>
                );
              })}
            </ul>
          )
        }
      </Loaded>
      {queue.data && <Pager page={queue.data} />}
    </section>
  );
}
