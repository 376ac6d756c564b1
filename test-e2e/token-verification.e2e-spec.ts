// spec: Authentication 2-4. Tokens are verified once and then remembered
// (libs/platform/auth VerifiedTokens); nothing about that may change what is
// accepted: only tokens this issuer mints for this host, never a revoked key's.
import type { KeyObject } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import { ADMIN_TOKEN, eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const ISSUER = 'https://auth.money-movement.local';
const AUDIENCE = 'money-movement-api';

function expectInvalidToken(res: { status: number; body: any; headers: Headers }) {
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ error: 'invalid_token', code: 1000, msg: 'unauthorized access' });
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
}

describe('bearer token verification', () => {
  let platform: TestPlatform;
  let tenant: { projectId: string; apiKey: string; apiSecret: string; token: string };
  let signingKey: { kid: string; privateKey: KeyObject };

  /** A token under the issuer's own signing key, with the given claims. */
  const mint = (claims: Record<string, unknown>) =>
    sign(
      { projectId: tenant.projectId, mode: 'sdbx', sub: tenant.apiKey, iss: ISSUER, aud: AUDIENCE, ...claims },
      signingKey.privateKey,
      {
        algorithm: 'ES256',
        keyid: signingKey.kid,
        // jsonwebtoken adds iat itself unless told not to: a test that leaves iat out means it.
        noTimestamp: !('iat' in claims),
      },
    );
  const now = () => Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    // Every route these tests call is the accounts service's (distributed, the others are not started).
    platform = await TestPlatform.start({}, undefined, { services: ['accounts'] });
    tenant = await platform.newProject('verification');
    // The issuer's own key, read from its database as the gateway reads it.
    await platform.token();
    signingKey = await platform.signingKey();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('accepts a token minted the way the issuer mints them (the control for the refusals below)', async () => {
    const res = await platform.request('GET', '/v0.13/customers', { token: mint({ iat: now(), exp: now() + 3600 }) });
    expect(res.status).toBe(200);
  });

  it('refuses a token without exp, even under the real signing key', async () => {
    expectInvalidToken(await platform.request('GET', '/v0.13/customers', { token: mint({ iat: now() }) }));
  });

  it('refuses a token whose lifetime is over 60 minutes', async () => {
    expectInvalidToken(
      await platform.request('GET', '/v0.13/customers', {
        token: mint({ iat: now(), exp: now() + 5 * 365 * 24 * 3600 }),
      }),
    );
    expectInvalidToken(
      await platform.request('GET', '/v0.13/customers', { token: mint({ iat: now(), exp: now() + 3601 }) }),
    );
  });

  it('refuses a token issued in the future', async () => {
    expectInvalidToken(
      await platform.request('GET', '/v0.13/customers', { token: mint({ iat: now() + 600, exp: now() + 1200 }) }),
    );
  });

  it('refuses a token without iat', async () => {
    expectInvalidToken(await platform.request('GET', '/v0.13/customers', { token: mint({ exp: now() + 600 }) }));
  });

  it('refuses a token whose mode does not match the host', async () => {
    expectInvalidToken(
      await platform.request('GET', '/v0.13/customers', {
        token: mint({ mode: 'live', iat: now(), exp: now() + 600 }),
      }),
    );
  });

  it('takes the bearer scheme in any case, on partner and operator routes', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      expect(
        (await platform.request('GET', '/v0.13/customers', { headers: { authorization: `${scheme} ${tenant.token}` } }))
          .status,
      ).toBe(200);
      expect(
        (
          await platform.request('GET', '/v0.13/admin/projects', {
            headers: { authorization: `${scheme} ${ADMIN_TOKEN}` },
          })
        ).status,
      ).toBe(200);
    }
  });

  it('refuses a remembered token on the very next request once its key is revoked', async () => {
    const { apiKey, token } = await platform.newProject('revoked-at-once');
    for (let i = 0; i < 5; i++) expect((await platform.request('GET', '/v0.13/customers', { token })).status).toBe(200);
    expect((await platform.admin('DELETE', `/api-keys/${apiKey}`)).status).toBe(200);
    expectInvalidToken(await platform.request('GET', '/v0.13/customers', { token }));
    expectInvalidToken(await platform.request('GET', '/v0.13/customers', { token }));
  });

  it(
    'tells another process on the same database of a revocation, which then refuses the token too',
    async () => {
      const { apiKey, token } = await platform.newProject('revoked-elsewhere');
      const other = await TestPlatform.start({}, platform.running.databaseUrl, { services: ['accounts'] });
      try {
        // The other process verifies and remembers the token ...
        for (let i = 0; i < 3; i++)
          expect((await other.request('GET', '/v0.13/customers', { token })).status).toBe(200);
        // ... and hears of the revocation made here through the database.
        expect((await platform.admin('DELETE', `/api-keys/${apiKey}`)).status).toBe(200);
        const refused = await eventually(async () => {
          const res = await other.request('GET', '/v0.13/customers', { token });
          return res.status === 401 ? res : undefined;
        }, 5000);
        expectInvalidToken(refused);
      } finally {
        await other.stop();
      }
    },
    START_TIMEOUT_MS,
  );
});
