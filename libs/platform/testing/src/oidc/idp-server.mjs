// A real OpenID provider (the oidc-provider package) for the tests: operators sign in at it with the
// authorization code flow and PKCE, and it issues JWT access tokens (RFC 9068) carrying their roles, as an
// organisation's IdP would. A separate process, since the package is ES modules only. Its settings come as
// JSON in TEST_IDP_SETTINGS; it prints `listening <issuer>` once it answers.
//
// The sign-in page is a form asking who signs in; an authorization request with a `login_hint` naming a user
// signs that user in without it, so that API tests sign in with HTTP alone. Consent is given at once: the
// client is the deployment's own.
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const settings = JSON.parse(process.env.TEST_IDP_SETTINGS ?? '{}');
const { port, clients, users, resource, accessTokenSeconds = 600 } = settings;
const issuer = `http://127.0.0.1:${port}`;
const accounts = new Map(users.map((user) => [user.login, user]));
const SCOPE = 'openid profile email';

const provider = new Provider(issuer, {
  clients: clients.map(({ clientId, clientSecret, redirectUris }) => ({
    client_id: clientId,
    client_secret: clientSecret,
    redirect_uris: redirectUris,
    grant_types: ['authorization_code'],
    response_types: ['code'],
  })),
  pkce: { required: () => true },
  claims: { openid: ['sub'], profile: ['name', 'preferred_username'], email: ['email'] },
  findAccount: (_ctx, id) => {
    const user = accounts.get(id);
    if (!user) return undefined;
    return {
      accountId: id,
      claims: () => ({ sub: id, name: user.name, preferred_username: id, email: user.email }),
    };
  },
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: SCOPE,
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: accessTokenSeconds,
      }),
    },
  },
  // The roles (and the name) go into the access token, where a resource server reads them.
  extraTokenClaims: (_ctx, token) => {
    if (token.kind !== 'AccessToken') return undefined;
    const user = accounts.get(token.accountId);
    return user ? { roles: user.roles, name: user.name } : undefined;
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  cookies: { keys: ['test-idp-cookie-key'] },
  // Tests run on plain HTTP on the loopback interface.
  renderError: (ctx, out) => {
    ctx.type = 'application/json';
    ctx.body = out;
  },
});

function page(title, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main>${body}</main></body></html>`;
}

async function readForm(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

/** Signs the user in (the login prompt) or grants what the client asked (the consent prompt). */
async function finish(req, res, details, login) {
  const { prompt, params, session } = details;
  if (prompt.name === 'login') {
    return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
  }
  const accountId = session?.accountId;
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId: params.client_id });
  const { missingOIDCScope, missingOIDCClaims, missingResourceScopes } = prompt.details;
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

async function interaction(req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  if (details.prompt.name !== 'login') return finish(req, res, details);
  const hinted = details.params.login_hint;
  if (req.method === 'GET' && hinted && accounts.has(hinted)) return finish(req, res, details, hinted);
  if (req.method === 'POST' && action === 'login') {
    const login = (await readForm(req)).get('login') ?? '';
    if (accounts.has(login)) return finish(req, res, details, login);
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end(
    page(
      'Sign in',
      `<h1>Sign in to the test IdP</h1><form method="post" action="/interaction/${uid}/login">` +
        '<label for="login">User name</label> <input id="login" name="login" autocomplete="username" required> ' +
        '<button type="submit">Sign in</button></form>',
    ),
  );
}

const callback = provider.callback();
const server = createServer((req, res) => {
  // A browser asks every origin for its icon: this one has none.
  if (req.url === '/favicon.ico') return void res.writeHead(204).end();
  const match = /^\/interaction\/([^/?]+)(?:\/(login))?/.exec(req.url ?? '');
  if (!match) return callback(req, res);
  interaction(req, res, match[1], match[2]).catch((error) => {
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end(String(error?.message ?? error));
  });
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${issuer}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
