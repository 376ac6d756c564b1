// The operator's projects: listed, created, and edited (features, limits, attribution timeout), with their
// API keys issued (the secret shown once) and revoked. The held queue is held-queue.tsx.
import { useState } from 'preact/hooks';
import { get, patch, post, type Schemas } from '../api';
import { routeQuery, useAction, useResource } from '../hooks';
import { Loaded, Pager, ProblemNote, Time } from '../ui';
import { ProjectApiKeys } from './api-keys';

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
      <ProjectApiKeys projectId={id} />
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
