// The key API secrets are hashed under, as each gateway process keeps it (ADR
// 0025): without MM_SECRET_HASH_KEY it is made once per database and never
// changed, so a copy kept in memory cannot be stale. Gateways making it
// together keep the same one. Two hashers with connections of their own stand
// for two processes on one database.
import { loadConfig } from '@mm/platform/config';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { SecretHasher } from './secret-hasher';

describe('the secret hash key kept in memory by several gateway processes', () => {
  let db: TestDatabase;
  let other: TestDatabase;
  const config = loadConfig({});

  beforeAll(async () => {
    db = await createTestDatabase(4);
    other = await anotherProcess(db);
  });
  afterAll(async () => {
    await other.close();
    await db.close();
  });

  it('is one key for every process, however many make it at once', async () => {
    for (let round = 1; round <= 10; round++) {
      await db.uow.query(`DELETE FROM gateway.settings WHERE name = 'secret_hash_key'`);
      const here = new SecretHasher(db.uow, config);
      const there = new SecretHasher(other.uow, config);
      const [fromHere, fromThere] = await Promise.all([here.hash('a secret'), there.hash('a secret')]);
      expect({ round, same: fromHere === fromThere }).toEqual({ round, same: true });
      expect(await here.matches('a secret', fromThere)).toBe(true);
      // Written once: a later process reads the key the first ones kept.
      expect(await new SecretHasher(other.uow, config).hash('a secret')).toBe(fromHere);
    }
  });
});
