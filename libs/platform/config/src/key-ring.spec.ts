import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyRing, LOCAL_KEY_RING_FILE, signingKeyEncryptionRing } from './key-ring';
import { ConfigError, loadConfig } from './platform-config';

const material = () => randomBytes(32).toString('base64');

describe('MM_SIGNING_KEY_ENCRYPTION_KEYS', () => {
  it('is required in production, with a message that says how to make one', () => {
    expect(() => loadConfig({ MM_ENVIRONMENT: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ MM_ENVIRONMENT: 'production' })).toThrow(
      /MM_SIGNING_KEY_ENCRYPTION_KEYS is required in production.*openssl rand -base64 32/,
    );
    expect(
      loadConfig({
        MM_ENVIRONMENT: 'production',
        MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${material()}`,
        MM_ALLOW_SIMULATED_PROVIDERS: 'true',
      }).MM_SIGNING_KEY_ENCRYPTION_KEYS,
    ).toMatch(/^k1:/);
  });

  it.each([
    ['no id', material(), /entry 1 must be <id>:<base64/],
    [
      'a short key',
      `k1:${randomBytes(16).toString('base64')}`,
      /key "k1" must be the base64 of exactly 32 random bytes/,
    ],
    ['a repeated id', `k1:${material()},k1:${material()}`, /key id "k1" appears twice/],
    ['an empty entry', `k1:${material()},`, /entry 2 must be/],
  ])('refuses %s, naming the variable and never the key', (_case, value, message) => {
    let error: Error | undefined;
    try {
      loadConfig({ MM_SIGNING_KEY_ENCRYPTION_KEYS: value });
    } catch (e) {
      error = e as Error;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error!.message).toMatch(/MM_SIGNING_KEY_ENCRYPTION_KEYS: /);
    expect(error!.message).toMatch(message);
    for (const entry of value.split(','))
      if (entry.includes(':')) expect(error!.message).not.toContain(entry.split(':')[1]);
  });

  it('seals under the first key and opens under any key of the ring', () => {
    const old = `old:${material()}`;
    const sealedOld = KeyRing.parse(old).seal(Buffer.from('secret'), 'row-1');
    const ring = KeyRing.parse(`new:${randomBytes(32).toString('base64url')},${old}`);
    expect(ring.currentId).toBe('new');
    expect(ring.open('old', sealedOld, 'row-1', 'x').toString()).toBe('secret');
    expect(ring.open('new', ring.seal(Buffer.from('secret'), 'row-1'), 'row-1', 'x').toString()).toBe('secret');
    expect(() => ring.open('old', sealedOld, 'row-2', 'the secret')).toThrow(
      /the secret does not decrypt under key "old"/,
    );
  });
});

describe('the sandbox without MM_SIGNING_KEY_ENCRYPTION_KEYS', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mm-key-ring-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates a key once into MM_DATA_DIR, readable by this user only, and keeps it', () => {
    const config = loadConfig({ MM_DATA_DIR: dir });
    const first = signingKeyEncryptionRing(config);
    const file = join(dir, LOCAL_KEY_RING_FILE);
    expect(first.generated).toBe(file);
    expect(first.warning).toBeUndefined();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const sealed = first.ring.seal(Buffer.from('secret'), 'ctx');
    const again = signingKeyEncryptionRing(config);
    expect(again.generated).toBeUndefined();
    expect(again.ring.open(first.ring.currentId, sealed, 'ctx', 'x').toString()).toBe('secret');
    expect(readFileSync(file, 'utf8')).toMatch(/^local-[0-9a-f]{8}:[A-Za-z0-9+/]{43}=\n$/);
  });

  it('warns that the file must stay with an external database', () => {
    const { warning } = signingKeyEncryptionRing(loadConfig({ MM_DATA_DIR: dir, DATABASE_URL: 'postgres://db/x' }));
    expect(warning).toMatch(/MM_SIGNING_KEY_ENCRYPTION_KEYS is not set.*Keep that file with the database/);
  });

  it("does not warn on the embedded database of MM_DATA_DIR, which start:distributed's services get as DATABASE_URL (issue 42)", () => {
    // The embedded server's cluster in <MM_DATA_DIR>/pg, listening on the port its postmaster.pid names.
    mkdirSync(join(dir, 'pg'));
    writeFileSync(join(dir, 'pg', 'postmaster.pid'), `4242\n${join(dir, 'pg')}\n1700000000\n54321\n/tmp\n127.0.0.1\n`);
    const ring = (url: string) => signingKeyEncryptionRing(loadConfig({ MM_DATA_DIR: dir, DATABASE_URL: url }));
    expect(ring('postgres://postgres:secret@127.0.0.1:54321/money_movement').warning).toBeUndefined();
    expect(ring('postgres://postgres@localhost:54321/money_movement').warning).toBeUndefined();
    // Another server, even on this machine, is not the one beside the file.
    expect(ring('postgres://postgres@127.0.0.1:54322/money_movement').warning).toMatch(
      /Keep that file with the database/,
    );
    expect(ring('postgres://postgres@db.example:54321/money_movement').warning).toMatch(
      /Keep that file with the database/,
    );
  });
});
