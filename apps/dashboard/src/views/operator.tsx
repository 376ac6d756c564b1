// The operator's view: held transactions in one queue across projects, with retry, refund, mark-failed
// and complete-refund (each asks for a reason and shows the API's refusal); projects (features, limits,
// attribution timeout) edited; API keys issued (the secret shown once) and revoked.
import { useState } from 'preact/hooks';
import { del, get, patch, post, type Schemas } from '../api';
import { routeQuery, useAction, useResource } from '../hooks';
import { refreshAll } from '../live';
import { Amount, Empty, Loaded, Pager, ProblemNote, ReasonAction, ShownOnce, Status, Time } from '../ui';

type OperatorAction = 'retry' | 'refund' | 'mark-failed' | 'complete-refund';
const ACTIONS: Array<{ action: OperatorAction; label: string }> = [
  { action: 'retry', label: 'Retry' },
  { action: 'refund', label: 'Refund' },
  { action: 'mark-failed', label: 'Mark failed' },
  { action: 'complete-refund', label: 'Complete refund' },
];

async function operate(id: string, action: OperatorAction, reason: string): Promise<string> {
  const body = { reason: reason || undefined };
  const answer =
    action === 'retry'
      ? await post('/v0.13/admin/transactions/{id}/retry', { params: { id }, body })
      : action === 'refund'
        ? await post('/v0.13/admin/transactions/{id}/refund', { params: { id }, body })
        : action === 'mark-failed'
          ? await post('/v0.13/admin/transactions/{id}/mark-failed', { params: { id }, body })
          : await post('/v0.13/admin/transactions/{id}/complete-refund', { params: { id }, body: { reason } });
  return `${answer.result}: now ${answer.transaction.subStatus ?? answer.transaction.status}`;
}

export function HeldQueue() {
  const cursor = routeQuery().get('cursor') ?? '';
  const queue = useResource(
    () => get('/v0.13/admin/transactions/held', { query: { limit: 100, cursor: cursor || undefined } }),
    [cursor],
  );
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
              {page.data.map(({ projectId, transaction: t }) => (
                <li key={t.id}>
                  <article aria-label={`Held transaction ${t.id}`}>
                    <header>
                      <code>{t.id}</code> <Status status={t.status} sub={t.subStatus} />
                    </header>
                    <dl class="facts">
                      <dt>Project</dt>
                      <dd>
                        <a href={`#/projects/${projectId}`}>
                          <code>{projectId}</code>
                        </a>
                      </dd>
                      <dt>Kind</dt>
                      <dd>{t.sourceToDestination}</dd>
                      <dt>Amount</dt>
                      <dd>
                        <Amount amount={t.pricing.source.amountGross} asset={t.pricing.source.asset} />
                      </dd>
                      <dt>Since</dt>
                      <dd>
                        <Time iso={t.updatedAt} />
                      </dd>
                      {t.hold && (
                        <>
                          <dt>Hold</dt>
                          <dd>{t.hold.message}</dd>
                        </>
                      )}
                      {t.error && (
                        <>
                          <dt>Error</dt>
                          <dd>
                            <code>{t.error.code}</code> {t.error.message}
                          </dd>
                        </>
                      )}
                    </dl>
                    <div class="actions">
                      {ACTIONS.map(({ action, label }) => (
                        <ReasonAction
                          key={action}
                          label={label}
                          required={action === 'complete-refund'}
                          onConfirm={(reason) => act(t.id, action, reason)}
                        />
                      ))}
                    </div>
                  </article>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      {queue.data && <Pager page={queue.data} />}
    </section>
  );
}

export function Projects() {
  const cursor = routeQuery().get('cursor') ?? '';
  const list = useResource(
    () => get('/v0.13/admin/projects', { query: { limit: 100, cursor: cursor || undefined } }),
    [cursor],
    { live: false },
  );
  const [name, setName] = useState('');
  const create = useAction(() => post('/v0.13/admin/projects', { body: { name: name.trim() } }));
  return (
    <section aria-labelledby="projects-title">
      <h2 id="projects-title">Projects</h2>
      <form
        aria-label="Create a project"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await create.act()) setName('');
        }}
      >
        <label for="project-name">New project's name</label>
        <fieldset role="group">
          <input id="project-name" name="name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <button type="submit" disabled={create.busy}>
            Create
          </button>
        </fieldset>
        {create.error && <ProblemNote problem={create.error} />}
      </form>
      <Loaded resource={list} label="projects">
        {(page) => (
          <div class="overflow-auto" tabIndex={0} role="region" aria-label="Table (scrolls sideways when narrow)">
            <table class="striped">
              <thead>
                <tr>
                  <th scope="col">Project</th>
                  <th scope="col">Name</th>
                  <th scope="col">Features</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((p) => (
                  <tr key={p.id}>
                    <td>
                      <a href={`#/projects/${p.id}`}>
                        <code>{p.id}</code>
                      </a>
                    </td>
                    <td>{p.name}</td>
                    <td>{featureList(p.features)}</td>
                    <td>
                      <Time iso={p.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
      {list.data && <Pager page={list.data} />}
    </section>
  );
}

const FEATURES = ['depositAddresses', 'cashPickup', 'globalRemittance', 'bulkPayouts'] as const;
const LIMITS = [
  ['perTransactionMin', 'Per transaction, minimum'],
  ['perTransactionMax', 'Per transaction, maximum'],
  ['perTransactionMultiple', 'Per transaction, multiple of'],
  ['dailyBankPayoutCap', 'Daily bank payout cap'],
  ['monthlyBankPayoutCap', 'Monthly bank payout cap'],
] as const;

function featureList(features: Schemas['ProjectFeaturesDto']): string {
  return FEATURES.filter((f) => features[f]).join(', ') || 'none';
}

export function ProjectDetail({ id }: { id: string }) {
  const project = useResource(() => get('/v0.13/admin/projects/{projectId}', { params: { projectId: id } }), [id], {
    live: false,
  });
  return (
    <section aria-labelledby="project-title">
      <h2 id="project-title">
        Project <code>{id}</code>
      </h2>
      <Loaded resource={project} label="the project">
        {(p) => <ProjectForm key={p.updatedAt} project={p} onSaved={project.reload} />}
      </Loaded>
      <ApiKeys projectId={id} />
    </section>
  );
}

function ProjectForm({ project, onSaved }: { project: Schemas['ProjectResponse']; onSaved: () => void }) {
  const [features, setFeatures] = useState({ ...project.features });
  const [limits, setLimits] = useState<Record<string, string>>(
    Object.fromEntries(LIMITS.map(([k]) => [k, project.limits[k] ?? ''])),
  );
  const [timeout, setTimeoutHours] = useState(String(project.attributionTimeoutHours));
  const save = useAction(async () => {
    await patch('/v0.13/admin/projects/{projectId}', {
      params: { projectId: project.id },
      body: {
        features,
        limits: Object.fromEntries(LIMITS.map(([k]) => [k, limits[k].trim() || null])),
        attributionTimeoutHours: Number(timeout),
      },
    });
    onSaved();
  });
  return (
    <form
      aria-label="Project settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save.act();
      }}
    >
      <p>
        {project.name}, created <Time iso={project.createdAt} />
      </p>
      <fieldset>
        <legend>Features</legend>
        {FEATURES.map((f) => (
          <label key={f}>
            <input
              type="checkbox"
              role="switch"
              name={f}
              checked={!!features[f]}
              onChange={(e) => setFeatures({ ...features, [f]: e.currentTarget.checked })}
            />
            {f}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Bank payout limits (USD and CAD amounts as decimals; empty: none)</legend>
        <div class="grid">
          {LIMITS.map(([k, label]) => (
            <label key={k}>
              {label}
              <input
                name={k}
                inputMode="decimal"
                value={limits[k]}
                onInput={(e) => setLimits({ ...limits, [k]: e.currentTarget.value })}
              />
            </label>
          ))}
        </div>
      </fieldset>
      <label>
        Attribution timeout (hours)
        <input
          name="attributionTimeoutHours"
          type="number"
          min={1}
          required
          value={timeout}
          onInput={(e) => setTimeoutHours(e.currentTarget.value)}
        />
      </label>
      <button type="submit" aria-busy={save.busy} disabled={save.busy}>
        Save project
      </button>
      {save.error && <ProblemNote problem={save.error} />}
    </form>
  );
}

function ApiKeys({ projectId }: { projectId: string }) {
  const [secret, setSecret] = useState<{ apiKey: string; apiSecret: string }>();
  const [issued, setIssued] = useState<string[]>([]);
  const [revokeKey, setRevokeKey] = useState('');
  const issue = useAction(async () => {
    const pair = await post('/v0.13/admin/projects/{projectId}/api-keys', { params: { projectId } });
    setSecret(pair);
    setIssued((keys) => [...keys, pair.apiKey]);
  });
  const revoke = useAction((apiKey: string) => del('/v0.13/admin/api-keys/{apiKey}', { params: { apiKey } }));
  return (
    <section aria-labelledby="keys-title">
      <h3 id="keys-title">API keys</h3>
      <button type="button" onClick={() => void issue.act()} disabled={issue.busy}>
        Issue a key pair
      </button>
      {issue.error && <ProblemNote problem={issue.error} />}
      {secret && (
        <ShownOnce label={`Secret of ${secret.apiKey}`} value={secret.apiSecret} onDone={() => setSecret(undefined)} />
      )}
      {issued.length > 0 && (
        <p>
          Issued here:{' '}
          {issued.map((k) => (
            <code key={k}>{k} </code>
          ))}
        </p>
      )}
      <form
        aria-label="Revoke an API key"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await revoke.act(revokeKey.trim())) setRevokeKey('');
        }}
      >
        <label for="revoke-key">API key to revoke</label>
        <fieldset role="group">
          <input
            id="revoke-key"
            name="apiKey"
            placeholder="sk_sdbx_…"
            required
            value={revokeKey}
            onInput={(e) => setRevokeKey(e.currentTarget.value)}
          />
          <button type="submit" class="contrast" disabled={revoke.busy}>
            Revoke
          </button>
        </fieldset>
        {revoke.error && <ProblemNote problem={revoke.error} />}
        {revoke.result && (
          <p role="status">
            Revoked <code>{revoke.result.apiKey}</code> at <Time iso={revoke.result.revokedAt} />.
          </p>
        )}
      </form>
    </section>
  );
}
