// The raw reference of `npm run bench`: what the same work costs with nothing
// but Fastify and `pg` on the same PostgreSQL, in a process of its own, so the
// platform's ratio to it is the price of everything the platform adds.
//   GET  /customers/:id  one primary-key select
//   POST /customers      one transaction: insert an idempotency row, an event row
//                        and a read-model row, then update the idempotency row
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Pool } from 'pg';

const SCHEMA = `
  CREATE SCHEMA IF NOT EXISTS bench_raw;
  CREATE TABLE IF NOT EXISTS bench_raw.idempotency_keys (
    scope text NOT NULL, key text NOT NULL, request_hash text NOT NULL,
    response_status integer, response_body jsonb, created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key));
  CREATE TABLE IF NOT EXISTS bench_raw.events (
    global_position bigserial PRIMARY KEY, event_id text NOT NULL UNIQUE, stream_id text NOT NULL,
    stream_version integer NOT NULL, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(), UNIQUE (stream_id, stream_version));
  CREATE TABLE IF NOT EXISTS bench_raw.customers (
    id text PRIMARY KEY, project_id text NOT NULL, type text NOT NULL, first_name text NOT NULL,
    last_name text NOT NULL, email text, endorsements jsonb NOT NULL DEFAULT '[]', version integer NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);`;

async function main(): Promise<void> {
  // The platform's pool size, so neither side has more connections.
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  await pool.query(SCHEMA);
  const app = Fastify({ logger: false });

  app.get<{ Params: { id: string } }>('/customers/:id', async (request, reply) => {
    const { rows } = await pool.query('SELECT * FROM bench_raw.customers WHERE id = $1', [request.params.id]);
    if (rows.length === 0) return reply.status(404).send({ error: 'NotFound' });
    return rows[0];
  });

  app.post<{ Body: { firstName: string; lastName: string } }>('/customers', async (request, reply) => {
    const key = String(request.headers['idempotency-key'] ?? randomUUID());
    const id = `cst_${randomUUID().replace(/-/g, '')}`;
    const at = new Date().toISOString();
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO bench_raw.idempotency_keys (scope, key, request_hash) VALUES ($1, $2, $3)', [
        'bench',
        key,
        'hash',
      ]);
      const data = {
        customerId: id,
        firstName: request.body.firstName,
        lastName: request.body.lastName,
        createdAt: at,
      };
      await client.query(
        `INSERT INTO bench_raw.events (event_id, stream_id, stream_version, type, data, metadata) VALUES ($1, $2, 1, 'customer.created', $3, '{}')`,
        [`evt_${randomUUID()}`, `customer-${id}`, JSON.stringify(data)],
      );
      const { rows } = await client.query(
        `INSERT INTO bench_raw.customers (id, project_id, type, first_name, last_name, version, created_at, updated_at)
         VALUES ($1, 'bench', 'individual', $2, $3, 1, $4, $4) RETURNING *`,
        [id, request.body.firstName, request.body.lastName, at],
      );
      await client.query(
        'UPDATE bench_raw.idempotency_keys SET response_status = 201, response_body = $3 WHERE scope = $1 AND key = $2',
        ['bench', key, JSON.stringify(rows[0])],
      );
      await client.query('COMMIT');
      return reply.status(201).send(rows[0]);
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  });

  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.stdout.write(`listening ${address}\n`);
  process.on(
    'SIGTERM',
    () =>
      void app
        .close()
        .then(() => pool.end())
        .then(() => process.exit(0)),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`raw stack failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
