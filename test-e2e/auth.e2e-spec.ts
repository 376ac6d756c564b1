// spec: Authentication (rows of the bearer-token table), Errors (token endpoint),
// Endpoints / Authentication and configuration.
import { generateKeyPairSync } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import {
  ADMIN_TOKEN,
  BOOTSTRAP_KEY,
  BOOTSTRAP_SECRET,
  GATEWAY_ALONE,
  START_TIMEOUT_MS,
  TestPlatform,
} from './support/test-platform';

const ISSUER = 'https://auth.money-movement.local';
const AUDIENCE = 'money-movement-api';

function bearerError(
  res: { status: number; headers: Headers; body: any },
  status: number,
  error: string,
  description: string,
) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error, error_description: description, code: 1000, msg: 'unauthorized access' });
  expect(res.headers.get('www-authenticate')).toBe(`Bearer error="${error}", error_description="${description}"`);
}

describe('authentication', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  describe('POST /auth/token', () => {
    it('issues a 60-minute bearer token for a valid key pair', async () => {
      const before = Date.now();
      const res = await platform.request('POST', '/v0.13/auth/token', {
        body: { apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        accessToken: expect.any(String),
        tokenType: 'bearer',
        expiresIn: 3600,
        expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const expiresAt = Date.parse(res.body.expiresAt);
      expect(expiresAt - before).toBeGreaterThan(3590_000);
      expect(expiresAt - before).toBeLessThan(3610_000);
      expect(res.body.accessToken.split('.')).toHaveLength(3);
    });

    it('needs no Idempotency-Key', async () => {
      const res = await platform.request('POST', '/v0.13/auth/token', {
        body: { apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET },
        idempotencyKey: null,
      });
      expect(res.status).toBe(200);
    });

    // Issue 18 item 5: the spec's cause stays `signature`; error_description says what to fix, and says
    // the same for an unknown key as for a wrong secret, so nobody learns which keys exist.
    const badPair =
      'invalid API key or secret: the pair does not match an active key; check the secret (shown once, when the key pair was created) or create a new pair';
    it.each([
      ['a wrong secret', { apiKey: BOOTSTRAP_KEY, apiSecret: 'not-the-secret-at-all' }, badPair],
      ['an unknown key', { apiKey: 'sk_sdbx_unknownKey000000000', apiSecret: BOOTSTRAP_SECRET }, badPair],
      [
        'a production key on the sandbox host',
        { apiKey: 'sk_live_e2eBootstrapKey01', apiSecret: BOOTSTRAP_SECRET },
        'a production API key cannot be used on the sandbox host; use a key starting with sk_sdbx_',
      ],
      [
        'something that is not an API key',
        { apiKey: 'pk_sdbx_e2eBootstrapKey01', apiSecret: BOOTSTRAP_SECRET },
        'not an API key of this host: keys here start with sk_sdbx_',
      ],
    ])(
      'answers 401 Unauthorized with cause signature, and says what to fix, for %s',
      async (_label, body, description) => {
        const res = await platform.request('POST', '/v0.13/auth/token', { body });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({
          error: 'Unauthorized',
          code: 1000,
          msg: 'unauthorized access',
          cause: 'signature',
          status: 401,
          error_description: description,
          requestId: res.headers.get('x-request-id'),
        });
      },
    );

    it('answers 400 when a field is missing or of the wrong type', async () => {
      const missing = await platform.request('POST', '/v0.13/auth/token', { body: { apiKey: BOOTSTRAP_KEY } });
      expect(missing.status).toBe(400);
      expect(missing.body).toMatchObject({ error: 'InvalidRequest', code: 1100 });
      expect(missing.body.cause).toMatch(/apiSecret/);
      const wrongType = await platform.request('POST', '/v0.13/auth/token', {
        body: { apiKey: 42, apiSecret: BOOTSTRAP_SECRET },
      });
      expect(wrongType.status).toBe(400);
    });

    it('stops working for a revoked key, and so do its tokens', async () => {
      const { apiKey, apiSecret, token } = await platform.newProject('revocable');
      expect((await platform.request('GET', '/v0.13/customers', { token })).status).toBe(200);
      const revoked = await platform.admin('DELETE', `/api-keys/${apiKey}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body).toMatchObject({ apiKey, status: 'revoked' });
      const again = await platform.request('POST', '/v0.13/auth/token', { body: { apiKey, apiSecret } });
      expect(again.status).toBe(401);
      // Only a caller holding the right secret is told the key was revoked.
      expect(again.body).toMatchObject({
        cause: 'signature',
        error_description: 'this API key was revoked; create a new key pair',
      });
      expect(
        (await platform.request('POST', '/v0.13/auth/token', { body: { apiKey, apiSecret: `${apiSecret}x` } })).body
          .error_description,
      ).toBe(badPair);
      bearerError(await platform.request('GET', '/v0.13/customers', { token }), 401, 'invalid_token', 'invalid token');
    });

    it('publishes the verification keys as a JWKS', async () => {
      const res = await platform.request('GET', '/v0.13/.well-known/jwks.json');
      expect(res.status).toBe(200);
      expect(res.body.keys[0]).toMatchObject({
        kty: 'EC',
        crv: 'P-256',
        alg: 'ES256',
        use: 'sig',
        kid: expect.any(String),
      });
      expect(res.body.keys[0].d).toBeUndefined();
    });
  });

  describe('bearer-token failures (spec: Authentication, item 4)', () => {
    let kid: string;
    const foreign = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    beforeAll(async () => {
      const jwks = await platform.request('GET', '/v0.13/.well-known/jwks.json');
      kid = jwks.body.keys[0].kid;
    });

    it('invalid_request: missing authorization token', async () => {
      bearerError(
        await platform.request('GET', '/v0.13/customers'),
        401,
        'invalid_request',
        'missing authorization token',
      );
      bearerError(
        await platform.request('GET', '/v0.13/customers', { headers: { authorization: 'Basic abc' } }),
        401,
        'invalid_request',
        'missing authorization token',
      );
    });

    it('invalid_token: token expired', async () => {
      const token = await platform.token();
      const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
      // A token the issuer itself signed, whose exp has passed (signed with its key from the test database: no waiting an hour).
      const { privateKey } = await platform.signingKey();
      const expired = sign(
        { projectId: payload.projectId, mode: 'sdbx', exp: Math.floor(Date.now() / 1000) - 60 },
        privateKey,
        {
          algorithm: 'ES256',
          keyid: kid,
          issuer: ISSUER,
          audience: AUDIENCE,
          subject: payload.sub,
        },
      );
      bearerError(
        await platform.request('GET', '/v0.13/customers', { token: expired }),
        401,
        'invalid_token',
        'token expired',
      );
    });

    it('invalid_token: invalid token signature', async () => {
      const forged = sign({ projectId: 'prj_01h455vb4pex5vsknk084sn02q', mode: 'sdbx' }, foreign.privateKey, {
        algorithm: 'ES256',
        keyid: kid,
        issuer: ISSUER,
        audience: AUDIENCE,
        subject: BOOTSTRAP_KEY,
        expiresIn: 600,
      });
      bearerError(
        await platform.request('GET', '/v0.13/customers', { token: forged }),
        401,
        'invalid_token',
        'invalid token signature',
      );
    });

    it('invalid_token: missing required project claims', async () => {
      const { privateKey } = await platform.signingKey();
      const noProject = sign({ mode: 'sdbx' }, privateKey, {
        algorithm: 'ES256',
        keyid: kid,
        issuer: ISSUER,
        audience: AUDIENCE,
        subject: BOOTSTRAP_KEY,
        expiresIn: 600,
      });
      bearerError(
        await platform.request('GET', '/v0.13/customers', { token: noProject }),
        401,
        'invalid_token',
        'missing required project claims',
      );
    });

    it('invalid_token: generic invalid token', async () => {
      bearerError(
        await platform.request('GET', '/v0.13/customers', { token: 'not.a.jwt' }),
        401,
        'invalid_token',
        'invalid token',
      );
      bearerError(
        await platform.request('GET', '/v0.13/customers', { token: 'garbage' }),
        401,
        'invalid_token',
        'invalid token',
      );
    });

    it('does not accept the operator token as a partner token, nor a partner token on operator routes', async () => {
      bearerError(
        await platform.request('GET', '/v0.13/customers', { token: ADMIN_TOKEN }),
        401,
        'invalid_token',
        'invalid token',
      );
      const partner = await platform.admin('GET', '/projects', { token: await platform.token() });
      expect(partner.status).toBe(401);
      expect(partner.body).toMatchObject({ error: 'Unauthorized', code: 1000 });
    });
  });

  it(
    'rate limits the token endpoint per client IP with 429 and Retry-After',
    async () => {
      const limited = await TestPlatform.start(
        { MM_TOKEN_RATE_LIMIT: '3', MM_TOKEN_RATE_WINDOW_SECONDS: '60' },
        undefined,
        GATEWAY_ALONE,
      );
      try {
        const statuses: number[] = [];
        let last;
        for (let i = 0; i < 5; i++) {
          last = await limited.request('POST', '/v0.13/auth/token', {
            body: { apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET },
          });
          statuses.push(last.status);
        }
        expect(statuses).toEqual([200, 200, 200, 429, 429]);
        expect(last!.body).toMatchObject({ error: 'RateLimited', code: 1120, status: 429 });
        expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
        // /risk/config is limited per client IP too, counted apart from the token endpoint.
        const risk: number[] = [];
        for (let i = 0; i < 4; i++)
          risk.push(
            (
              await limited.request('GET', '/v0.13/risk/config', {
                headers: { 'api-key': 'pk_sdbx_unknown0000000000000' },
              })
            ).status,
          );
        expect(risk).toEqual([401, 401, 401, 429]);
      } finally {
        await limited.stop();
      }
    },
    START_TIMEOUT_MS,
  );

  it(
    'answers 503 temporarily_unavailable when the signing keyset cannot be read',
    async () => {
      const fresh = await TestPlatform.start({}, undefined, { services: ['accounts'] });
      try {
        const token = await fresh.token();
        // The keyset's table disappears before this instance has cached any public key.
        await fresh.running.dataSource.query(`ALTER TABLE gateway.signing_keys RENAME TO signing_keys_gone`);
        bearerError(
          await fresh.request('GET', '/v0.13/customers', { token }),
          503,
          'temporarily_unavailable',
          'signing keyset unavailable',
        );
        await fresh.running.dataSource.query(`ALTER TABLE gateway.signing_keys_gone RENAME TO signing_keys`);
        expect((await fresh.request('GET', '/v0.13/customers', { token })).status).toBe(200);
      } finally {
        await fresh.stop();
      }
    },
    START_TIMEOUT_MS,
  );
});
