// Operators on /admin routes (issue 46, docs/operators.md): who a token names and with which role, against a
// real OpenID provider (oidc-provider, in a process of its own) that signs operators in with the authorization
// code flow and PKCE; the static admin token as break-glass; every refusal in the API's words.
import { randomBytes } from 'node:crypto';
import { ApiError } from '@mm/contracts';
import { loadConfig } from '@mm/platform/config';
import { freePort, OTHER_CLIENT, startTestIdp, TEST_OPERATORS, type TestIdp } from '@mm/platform/testing';
import { highestRole, OperatorAuthenticator } from './operator-authenticator';

const ADMIN_TOKEN = 'break-glass-admin-token-0123456789';
const PRODUCTION = {
  MM_ENVIRONMENT: 'production',
  MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  MM_ALLOW_SIMULATED_PROVIDERS: 'true',
};

/** The ApiError an authentication fails with, as name and cause. */
async function refusal(attempt: Promise<unknown>): Promise<{ error: string; cause?: string }> {
  const error = await attempt.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return { error: error.errorName, cause: error.causeText };
}

describe('operators authenticated by their OpenID provider, and the static admin token as break-glass', () => {
  let idp: TestIdp;
  let operators: OperatorAuthenticator;

  beforeAll(async () => {
    idp = await startTestIdp();
    operators = new OperatorAuthenticator(loadConfig({ ...idp.settings, MM_ADMIN_TOKEN: ADMIN_TOKEN }));
  });
  afterAll(() => idp?.stop());

  it("names each operator by the provider's subject and name, with the highest role their roles claim gives", async () => {
    const expected: Record<string, string> = { vera: 'viewer', sam: 'support', olga: 'operator', otto: 'operator' };
    expected.ada = 'admin';
    for (const [login, role] of Object.entries(expected)) {
      const user = TEST_OPERATORS.find((u) => u.login === login)!;
      expect(await operators.authenticate(await idp.tokenFor(login))).toEqual({
        subject: login,
        name: user.name,
        role,
        via: 'sso',
      });
    }
  });

  it('refuses a token that carries no operator role with 403, and reads the claim MM_OIDC_ROLES_CLAIM names', async () => {
    expect(await refusal(operators.authenticate(await idp.tokenFor('nora')))).toEqual({
      error: 'InsufficientRole',
      cause: 'roles names no operator role (viewer, support, operator, admin)',
    });
    const nested = new OperatorAuthenticator(
      loadConfig({ ...idp.settings, MM_OIDC_ROLES_CLAIM: 'realm_access.roles' }),
    );
    expect((await refusal(nested.authenticate(await idp.tokenFor('ada')))).error).toBe('InsufficientRole');
  });

  it("refuses another application's token, a token of another provider, and what is no token, with 401", async () => {
    expect(await refusal(operators.authenticate(await idp.tokenFor('ada', OTHER_CLIENT)))).toEqual({
      error: 'Unauthorized',
      cause: 'operator token invalid: issued to another client',
    });
    const elsewhere = await startTestIdp();
    try {
      expect(await refusal(operators.authenticate(await elsewhere.tokenFor('ada')))).toEqual({
        error: 'Unauthorized',
        cause: 'operator token invalid',
      });
    } finally {
      await elsewhere.stop();
    }
    const token = await idp.tokenFor('ada');
    const [header, payload] = token.split('.');
    for (const credential of [undefined, 'not-a-token', `${header}.${payload}.`, `${token}x`]) {
      expect((await refusal(operators.authenticate(credential))).error).toBe('Unauthorized');
    }
  });

  it('refuses an expired token with 401, once the clock tolerance has passed', async () => {
    const shortLived = await startTestIdp({ accessTokenSeconds: 1 });
    try {
      const authenticator = new OperatorAuthenticator(loadConfig(shortLived.settings));
      const token = await shortLived.tokenFor('ada');
      expect((await authenticator.authenticate(token)).role).toBe('admin');
      const deadline = Date.now() + 15_000;
      let answer: { error: string; cause?: string } | undefined;
      while (Date.now() < deadline) {
        answer = await authenticator.authenticate(token).then(
          () => undefined,
          (e: ApiError) => ({ error: e.errorName, cause: e.causeText }),
        );
        if (answer) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(answer).toEqual({ error: 'Unauthorized', cause: 'operator token expired' });
    } finally {
      await shortLived.stop();
    }
  }, 30_000);

  it('answers 503 while the provider cannot be reached, and asks it again on the next request', async () => {
    const unreachable = new OperatorAuthenticator(
      loadConfig({ MM_OIDC_ISSUER: `http://127.0.0.1:${await freePort()}`, MM_OIDC_CLIENT_ID: 'money-movement' }),
    );
    const token = await idp.tokenFor('ada');
    for (let attempt = 0; attempt < 2; attempt++) {
      expect((await refusal(unreachable.authenticate(token))).error).toBe('ServiceUnavailable');
    }
  });

  it('accepts the static admin token as a break-glass admin in sandbox, and in production only when allowed', async () => {
    const breakGlass = { subject: 'admin-token', name: 'static admin token (break-glass)', role: 'admin' };
    expect(await operators.authenticate(ADMIN_TOKEN)).toEqual({ ...breakGlass, via: 'admin-token' });
    const production = new OperatorAuthenticator(
      loadConfig({ ...PRODUCTION, ...idp.settings, MM_ADMIN_TOKEN: ADMIN_TOKEN }),
    );
    expect(await refusal(production.authenticate(ADMIN_TOKEN))).toEqual({
      error: 'Unauthorized',
      cause:
        'the static admin token is refused in production: sign in through SSO (MM_ADMIN_TOKEN_IN_PRODUCTION=true ' +
        'accepts it as break-glass)',
    });
    expect((await production.authenticate(await idp.tokenFor('olga'))).role).toBe('operator');
    const allowed = new OperatorAuthenticator(
      loadConfig({ ...PRODUCTION, MM_ADMIN_TOKEN: ADMIN_TOKEN, MM_ADMIN_TOKEN_IN_PRODUCTION: 'true' }),
    );
    expect((await allowed.authenticate(ADMIN_TOKEN)).via).toBe('admin-token');
    // Neither configured: the operator routes are closed, and say how to open them.
    expect(await refusal(new OperatorAuthenticator(loadConfig({})).authenticate(ADMIN_TOKEN))).toEqual({
      error: 'Unauthorized',
      cause: 'operator routes are disabled: set MM_OIDC_ISSUER or MM_ADMIN_TOKEN',
    });
  });

  it('takes the highest operator role a claim names, as a list or a space- or comma-separated string', () => {
    expect(highestRole(['viewer', 'admin', 'support'])).toBe('admin');
    expect(highestRole('viewer support')).toBe('support');
    expect(highestRole('viewer,operator')).toBe('operator');
    expect(highestRole(['Admin', 'root'])).toBeUndefined();
    expect(highestRole({ admin: true })).toBeUndefined();
    expect(highestRole(undefined)).toBeUndefined();
  });
});
