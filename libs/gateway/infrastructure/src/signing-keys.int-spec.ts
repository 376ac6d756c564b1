// The token signing key at rest (ADR 0010), on a real PostgreSQL: sealed
// under the configured key, re-sealed by start-up after a rotation, and a key
// the configuration cannot open stops start-up with the reason. And the public
// keys each process keeps by kid (ADR 0025): gateways starting together make
// one key, so none meets a kid it has not loaded.
import 'reflect-metadata';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { sign, verify } from 'jsonwebtoken';
import { loadConfig } from '@mm/platform/config';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { SigningKeys } from './signing-keys.repository';

const k1 = `k1:${randomBytes(32).toString('base64')}`;
const k2 = `k2:${randomBytes(32).toString('base64')}`;

let db: TestDatabase;
beforeEach(async () => {
  db = await createTestDatabase(4);
});
afterEach(() => db.close());

/** One process's view of the keys, as start-up leaves it. */
async function started(ring: string, uow = db.uow): Promise<SigningKeys> {
  const keys = new SigningKeys(
    uow,
    loadConfig({
      DATABASE_URL: db.url,
      MM_SIGNING_KEY_ENCRYPTION_KEYS: ring,
      MM_ENVIRONMENT: 'production',
      MM_ALLOW_SIMULATED_PROVIDERS: 'true',
    }),
  );
  await keys.onModuleInit();
  return keys;
}

async function tokenFrom(keys: SigningKeys): Promise<string> {
  const { kid, privateKey } = await keys.activeKey();
  return sign({ projectId: 'prj_test' }, privateKey, { algorithm: 'ES256', keyid: kid, expiresIn: 600 });
}

async function verifies(keys: SigningKeys, token: string): Promise<boolean> {
  const kid = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()).kid;
  const publicKey = await keys.publicKey(kid);
  if (!publicKey) return false;
  verify(token, publicKey, { algorithms: ['ES256'] });
  return true;
}

const rows = () => db.uow.query<Record<string, any>>(`SELECT * FROM gateway.signing_keys`);

describe('signing keys at rest', () => {
  it('stores the private key sealed: neither PEM nor the key bytes are in the row', async () => {
    const keys = await started(k1);
    const { privateKey } = await keys.activeKey();
    const [row] = await rows();
    expect(row.legacy_private_key_pem).toBeNull();
    expect(row.encryption_key_id).toBe('k1');
    const stored = JSON.stringify(row) + row.private_key_sealed.toString('latin1');
    expect(stored).not.toMatch(/PRIVATE KEY/);
    const der = privateKey.export({ type: 'pkcs8', format: 'der' });
    expect(row.private_key_sealed.includes(der.subarray(-32))).toBe(false);
    expect(await verifies(keys, await tokenFrom(keys))).toBe(true);
  });

  it('re-seals under the new key at start-up after a rotation, and tokens keep verifying', async () => {
    const before = await started(k1);
    const issuedBefore = await tokenFrom(before);

    const rotated = await started(`${k2},${k1}`);
    expect((await rows()).map((r) => r.encryption_key_id)).toEqual(['k2']);
    expect(await verifies(rotated, issuedBefore)).toBe(true);
    const issuedAfter = await tokenFrom(rotated);
    expect(await verifies(before, issuedAfter)).toBe(true);

    // Once every row is under k2, k1 can leave the ring.
    const retired = await started(k2);
    expect(await verifies(retired, await tokenFrom(retired))).toBe(true);
    expect((await retired.activeKey()).kid).toBe((await before.activeKey()).kid);
  });

  it('refuses to start without the key a row is sealed under, naming it', async () => {
    await (await started(`${k2},${k1}`)).activeKey();
    await expect(started(k1)).rejects.toThrow(
      /token signing key sig_\w+ is encrypted under key "k2", which MM_SIGNING_KEY_ENCRYPTION_KEYS does not hold \(it holds "k1"\)/,
    );
  });

  it('refuses to start when the id names other key material, and changes nothing', async () => {
    await (await started(k1)).activeKey();
    const [before] = await rows();
    const impostor = `k1:${randomBytes(32).toString('base64')}`;
    await expect(started(impostor)).rejects.toThrow(
      /token signing key sig_\w+ does not decrypt under key "k1" of MM_SIGNING_KEY_ENCRYPTION_KEYS/,
    );
    await expect(started(`k3:${randomBytes(32).toString('base64')},${impostor}`)).rejects.toThrow(
      /does not decrypt under key "k1"/,
    );
    expect(await rows()).toEqual([before]);
  });

  it('seals a row written before encryption at start-up', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    await db.uow.query(
      `INSERT INTO gateway.signing_keys (kid, legacy_private_key_pem, public_jwk) VALUES ('sig_legacy', $1, $2::jsonb)`,
      [
        privateKey.export({ type: 'pkcs8', format: 'pem' }),
        JSON.stringify({ ...publicKey.export({ format: 'jwk' }), kid: 'sig_legacy', alg: 'ES256', use: 'sig' }),
      ],
    );
    const legacyToken = sign({ projectId: 'prj_test' }, privateKey, {
      algorithm: 'ES256',
      keyid: 'sig_legacy',
      expiresIn: 600,
    });

    const keys = await started(k1);
    const [row] = await rows();
    expect(row).toMatchObject({ kid: 'sig_legacy', legacy_private_key_pem: null, encryption_key_id: 'k1' });
    expect(await verifies(keys, legacyToken)).toBe(true);
    expect(await verifies(keys, await tokenFrom(keys))).toBe(true);
  });

  it('binds a sealed key to its row: copied onto another kid it does not open', async () => {
    await (await started(k1)).activeKey();
    await db.uow.query(`UPDATE gateway.signing_keys SET kid = 'sig_other'`);
    await expect(started(k1)).rejects.toThrow(/token signing key sig_other does not decrypt/);
  });
});

describe('public keys kept by kid in several gateway processes', () => {
  it('makes one signing key when gateways sign their first tokens together, so each verifies the other at once', async () => {
    const other = await anotherProcess(db);
    try {
      // Many rounds: two processes that each found no key made one each, and a process that had loaded its
      // own a moment before refused the other's tokens (an unknown kid reloads at most every 5 s).
      for (let round = 1; round <= 10; round++) {
        await db.uow.query(`DELETE FROM gateway.signing_keys`);
        const here = await started(k1);
        const there = await started(k1, other.uow);
        // Both have asked for keys before any existed: nothing is kept while there is nothing to keep.
        expect(await here.publicKey('sig_none')).toBeUndefined();
        expect(await there.publicKey('sig_none')).toBeUndefined();
        const [fromHere, fromThere] = await Promise.all([tokenFrom(here), tokenFrom(there)]);
        expect({ round, keys: (await rows()).length }).toEqual({ round, keys: 1 });
        expect({
          round,
          hereVerifiesThere: await verifies(here, fromThere),
          thereVerifiesHere: await verifies(there, fromHere),
        }).toEqual({
          round,
          hereVerifiesThere: true,
          thereVerifiesHere: true,
        });
      }
    } finally {
      await other.close();
    }
  });
});
