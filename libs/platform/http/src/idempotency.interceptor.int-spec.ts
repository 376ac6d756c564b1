// Idempotency-Key semantics (API-CONTRACT: Common shapes) on a real
// PostgreSQL, with a handler whose effect is one row.
import 'reflect-metadata';
import { createHash, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Body, Controller, Injectable, Post, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Module } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import { loadConfig, PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { ConcurrencyError } from '@mm/platform/event-store';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { ErrorBodyFilter } from './error-body.filter';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import type { ApiRequest } from './request-context';
import { SealedReplay } from './route-metadata';

let db: TestDatabase;
const behaviour = {
  failNext: false,
  conflictsBeforeSuccess: 0,
  delayMs: 0,
  refuseBeforeStatement: false,
  swallow: false,
};

/** Stands in for the bearer guard: the project comes from a test header. */
@Injectable()
class TestProjectGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<ApiRequest>();
    request.caller = { kind: 'partner', projectId: String(request.headers['x-project'] ?? 'prj_a') };
    return true;
  }
}

@Controller('things')
class ThingsController {
  constructor(private readonly uow: UnitOfWork) {}

  @Post()
  async create(@Body() body: { name: string }) {
    if (behaviour.refuseBeforeStatement) throw new ApiError('InvalidRequest', 'refused before any statement');
    const id = randomUUID();
    const insert = this.uow.query(`INSERT INTO idem_things (id, name) VALUES ($1, $2)`, [id, body.name]);
    // A careless handler that swallows its statement's failure (the claim's refusal among them).
    if (behaviour.swallow) await insert.catch(() => undefined);
    else await insert;
    if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
    if (behaviour.conflictsBeforeSuccess > 0) {
      behaviour.conflictsBeforeSuccess--;
      throw new ConcurrencyError('thing', 1);
    }
    if (behaviour.failNext) {
      behaviour.failNext = false;
      throw new ApiError('InvalidRequest', 'refused after writing');
    }
    return { id, name: body.name };
  }
}

/** A command whose only write is deferred: its claim travels with the COMMIT. */
@Controller('deferred-things')
class DeferredThingsController {
  constructor(private readonly uow: UnitOfWork) {}

  @Post()
  async create(@Body() body: { name: string }) {
    const id = randomUUID();
    await this.uow.defer(`INSERT INTO idem_things (id, name) VALUES ($1, $2)`, [id, body.name]);
    if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
    return { id, name: body.name };
  }
}

@Controller('secrets')
class SecretsController {
  @Post()
  @SealedReplay()
  create() {
    return { secret: `whsec_${randomUUID()}` };
  }
}

/** A response whose keys jsonb would reorder (shorter keys first, then bytewise), nested too. */
@Controller('ordered-things')
class OrderedThingsController {
  @Post()
  create(@Body() body: { name: string }) {
    return {
      object: 'thing',
      id: randomUUID(),
      name: body.name,
      metadata: { zeta: 'z', a: 'a', '10': 'ten' },
      legs: [{ status: 'pending', id: 'leg_1' }],
    };
  }
}

@Module({
  controllers: [ThingsController, DeferredThingsController, SecretsController, OrderedThingsController],
  providers: [
    { provide: UnitOfWork, useFactory: () => db.uow },
    {
      provide: PlatformConfig,
      useValue: loadConfig({ MM_SIGNING_KEY_ENCRYPTION_KEYS: `t1:${Buffer.alloc(32, 7).toString('base64')}` }),
    },
    { provide: APP_GUARD, useClass: TestProjectGuard },
    { provide: APP_INTERCEPTOR, useClass: IdempotencyInterceptor },
  ],
})
class TestModule {}

describe('IdempotencyInterceptor on PostgreSQL', () => {
  let app: NestFastifyApplication;
  const rows = async (name?: string) =>
    Number(
      (
        await db.uow.query<{ n: string }>(`SELECT count(*) AS n FROM idem_things WHERE $1::text IS NULL OR name = $1`, [
          name ?? null,
        ])
      )[0].n,
    );
  const post = (body: unknown, key: string | undefined, project = 'prj_a') =>
    app.inject({
      method: 'POST',
      url: '/things',
      payload: body as object,
      headers: { ...(key ? { 'idempotency-key': key } : {}), 'x-project': project },
    });

  beforeAll(async () => {
    db = await createTestDatabase();
    await db.uow.query(`CREATE TABLE idem_things (id uuid PRIMARY KEY, name text NOT NULL)`);
    app = await NestFactory.create<NestFastifyApplication>(TestModule, new FastifyAdapter(), { logger: false });
    app.useGlobalFilters(new ErrorBodyFilter());
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });
  beforeEach(() =>
    Object.assign(behaviour, {
      failNext: false,
      conflictsBeforeSuccess: 0,
      delayMs: 0,
      refuseBeforeStatement: false,
      swallow: false,
    }),
  );

  it('refuses a POST without a key and runs nothing', async () => {
    const res = await post({ name: 'no-key' }, undefined);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: 'IdempotencyKeyRequired' });
    expect(await rows('no-key')).toBe(0);
  });

  it('gives concurrent duplicates exactly one effect', async () => {
    behaviour.delayMs = 50;
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 12 }, () => post({ name: 'dup' }, key)));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    expect(statuses.filter((s) => s === 409).length).toBeGreaterThan(0);
    expect(await rows('dup')).toBe(1);
    const replay = await post({ name: 'dup' }, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(responses.find((r) => r.statusCode === 201)!.json());
    expect(await rows('dup')).toBe(1);
  });

  it("excludes a request holding the same key through the database's claim function (a process of the version before)", async () => {
    const key = randomUUID();
    const holder = new Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      const [claimed] = (await holder.query(`SELECT * FROM platform.claim_idempotency_key($1, $2)`, ['prj_a', key]))
        .rows;
      expect(claimed.locked).toBe(true);
      const res = await post({ name: 'held' }, key);
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ error: 'IdempotencyKeyInFlight' });
      // The holder stores its response and commits: the next request with the key replays it.
      await holder.query(
        `INSERT INTO platform.idempotency_keys (scope, key, request_hash, response_status, response_body) VALUES ($1, $2, $3, 201, $4)`,
        [
          'prj_a',
          key,
          createHash('sha256')
            .update(`POST /things\n${JSON.stringify({ name: 'held' })}`)
            .digest('hex'),
          JSON.stringify({ id: 'from-the-holder', name: 'held' }),
        ],
      );
      await holder.query('COMMIT');
    } finally {
      await holder.end();
    }
    const replay = await post({ name: 'held' }, key);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual({ id: 'from-the-holder', name: 'held' });
    expect(await rows('held')).toBe(0);
  });

  it('answers 422 to the same key with another body, and runs nothing', async () => {
    const key = randomUUID();
    await post({ name: 'first' }, key);
    const res = await post({ name: 'second' }, key);
    expect(res.statusCode).toBe(422);
    expect(await rows('second')).toBe(0);
  });

  it('keeps keys per project', async () => {
    const key = randomUUID();
    expect((await post({ name: 'per-project' }, key, 'prj_a')).statusCode).toBe(201);
    expect((await post({ name: 'per-project' }, key, 'prj_b')).headers['idempotent-replayed']).toBeUndefined();
    expect(await rows('per-project')).toBe(2);
  });

  it('rolls back a failed request with its effect and stores nothing, so a retry runs again', async () => {
    const key = randomUUID();
    behaviour.failNext = true;
    expect((await post({ name: 'flaky' }, key)).statusCode).toBe(400);
    expect(await rows('flaky')).toBe(0);
    const retry = await post({ name: 'flaky' }, key);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await rows('flaky')).toBe(1);
  });

  it('re-runs a request that lost a stream-version race, keeping one effect', async () => {
    behaviour.conflictsBeforeSuccess = 2;
    const res = await post({ name: 'raced' }, randomUUID());
    expect(res.statusCode).toBe(201);
    expect(await rows('raced')).toBe(1);
  });

  it('keeps a response that carries a secret sealed, and replays it whole', async () => {
    const key = randomUUID();
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/secrets',
        payload: {},
        headers: { 'idempotency-key': key, 'x-project': 'prj_s' },
      });
    const first = await send();
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect({ type: again.headers['content-type'], body: again.body }).toEqual({
      type: first.headers['content-type'],
      body: first.body,
    });
    const [row] = await db.uow.query<{ body: string; text: string }>(
      `SELECT response_body::text AS body, response_text AS text FROM platform.idempotency_keys WHERE scope = 'prj_s' AND key = $1`,
      [key],
    );
    for (const kept of [row.body, row.text]) {
      expect(kept).not.toContain(first.json().secret);
      expect(kept).not.toContain('whsec_');
    }
  });

  it('replays the first response byte for byte: its keys in the order sent, under the same Content-Type', async () => {
    const key = randomUUID();
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/ordered-things',
        payload: { name: 'ordered' },
        headers: { 'idempotency-key': key, 'x-project': 'prj_o' },
      });
    const first = await send();
    expect(first.statusCode).toBe(201);
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect({ status: again.statusCode, type: again.headers['content-type'], body: again.body }).toEqual({
      status: 201,
      type: first.headers['content-type'],
      body: first.body,
    });
    // A process of the version before replays the row from its jsonb copy: the same fields.
    const [row] = await db.uow.query<{ body: unknown }>(
      `SELECT response_body AS body FROM platform.idempotency_keys WHERE scope = 'prj_o' AND key = $1`,
      [key],
    );
    expect(row.body).toEqual(first.json());
  });

  it('replays a row stored before the response text was kept, from its jsonb', async () => {
    const key = randomUUID();
    const hash = createHash('sha256')
      .update(`POST /things\n${JSON.stringify({ name: 'legacy' })}`)
      .digest('hex');
    await db.uow.query(
      `INSERT INTO platform.idempotency_keys (scope, key, request_hash, response_status, response_body) VALUES ('prj_a', $1, $2, 201, $3)`,
      [key, hash, JSON.stringify({ id: 'stored-before', name: 'legacy' })],
    );
    const replay = await post({ name: 'legacy' }, key);
    expect({
      status: replay.statusCode,
      replayed: replay.headers['idempotent-replayed'],
      type: replay.headers['content-type'],
      body: replay.json(),
    }).toEqual({
      status: 201,
      replayed: 'true',
      type: 'application/json; charset=utf-8',
      body: { id: 'stored-before', name: 'legacy' },
    });
    expect(await rows('legacy')).toBe(0);
  });

  it('replays a stored response even when the command would now refuse before its first statement', async () => {
    const key = randomUUID();
    const first = await post({ name: 'stored' }, key);
    expect(first.statusCode).toBe(201);
    behaviour.refuseBeforeStatement = true;
    const again = await post({ name: 'stored' }, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    // Another body under the same key is still refused as reused, not as the command's own refusal.
    expect((await post({ name: 'other' }, key)).statusCode).toBe(422);
    // A key never used: the command's own refusal, and nothing stored.
    const fresh = await post({ name: 'stored' }, randomUUID());
    expect(fresh.statusCode).toBe(400);
    expect(fresh.json()).toMatchObject({ error: 'InvalidRequest' });
    expect(await rows('stored')).toBe(1);
  });

  it('gives concurrent duplicates one effect when the claim travels with the COMMIT', async () => {
    behaviour.delayMs = 30;
    const key = randomUUID();
    const send = () =>
      app.inject({
        method: 'POST',
        url: '/deferred-things',
        payload: { name: 'deferred-dup' },
        headers: { 'idempotency-key': key, 'x-project': 'prj_a' },
      });
    const responses = await Promise.all(Array.from({ length: 8 }, send));
    const ok = responses.filter((r) => r.statusCode === 201);
    expect(responses.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
    // Whoever answered 201 answered the one effect's body.
    expect(new Set(ok.map((r) => r.json().id)).size).toBe(1);
    expect(await rows('deferred-dup')).toBe(1);
    const replay = await send();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(ok[0].json());
  });

  it('commits no second effect when a command swallows the refusal of its claim', async () => {
    behaviour.delayMs = 50;
    behaviour.swallow = true;
    const key = randomUUID();
    const responses = await Promise.all(Array.from({ length: 6 }, () => post({ name: 'swallowed' }, key)));
    expect(responses.filter((r) => r.statusCode === 201).length).toBeGreaterThanOrEqual(1);
    expect(await rows('swallowed')).toBe(1);
  });
});
