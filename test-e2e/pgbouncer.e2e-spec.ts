// Issue 48, PgBouncer (docs/kubernetes.md, PgBouncer): the distributed platform with every service's pool behind
// Debian's PgBouncer 1.18 in transaction pooling (MM_DATABASE_POOL_MODE=transaction), as the e2e-pgbouncer Jest
// project runs it (with the distributed crash tests). The smoke test's first flow runs through it; its statements
// go through PgBouncer, what needs a session of its own (LISTEN) reaches PostgreSQL directly, and what the platform
// learns by notification (a revoked key) is still seen at once.
import { Client } from 'pg';
import { SERVICE_NAMES } from '@mm/contracts';
import { firstFlow } from './support/first-flow';
import { START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

describe('behind PgBouncer in transaction pooling', () => {
  let platform: TestPlatform;
  let database: string;
  beforeAll(async () => {
    platform = await TestPlatform.start();
    database = (await platform.db.query<{ name: string }>('SELECT current_database() AS name'))[0].name;
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  /** PgBouncer's own console: a SHOW command's rows. */
  async function console(command: string): Promise<Array<Record<string, string>>> {
    const client = new Client({ connectionString: `postgres://postgres@${process.env.MM_TEST_PGBOUNCER}/pgbouncer` });
    await client.connect();
    try {
      return (await client.query(command)).rows;
    } finally {
      await client.end();
    }
  }

  it("runs every service's transactions through PgBouncer and LISTENs on PostgreSQL itself", async () => {
    // The smoke test's first flow (support/first-flow.ts), through PgBouncer.
    await firstFlow(platform);
    await platform.settle();

    const stats = (await console('SHOW STATS')).find((row) => row.database === database);
    expect(Number(stats?.total_xact_count)).toBeGreaterThan(100);
    // Every process's own session (its LISTEN connection) is PostgreSQL's, not one PgBouncer serves: the
    // server's sessions of this database that are not PgBouncer's connections.
    const pgBouncers = new Set((await console('SHOW SERVERS')).map((row) => Number(row.local_port)));
    const direct = new Client({ connectionString: process.env.MM_TEST_ADMIN_URL });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ application_name: string; client_port: number }>(
        `SELECT application_name, client_port FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [database],
      );
      const own = rows.filter((r) => !pgBouncers.has(r.client_port)).map((r) => r.application_name);
      expect(new Set(own)).toEqual(new Set(SERVICE_NAMES.map((service) => `money-movement-${service}`)));
    } finally {
      await direct.end();
    }
  });

  it('sees a revoked key at once, in the gateway and in a service reached directly', async () => {
    const { apiKey, token } = await platform.newProject('pgbouncer revocation');
    expect((await platform.request('GET', '/v0.13/customers', { token })).status).toBe(200);
    expect((await platform.admin('DELETE', `/api-keys/${apiKey}`)).status).toBe(200);
    expect((await platform.request('GET', '/v0.13/customers', { token })).status).toBe(401);
    const direct = await fetch(`${platform.serviceUrl('accounts')}/v0.13/customers`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(direct.status).toBe(401);
  });
});
