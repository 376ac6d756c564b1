// The shared rate-limit store (ADR 0013) on a real PostgreSQL, as two gateway
// replicas see it: each with its own pool on one database.
import 'reflect-metadata';
import { createDataSource, UnitOfWork } from '@mm/platform/database';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import type { DataSource } from 'typeorm';
import { PostgresThrottlerStorage } from './postgres-throttler-storage';

const MINUTE = 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let db: TestDatabase;
let secondPool: DataSource;
let a: PostgresThrottlerStorage;
let b: PostgresThrottlerStorage;

beforeEach(async () => {
  db = await createTestDatabase(10);
  secondPool = createDataSource({ url: db.url, migrations: [], poolSize: 10 });
  await secondPool.initialize();
  a = new PostgresThrottlerStorage(db.uow);
  b = new PostgresThrottlerStorage(new UnitOfWork(secondPool));
});
afterEach(async () => {
  a.onModuleDestroy();
  b.onModuleDestroy();
  await secondPool.destroy();
  await db.close();
});

describe('PostgresThrottlerStorage', () => {
  it('counts the hits of every replica against one limit', async () => {
    expect(await a.increment('ip-1', MINUTE, 3, MINUTE, 'default')).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    expect((await b.increment('ip-1', MINUTE, 3, MINUTE, 'default')).totalHits).toBe(2);
    expect(await a.increment('ip-1', MINUTE, 3, MINUTE, 'default')).toMatchObject({ totalHits: 3, isBlocked: false });
    expect(await b.increment('ip-1', MINUTE, 3, MINUTE, 'default')).toMatchObject({
      totalHits: 4,
      isBlocked: true,
      timeToBlockExpire: 60,
    });
    // Other keys and other throttlers on the same key count apart.
    expect((await b.increment('ip-2', MINUTE, 3, MINUTE, 'default')).totalHits).toBe(1);
    expect((await b.increment('ip-1', MINUTE, 3, MINUTE, 'burst')).totalHits).toBe(1);
  });

  it('loses no hit under concurrency: every hit gets its own count', async () => {
    const hits = await Promise.all(
      Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).increment('ip-1', MINUTE, 1000, MINUTE, 'default')),
    );
    expect(hits.map((h) => h.totalHits).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const [row] = await db.uow.query<{ hits: number }>(`SELECT hits FROM gateway.rate_limits`);
    expect(row.hits).toBe(200);
  });

  it('refuses exactly the hits over the limit when replicas race for the last ones', async () => {
    const hits = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).increment('ip-1', MINUTE, 10, MINUTE, 'default')),
    );
    expect(hits.filter((h) => !h.isBlocked)).toHaveLength(10);
  });

  it('starts a new window once the ttl has passed', async () => {
    await a.increment('ip-1', 300, 5, 300, 'default');
    expect((await b.increment('ip-1', 300, 5, 300, 'default')).totalHits).toBe(2);
    await sleep(400);
    expect(await a.increment('ip-1', 300, 5, 300, 'default')).toEqual({
      totalHits: 1,
      timeToExpire: 1,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('blocks for blockDuration, without counting blocked hits, then counts afresh', async () => {
    await a.increment('ip-1', MINUTE, 2, 500, 'default');
    await b.increment('ip-1', MINUTE, 2, 500, 'default');
    expect(await a.increment('ip-1', MINUTE, 2, 500, 'default')).toMatchObject({
      totalHits: 3,
      isBlocked: true,
      timeToBlockExpire: 1,
    });
    expect(await b.increment('ip-1', MINUTE, 2, 500, 'default')).toMatchObject({ totalHits: 3, isBlocked: true });
    await sleep(600);
    expect(await b.increment('ip-1', MINUTE, 2, 500, 'default')).toMatchObject({
      totalHits: 1,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
  });

  it('keeps a block that outlasts the window', async () => {
    await a.increment('ip-1', 200, 1, MINUTE, 'default');
    expect((await b.increment('ip-1', 200, 1, MINUTE, 'default')).isBlocked).toBe(true);
    await sleep(300);
    expect(await a.increment('ip-1', 200, 1, MINUTE, 'default')).toMatchObject({
      isBlocked: true,
      timeToBlockExpire: 60,
    });
  });

  it('without a block duration, refuses until the window ends', async () => {
    await a.increment('ip-1', 300, 1, 0, 'default');
    expect(await b.increment('ip-1', 300, 1, 0, 'default')).toMatchObject({
      totalHits: 2,
      isBlocked: true,
      timeToBlockExpire: 1,
    });
    await sleep(400);
    expect(await a.increment('ip-1', 300, 1, 0, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('sweeps rows whose window and block have ended, and only those', async () => {
    await a.increment('expired', 100, 5, 100, 'default');
    await a.increment('blocked', 100, 0, MINUTE, 'default');
    await a.increment('live', MINUTE, 5, MINUTE, 'default');
    await sleep(200);
    expect(await b.sweep()).toBe(1);
    const keys = await db.uow.query<{ key: string }>(`SELECT key FROM gateway.rate_limits ORDER BY key`);
    expect(keys.map((k) => k.key)).toEqual(['blocked', 'live']);
  });
});
