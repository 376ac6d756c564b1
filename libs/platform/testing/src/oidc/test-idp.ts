// The tests' OpenID provider (idp-server.mjs, a real oidc-provider) in a process of its own, with operators in
// every role, and a sign-in that needs no browser: openid-client, as the platform's client, runs the
// authorization code flow with PKCE against it over HTTP, the sign-in page skipped by a login_hint.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { generators, Issuer } from 'openid-client';
import { freePort } from '../container-engine';

export interface TestIdpUser {
  login: string;
  name: string;
  email: string;
  roles: string[];
}

/** Operators of every role, two with the operator role (one requests, the other approves), and one with none. */
export const TEST_OPERATORS: TestIdpUser[] = [
  { login: 'vera', name: 'Vera Viewer', email: 'vera@ops.example', roles: ['viewer'] },
  { login: 'sam', name: 'Sam Support', email: 'sam@ops.example', roles: ['support'] },
  { login: 'olga', name: 'Olga Operator', email: 'olga@ops.example', roles: ['operator'] },
  { login: 'otto', name: 'Otto Operator', email: 'otto@ops.example', roles: ['viewer', 'operator'] },
  { login: 'ada', name: 'Ada Admin', email: 'ada@ops.example', roles: ['admin'] },
  { login: 'nora', name: 'Nora Nobody', email: 'nora@ops.example', roles: ['finance'] },
];

/** The platform's client at the IdP, and a second client of another application. */
const CLIENT = { clientId: 'money-movement', clientSecret: 'test-client-secret-0123456789' };
export const OTHER_CLIENT = { clientId: 'another-application', clientSecret: 'another-client-secret-0123456' };
/** Where the IdP sends a signed-in operator back: the dashboard's callback (never reached by the API tests). */
const REDIRECT_URI = 'http://127.0.0.1/dashboard/auth/callback';

export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The platform's settings for this IdP. */
  settings: Record<string, string>;
  /** An access token for the user, from a sign-in of theirs through the given client (the platform's by default). */
  tokenFor(login: string, client?: { clientId: string; clientSecret: string }): Promise<string>;
  stop(): Promise<void>;
}

/** The platform's settings for an IdP that will listen on this port (so the platform can start first). */
export function testIdpSettings(port: number): Record<string, string> {
  return {
    MM_OIDC_ISSUER: `http://127.0.0.1:${port}`,
    MM_OIDC_CLIENT_ID: CLIENT.clientId,
    MM_OIDC_CLIENT_SECRET: CLIENT.clientSecret,
  };
}

/**
 * Starts the IdP. accessTokenSeconds: its access tokens' lifetime (ten minutes by default); port: where it listens
 * (a free one by default); redirectUris: more places its clients may send a signed-in user back to (a dashboard's
 * /dashboard/auth/callback).
 */
export async function startTestIdp({
  accessTokenSeconds,
  port: chosen,
  redirectUris = [],
}: { accessTokenSeconds?: number; port?: number; redirectUris?: string[] } = {}): Promise<TestIdp> {
  const port = chosen ?? (await freePort());
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'idp-server.mjs')], {
    env: {
      ...process.env,
      TEST_IDP_SETTINGS: JSON.stringify({
        port,
        clients: [CLIENT, OTHER_CLIENT].map((client) => ({ ...client, redirectUris: [REDIRECT_URI, ...redirectUris] })),
        users: TEST_OPERATORS,
        resource: 'urn:money-movement:admin',
        accessTokenSeconds,
      }),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const issuer = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening (\S+)/.exec(output);
      if (listening) resolve(listening[1]);
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the test IdP exited (${code}) before listening:\n${output}`)));
  });
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);

  const provider = await Issuer.discover(issuer);
  return {
    issuer,
    ...CLIENT,
    settings: testIdpSettings(port),
    tokenFor: (login, client = CLIENT) => signIn(provider, login, client),
    stop: async () => {
      process.removeListener('exit', stopOnExit);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The authorization code flow with PKCE, followed by HTTP redirects with the IdP's cookies kept. */
async function signIn(
  provider: Issuer,
  login: string,
  { clientId, clientSecret }: { clientId: string; clientSecret: string },
): Promise<string> {
  const client = new provider.Client({
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: [REDIRECT_URI],
    response_types: ['code'],
  });
  const verifier = generators.codeVerifier();
  const state = generators.state();
  let url = client.authorizationUrl({
    scope: 'openid profile email',
    code_challenge: generators.codeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    login_hint: login,
  });
  const cookies = new Map<string, string>();
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(REDIRECT_URI)) {
      const tokens = await client.callback(REDIRECT_URI, client.callbackParams(url), {
        code_verifier: verifier,
        state,
      });
      if (!tokens.access_token) throw new Error('the IdP issued no access token');
      return tokens.access_token;
    }
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    const location = response.headers.get('location');
    if (!location)
      throw new Error(`sign-in of ${login} stopped at ${url}: ${response.status} ${await response.text()}`);
    url = new URL(location, url).toString();
  }
  throw new Error(`sign-in of ${login} did not come back to the client`);
}
