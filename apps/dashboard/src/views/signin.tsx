// Sign in with a sandbox key pair (the partner's view), the operator token, or, where the deployment names an
// OpenID provider, through it (docs/operators.md): the provider sends the operator back to #/signed-in, where
// the page collects the token the public entry kept for it.
import { useEffect, useState } from 'preact/hooks';
import { call, type ApiProblem } from '../api';
import { toProblem } from '../hooks';
import { signIn } from '../session';
import { ProblemNote } from '../ui';

export function SignIn({ notice }: { notice?: string }) {
  const [kind, setKind] = useState<'partner' | 'operator'>('partner');
  const [apiKey, setApiKey] = useState('');
  const [apiSecret, setApiSecret] = useState('');
  const [operatorToken, setOperatorToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem>();
  const [sso, setSso] = useState(false);
  useEffect(() => {
    void fetch('/dashboard/auth/config')
      .then((r) => (r.ok ? (r.json() as Promise<{ sso: boolean }>) : { sso: false }))
      .then(
        (config) => setSso(config.sso),
        () => setSso(false),
      );
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setProblem(undefined);
    try {
      if (kind === 'partner') {
        const token = await call('post', '/v0.13/auth/token', {
          body: { apiKey: apiKey.trim(), apiSecret: apiSecret.trim() },
          token: null,
        });
        setApiSecret('');
        signIn({ kind: 'partner', token: token.accessToken, expiresAt: token.expiresAt, apiKey: apiKey.trim() });
      } else {
        // The operator token is checked by reading what only it may read.
        await call('get', '/v0.13/admin/projects', { query: { limit: 1 }, token: operatorToken.trim() });
        signIn({ kind: 'operator', token: operatorToken.trim() });
      }
      location.hash = '#/';
    } catch (error) {
      setProblem(toProblem(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="container signin">
      <h1>Money-movement dashboard</h1>
      {notice && (
        <p role="status" class="notice">
          {notice}
        </p>
      )}
      <form onSubmit={submit} aria-label="Sign in">
        <fieldset>
          <legend>Sign in as</legend>
          <label>
            <input
              type="radio"
              name="kind"
              value="partner"
              checked={kind === 'partner'}
              onChange={() => setKind('partner')}
            />
            Partner (API key and secret)
          </label>
          <label>
            <input
              type="radio"
              name="kind"
              value="operator"
              checked={kind === 'operator'}
              onChange={() => setKind('operator')}
            />
            Operator (operator token)
          </label>
        </fieldset>
        {kind === 'partner' ? (
          <>
            <label for="api-key">API key</label>
            <input
              id="api-key"
              name="apiKey"
              autocomplete="username"
              required
              spellcheck={false}
              value={apiKey}
              onInput={(e) => setApiKey(e.currentTarget.value)}
            />
            <label for="api-secret">API secret</label>
            <input
              id="api-secret"
              name="apiSecret"
              type="password"
              autocomplete="current-password"
              required
              value={apiSecret}
              onInput={(e) => setApiSecret(e.currentTarget.value)}
            />
          </>
        ) : (
          <>
            <label for="operator-token">Operator token</label>
            <input
              id="operator-token"
              name="operatorToken"
              type="password"
              autocomplete="current-password"
              required
              value={operatorToken}
              onInput={(e) => setOperatorToken(e.currentTarget.value)}
            />
          </>
        )}
        <button type="submit" aria-busy={busy} disabled={busy}>
          Sign in
        </button>
        {problem && <ProblemNote problem={problem} title="Sign-in refused" />}
        {sso && (
          <p>
            <a href="/dashboard/auth/login" role="button" class="secondary">
              Sign in with SSO
            </a>
          </p>
        )}
        <small>
          The credentials stay in this tab: a partner's secret is exchanged for a one-hour token and then forgotten;
          closing the tab signs out.
        </small>
      </form>
    </main>
  );
}

/** Where the OpenID provider sends a signed-in operator back: the token is collected once, then the queue opens. */
export function CollectSignIn() {
  const [failure, setFailure] = useState<string>();
  useEffect(() => {
    void fetch('/dashboard/auth/session', { method: 'POST' })
      .then(async (r) => {
        if (!r.ok) throw new Error('no sign-in to collect: sign in again');
        const operator = (await r.json()) as { token: string; name: string; role: string; expiresAt: string | null };
        signIn({ kind: 'operator', ...operator });
        location.hash = '#/';
      })
      .catch((error: Error) => setFailure(error.message));
  }, []);
  return failure ? (
    <SignIn notice={`Sign-in failed: ${failure}`} />
  ) : (
    <main class="container signin" aria-busy="true">
      Signing in…
    </main>
  );
}
