// Issue 5, smaller findings on the gateway: credentials are never cached,
// operator limit updates are consistent, and the signing key is encrypted at
// rest under a key that can be rotated.
import { randomBytes } from 'node:crypto';
import { settledRowCounts } from './support/row-counts';
import {
  BOOTSTRAP_KEY,
  BOOTSTRAP_SECRET,
  expectError,
  GATEWAY_ALONE,
  type Response,
  START_TIMEOUT_MS,
  TestPlatform,
} from './support/test-platform';

const expectNoStore = (res: Response) =>
  expect({ status: res.status, cacheControl: res.headers.get('cache-control') }).toEqual({
    status: res.status,
    cacheControl: 'no-store',
  });

describe('gateway hardening', () => {
  let platform: TestPlatform;
  let projectId: string;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
    projectId = (await platform.admin('POST', '/projects', { body: { name: 'limits' } })).body.id;
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  describe('Cache-Control: no-store on every response that carries a credential', () => {
    it('POST /auth/token, issued or refused', async () => {
      const token = (body: unknown, headers?: Record<string, string>) =>
        platform.request('POST', '/v0.13/auth/token', { body, headers });
      const issued = await token({ apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET });
      expect(issued.status).toBe(200);
      expectNoStore(issued);
      expectNoStore(await token({ apiKey: BOOTSTRAP_KEY, apiSecret: 'wrong-secret' }));
      expectNoStore(await token({ apiKey: BOOTSTRAP_KEY }));
      expectNoStore(await platform.request('POST', '/v0.13/auth/token', { rawBody: '{"apiKey":' }));
      expectNoStore(
        await platform.request('POST', '/v0.13/auth/token', {
          rawBody: 'apiKey=x',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
    });

    it(
      'POST /auth/token, rate limited',
      async () => {
        // A gateway of its own with a small allowance: the shared one's is other files' to spend.
        const limited = await TestPlatform.start({ MM_TOKEN_RATE_LIMIT: '8' }, undefined, GATEWAY_ALONE);
        try {
          let last: Response | undefined;
          for (let i = 0; i < 10 && last?.status !== 429; i++)
            last = await limited.request('POST', '/v0.13/auth/token', {
              body: { apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET },
            });
          expect(last!.status).toBe(429);
          expectNoStore(last!);
        } finally {
          await limited.stop();
        }
      },
      START_TIMEOUT_MS,
    );

    it('POST /admin/projects/{id}/api-keys and /publishable-keys, created or refused', async () => {
      for (const path of ['api-keys', 'publishable-keys']) {
        const created = await platform.admin('POST', `/projects/${projectId}/${path}`);
        expect(created.status).toBe(201);
        expectNoStore(created);
        expectNoStore(await platform.admin('POST', `/projects/prj_01h455vb4pex5vsknk084sn02q/${path}`));
        expectNoStore(await platform.admin('POST', `/projects/${projectId}/${path}`, { token: null }));
      }
    });

    it('only there: other routes stay cacheable by their own rules', async () => {
      expect((await platform.admin('GET', `/projects/${projectId}`)).headers.get('cache-control')).toBeNull();
      expect(
        (await platform.admin('POST', '/projects', { body: { name: 'other' } })).headers.get('cache-control'),
      ).toBeNull();
    });
  });

  describe('PATCH /admin/projects/{id} limits', () => {
    const patch = (limits: Record<string, unknown>) =>
      platform.admin('PATCH', `/projects/${projectId}`, { body: { limits } });

    /** A refusal with a 400 naming the problem, and the project and every table as they were. */
    async function refused(
      limits: Record<string, unknown>,
      cause: RegExp,
      error: 'InvalidRequest' | 'InvalidAmount' = 'InvalidRequest',
    ): Promise<void> {
      const project = await platform.admin('GET', `/projects/${projectId}`);
      const before = await settledRowCounts(platform);
      const res = await patch(limits);
      expectError(res, 400, error, error === 'InvalidRequest' ? 1100 : 11003);
      expect(res.body.cause).toMatch(cause);
      expect(await settledRowCounts(platform)).toEqual(before);
      expect((await platform.admin('GET', `/projects/${projectId}`)).body).toEqual(project.body);
    }

    it('refuses a per-transaction minimum above the maximum', async () => {
      await refused(
        { perTransactionMin: '500.00', perTransactionMax: '100.00' },
        /limits.perTransactionMin 500.00 must not exceed limits.perTransactionMax 100.00/,
      );
      await refused(
        { perTransactionMin: '100.01', perTransactionMax: '100' },
        /perTransactionMin 100.01 must not exceed/,
      );
    });

    it("checks one side against the project's stored other side", async () => {
      const set = await patch({ perTransactionMin: '50', perTransactionMax: '100' });
      expect(set.status).toBe(200);
      await refused(
        { perTransactionMin: '500' },
        /limits.perTransactionMin 500 must not exceed limits.perTransactionMax 100 \(the project's current value\)/,
      );
      await refused(
        { perTransactionMax: '10' },
        /limits.perTransactionMin 50 \(the project's current value\) must not exceed limits.perTransactionMax 10/,
      );
      // Decimals, not text: 9 is below 10.
      expect((await patch({ perTransactionMin: '9' })).body.limits).toMatchObject({
        perTransactionMin: '9',
        perTransactionMax: '100',
      });
      expect((await patch({ perTransactionMin: '100.00' })).status).toBe(200);
      // Clearing the maximum frees the minimum.
      expect((await patch({ perTransactionMax: null, perTransactionMin: '5000' })).body.limits).toMatchObject({
        perTransactionMin: '5000',
        perTransactionMax: null,
      });
    });

    it('refuses a daily bank payout cap above the monthly one', async () => {
      await refused(
        { dailyBankPayoutCap: '50000', monthlyBankPayoutCap: '20000' },
        /dailyBankPayoutCap 50000 must not exceed limits.monthlyBankPayoutCap 20000/,
      );
    });

    // Limits are amounts (ADR 0023): the one rule, with the decimal places of usd and cad.
    it.each([
      [
        'a zero multiple',
        { perTransactionMultiple: '0' },
        /^limits\.perTransactionMultiple: must be greater than zero$/,
      ],
      [
        'a negative multiple',
        { perTransactionMultiple: '-5' },
        /^limits\.perTransactionMultiple: must be greater than zero$/,
      ],
      ['a zero cap', { dailyBankPayoutCap: '0' }, /^limits\.dailyBankPayoutCap: must be greater than zero$/],
      [
        'a negative cap',
        { monthlyBankPayoutCap: '-1.00' },
        /^limits\.monthlyBankPayoutCap: must be greater than zero$/,
      ],
      [
        'a number instead of a decimal string',
        { perTransactionMax: 100 },
        /^limits\.perTransactionMax: amounts are decimal strings such as "10\.50", not a JSON number$/,
      ],
      [
        'an exponent',
        { perTransactionMin: '1e3' },
        /^limits\.perTransactionMin: amounts are decimal strings such as "10\.50": /,
      ],
      [
        'too many decimals',
        { perTransactionMin: '1.001' },
        /^limits\.perTransactionMin: usd and cad amounts have at most 2 decimal places$/,
      ],
      [
        'too many places, trailing zeros',
        { perTransactionMin: '1.000' },
        /^limits\.perTransactionMin: usd and cad amounts have at most 2 decimal places$/,
      ],
    ])('refuses %s', (_case, limits, cause) => refused(limits, cause, 'InvalidAmount'));
  });
});

describe('the signing key at rest', () => {
  const ring = (id: string) => `${id}:${randomBytes(32).toString('base64')}`;
  const [k1, k2] = [ring('k1'), ring('k2')];

  it('is stored encrypted, and tokens keep verifying across a rotation of the encryption key', async () => {
    const first = await TestPlatform.start({ MM_SIGNING_KEY_ENCRYPTION_KEYS: k1 }, undefined, GATEWAY_ALONE);
    const databaseUrl = first.running.databaseUrl;
    let token: string;
    try {
      token = await first.token();
      const [row] = await first.running.dataSource.query(
        `SELECT row_to_json(k)::text AS json, encryption_key_id FROM gateway.signing_keys k`,
      );
      expect(row.encryption_key_id).toBe('k1');
      expect(row.json).not.toMatch(/PRIVATE KEY|"d":/);
    } finally {
      await first.stop();
    }

    const rotated = await TestPlatform.start({ MM_SIGNING_KEY_ENCRYPTION_KEYS: `${k2},${k1}` }, databaseUrl, {
      services: ['accounts'],
    });
    try {
      expect((await rotated.request('GET', '/v0.13/customers', { token })).status).toBe(200);
      expect((await rotated.request('GET', '/v0.13/customers', { token: await rotated.token() })).status).toBe(200);
      expect(await rotated.running.dataSource.query(`SELECT encryption_key_id FROM gateway.signing_keys`)).toEqual([
        { encryption_key_id: 'k2' },
      ]);
    } finally {
      await rotated.stop();
    }

    await expect(
      TestPlatform.start({ MM_SIGNING_KEY_ENCRYPTION_KEYS: k1 }, databaseUrl, GATEWAY_ALONE),
    ).rejects.toThrow(
      /token signing key sig_\w+ is encrypted under key "k2", which MM_SIGNING_KEY_ENCRYPTION_KEYS does not hold/,
    );
    await expect(
      TestPlatform.start({ MM_SIGNING_KEY_ENCRYPTION_KEYS: ring('k2') }, databaseUrl, GATEWAY_ALONE),
    ).rejects.toThrow(/does not decrypt under key "k2"/);
    // Four starts: in distributed mode each is a set of processes (about 20 s alone, more beside other suites).
  }, 90_000);
});
