// A project's API keys (docs/operators.md, API keys): listed with name, scopes, status, last use and expiry, never
// a secret; a new key, every scope or restricted to some resources; a roll with the time the old key keeps
// working; a revocation. The same view for the partner's own keys and for an operator on a project's page.
import { useState } from 'preact/hooks';
import { del, get, post, type Schemas } from '../api';
import { routeQuery, useAction, useResource } from '../hooks';
import { Empty, Loaded, Pager, ProblemNote, ShownOnce, Status, Time } from '../ui';

type ApiKey = Schemas['ApiKeyResponse'];
type KeyPair = Schemas['ApiKeyPairResponse'];
type Access = 'none' | 'read' | 'write';
type Scope = NonNullable<Schemas['CreateApiKeyRequest']['scopes']>[number];

/**
 * The resources a restricted key names, checked against the document's scopes by the compiler both ways: a typo
 * does not build (scopeOf), nor does a resource the API has and this list misses (below).
 */
const RESOURCES = [
  'customers',
  'wallets',
  'quotes',
  'transactions',
  'external-accounts',
  'counterparties',
  'deposit-addresses',
  'virtual-accounts',
  'cash-ins',
  'webhooks',
  'events',
] as const;
type Resource = (typeof RESOURCES)[number];
const scopeOf = (resource: Resource, access: 'read' | 'write'): Scope => `${resource}:${access}`;
/** True only while every scope of the document is a resource of the list's. */
const everyScopeListed: [Exclude<Scope, `${Resource}:${'read' | 'write'}`>] extends [never] ? true : never = true;
void everyScopeListed;

/** Where the keys are managed: the partner's own routes, or an operator's for one project. */
interface KeyRoutes {
  list(cursor?: string): Promise<{ data: ApiKey[]; hasMore: boolean; nextCursor?: string | null }>;
  create(body: { name?: string; scopes?: Scope[] }): Promise<KeyPair>;
  roll(apiKey: string, expiresInSeconds: number): Promise<KeyPair>;
  revoke(apiKey: string): Promise<unknown>;
}

const OPERATOR_ROUTES = (projectId: string): KeyRoutes => ({
  list: (cursor) =>
    get('/v0.13/admin/projects/{projectId}/api-keys', { params: { projectId }, query: { limit: 100, cursor } }),
  create: (body) => post('/v0.13/admin/projects/{projectId}/api-keys', { params: { projectId }, body }),
  roll: (apiKey, expiresInSeconds) =>
    post('/v0.13/admin/api-keys/{apiKey}/roll', { params: { apiKey }, body: { expiresInSeconds } }),
  revoke: (apiKey) => del('/v0.13/admin/api-keys/{apiKey}', { params: { apiKey } }),
});

const PARTNER_ROUTES: KeyRoutes = {
  list: (cursor) => get('/v0.13/api-keys', { query: { limit: 100, cursor } }),
  create: (body) => post('/v0.13/api-keys', { body }),
  roll: (apiKey, expiresInSeconds) =>
    post('/v0.13/api-keys/{apiKey}/roll', { params: { apiKey }, body: { expiresInSeconds } }),
  revoke: (apiKey) => del('/v0.13/api-keys/{apiKey}', { params: { apiKey } }),
};

/** How long a rolled key goes on working: the choices offered (the API takes any second up to 7 days). */
const ROLL_EXPIRIES = [
  [0, 'now'],
  [3600, 'in 1 hour'],
  [86_400, 'in 24 hours'],
  [604_800, 'in 7 days'],
] as const;

/** The partner's own keys: a page of its own. */
export function PartnerApiKeys() {
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p>Give each system its own key, restricted to what it needs. Managing keys takes a key with every scope.</p>
      <KeyManager routes={PARTNER_ROUTES} of="own" />
    </section>
  );
}

/** One project's keys, on the operator's project page. */
export function ProjectApiKeys({ projectId }: { projectId: string }) {
  return (
    <section aria-labelledby="keys-title">
      <h3 id="keys-title">API keys</h3>
      <KeyManager routes={OPERATOR_ROUTES(projectId)} of={projectId} />
    </section>
  );
}

/** `of`: whose keys (a project id, or the partner's own), which the list is read again for when it changes. */
function KeyManager({ routes, of }: { routes: KeyRoutes; of: string }) {
  const cursor = routeQuery().get('cursor') ?? '';
  const list = useResource(() => routes.list(cursor || undefined), [of, cursor]);
  // A secret just made, and what the last action did: the list shows neither.
  const [secret, setSecret] = useState<{ apiKey: string; apiSecret: string }>();
  const [outcome, setOutcome] = useState<string>();
  return (
    <>
      <NewKey
        create={async (body) => {
          const made = await routes.create(body);
          setSecret({ apiKey: made.apiKey, apiSecret: made.apiSecret });
          setOutcome(`Made ${made.apiKey}.`);
        }}
      />
      {secret && (
        <ShownOnce label={`Secret of ${secret.apiKey}`} value={secret.apiSecret} onDone={() => setSecret(undefined)} />
      )}
      <p role="status">{outcome}</p>
      <Loaded resource={list} label="API keys">
        {(page) =>
          page.data.length === 0 ? (
            <Empty>No key yet.</Empty>
          ) : (
            <>
              <div
                class="overflow-auto"
                tabIndex={0}
                role="region"
                aria-label="API keys (scrolls sideways when narrow)"
              >
                <table class="striped">
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Key</th>
                      <th scope="col">Scopes</th>
                      <th scope="col">Status</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last used</th>
                      <th scope="col">Expires</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.map((key) => (
                      <KeyRow
                        key={key.apiKey}
                        apiKey={key}
                        routes={routes}
                        onRolled={(old, pair, label) => {
                          setSecret({ apiKey: pair.apiKey, apiSecret: pair.apiSecret });
                          setOutcome(`Rolled ${old} into ${pair.apiKey}; the old key stops working ${label}.`);
                        }}
                        onRevoked={(apiKey) => setOutcome(`Revoked ${apiKey}; its tokens stopped working.`)}
                      />
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={page} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

function KeyRow({
  apiKey: k,
  routes,
  onRolled,
  onRevoked,
}: {
  apiKey: ApiKey;
  routes: KeyRoutes;
  /** The key rolled, the new pair, and when the old key stops (as the choice read). */
  onRolled: (old: string, pair: KeyPair, label: string) => void;
  onRevoked: (apiKey: string) => void;
}) {
  const [expiry, setExpiry] = useState(0);
  const roll = useAction(async () =>
    onRolled(k.apiKey, await routes.roll(k.apiKey, expiry), ROLL_EXPIRIES.find(([s]) => s === expiry)![1]),
  );
  const revoke = useAction(async () => {
    await routes.revoke(k.apiKey);
    onRevoked(k.apiKey);
  });
  // Only a live key that was not rolled yet can be rolled; a revoked one changes no more.
  const rollable = k.status === 'active' && !k.rolledInto;
  return (
    <tr>
      <td>{k.name ?? <em>unnamed</em>}</td>
      <td>
        <code>{k.apiKey}</code>
      </td>
      <td>{k.scopes ? k.scopes.join(', ') : 'every scope'}</td>
      <td>
        <Status status={k.status} />
        {k.rolledInto && (
          <small>
            {' '}
            rolled into <code>{k.rolledInto}</code>
          </small>
        )}
      </td>
      <td>
        <Time iso={k.createdAt} />
      </td>
      <td>{k.lastUsedAt ? <Time iso={k.lastUsedAt} /> : 'never'}</td>
      <td>{k.expiresAt ? <Time iso={k.expiresAt} /> : '–'}</td>
      <td>
        {rollable && (
          <form class="inline" aria-label={`Roll ${k.apiKey}`} onSubmit={(e) => (e.preventDefault(), void roll.act())}>
            <label>
              Old key stops
              <select
                name="expiresInSeconds"
                value={String(expiry)}
                onChange={(e) => setExpiry(Number(e.currentTarget.value))}
              >
                {ROLL_EXPIRIES.map(([seconds, label]) => (
                  <option key={seconds} value={String(seconds)}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <button type="submit" class="secondary outline" aria-busy={roll.busy} disabled={roll.busy}>
              Roll
            </button>
          </form>
        )}
        {k.status !== 'revoked' && (
          <button
            type="button"
            class="contrast outline"
            aria-label={`Revoke ${k.apiKey}`}
            disabled={revoke.busy}
            onClick={() => void revoke.act()}
          >
            Revoke
          </button>
        )}
        {roll.error && <ProblemNote problem={roll.error} />}
        {revoke.error && <ProblemNote problem={revoke.error} />}
      </td>
    </tr>
  );
}

function NewKey({ create }: { create: (body: { name?: string; scopes?: Scope[] }) => Promise<void> }) {
  const [name, setName] = useState('');
  const [restricted, setRestricted] = useState(false);
  const [access, setAccess] = useState<Partial<Record<Resource, Access>>>({});
  const make = useAction(async () => {
    const scopes = RESOURCES.flatMap((resource) => {
      const a = access[resource] ?? 'none';
      return a === 'none' ? [] : [scopeOf(resource, a)];
    });
    await create({ name: name.trim() || undefined, scopes: restricted ? scopes : undefined });
    setName('');
  });
  return (
    <form aria-label="New API key" onSubmit={(e) => (e.preventDefault(), void make.act())}>
      <label>
        Name
        <input
          name="name"
          maxLength={100}
          placeholder="what will use it (optional)"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <fieldset>
        <legend>Access</legend>
        <label>
          <input type="radio" name="access" checked={!restricted} onChange={() => setRestricted(false)} />
          Every scope
        </label>
        <label>
          <input type="radio" name="access" checked={restricted} onChange={() => setRestricted(true)} />
          Restricted to the resources below
        </label>
      </fieldset>
      {restricted && (
        <fieldset class="scopes">
          <legend>Scopes (write includes read)</legend>
          {RESOURCES.map((resource) => (
            <label key={resource}>
              {resource}
              <select
                name={resource}
                value={access[resource] ?? 'none'}
                onChange={(e) => setAccess({ ...access, [resource]: e.currentTarget.value as Access })}
              >
                <option value="none">none</option>
                <option value="read">read</option>
                <option value="write">write</option>
              </select>
            </label>
          ))}
        </fieldset>
      )}
      <button type="submit" aria-busy={make.busy} disabled={make.busy}>
        Make a key
      </button>
      {make.error && <ProblemNote problem={make.error} />}
    </form>
  );
}
