// A retry of a delivery with an attempt in flight (spec: Endpoints / Webhooks, the retry endpoint; ADR 0059), on
// a real PostgreSQL. A delivery has one attempt in flight at a time, whichever process's worker holds it (handed
// over by its insert, or claimed) and whichever process takes the retry: the retry keeps the attempt's lease and
// is made once that attempt is recorded; the attempt count starts again with the retry, and attempt numbers go
// on. First two processes of the webhooks service with their running workers and a real HTTP receiver that holds
// attempts open; then each order in which a retry can meet a claim and a record on the delivery's row, the
// statements held apart by open transactions.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { QueryRunner } from 'typeorm';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { loadConfig, type PlatformConfig } from '@mm/platform/config';
import { newId } from '@mm/platform/ids';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import {
  PartnerEvents,
  WebhookDeliveries,
  WebhookDeliveryRetries1700000003500,
  WebhookEndpointsCache,
  WebhookSigningKeys,
  type ClaimedDelivery,
  type RecordedAttempt,
} from '@mm/webhooks/infrastructure';
import { LocalDeliveryQueue } from './local-delivery-queue';
import { WebhookDeliveryWorker } from './webhook-delivery-worker';
import { WebhookDeliveryWriter } from './webhook-delivery-writer';
import { endpointsServiceOf } from './webhook-endpoints.fixture';
import type { WebhookEndpointsService } from './webhook-endpoints.service';

/** One process of the webhooks service: its connections, its copy of the endpoints, its queue and (started) its worker. */
interface ServiceProcess {
  db: TestDatabase;
  cache: WebhookEndpointsCache;
  deliveries: WebhookDeliveries;
  queue: LocalDeliveryQueue;
  writer: WebhookDeliveryWriter;
  endpoints: WebhookEndpointsService;
  worker?: WebhookDeliveryWorker;
  /** Every delivery id its claims returned. */
  claimed: string[];
}

interface DeliveryState {
  status: string;
  attempt_count: number;
  earlier_attempts: number;
  retry_requested: boolean;
  leased: boolean;
  due_now: boolean;
}

describe('a retry of a delivery with an attempt in flight', () => {
  let db: TestDatabase;
  let config: PlatformConfig;
  let a: ServiceProcess;
  let b: ServiceProcess;

  function serviceProcess(database: TestDatabase): ServiceProcess {
    const cache = new WebhookEndpointsCache(database.uow);
    const deliveries = new WebhookDeliveries(database.uow, cache);
    const queue = new LocalDeliveryQueue();
    const writer = new WebhookDeliveryWriter(database.uow, deliveries, cache, queue);
    const process: ServiceProcess = { db: database, cache, deliveries, queue, writer, endpoints: endpointsServiceOf(database.uow, cache, deliveries, config), claimed: [] };
    const claimDue = deliveries.claimDue.bind(deliveries);
    deliveries.claimDue = async (limit, leaseMs) => {
      const rows = await claimDue(limit, leaseMs);
      process.claimed.push(...rows.map((r) => r.id));
      return rows;
    };
    return process;
  }

  async function startWorker(process: ServiceProcess): Promise<void> {
    const { uow } = process.db;
    process.worker = new WebhookDeliveryWorker(uow, process.deliveries, new PartnerEvents(uow), new WebhookSigningKeys(uow, config), process.endpoints, new TimerService(uow, new ProjectClock(uow)), config, process.queue);
    await process.worker.onApplicationBootstrap();
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    config = loadConfig({ DATABASE_URL: db.url, MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`, MM_WEBHOOK_CONCURRENCY: '4' });
    a = serviceProcess(db);
    b = serviceProcess(await anotherProcess(db, 4));
    await Promise.all([a.cache.onApplicationBootstrap(), b.cache.onApplicationBootstrap()]);
  });
  afterAll(async () => {
    await Promise.all([a.cache.onApplicationShutdown(), b.cache.onApplicationShutdown()]);
    await b.db.close();
    await db.close();
  });

  const state = async (id: string): Promise<DeliveryState> =>
    (
      await db.uow.query<DeliveryState>(
        `SELECT status, attempt_count, earlier_attempts, retry_requested, lease_until IS NOT NULL AS leased, next_attempt_at <= clock_timestamp() AS due_now FROM webhooks.deliveries WHERE id = $1`,
        [id],
      )
    )[0];
  const attemptNumbers = async (id: string) =>
    (await db.uow.query<{ attempt: number; status_code: number | null }>(`SELECT attempt, status_code FROM webhooks.delivery_attempts WHERE delivery_id = $1 ORDER BY id`, [id])).map((r) => [r.attempt, r.status_code]);

  /** The retry endpoint's statement, in a transaction of the process given. */
  const retry = (process: ServiceProcess, webhookId: string, id: string) => process.db.uow.run(() => process.writer.requeue(webhookId, { ids: [id] }, new Date().toISOString(), 30));

  /** A test send queued by the process given, in a transaction of its own: handed to its worker when it runs one with room. */
  async function queue(process: ServiceProcess, projectId: string, webhookId: string): Promise<string> {
    const id = newId('webhookDelivery');
    await process.db.uow.run(() =>
      process.writer.insertNew(
        { id, webhookId, status: 'queued', body: '{}' },
        { projectId, eventId: newId('event'), event: 'webhook.test', resourceId: webhookId, test: true, createdAt: new Date().toISOString() },
      ),
    );
    return id;
  }

  describe('two processes with their workers, and a receiver that holds attempts open', () => {
    let server: Server;
    /** Each request as it arrived: the delivery, when, and when it was answered. */
    const requests: Array<{ id: string; at: number; answeredAt?: number }> = [];
    /** Answers for the requests to come, in order: each holds its request until its promise resolves with a status. */
    const answers: Array<Promise<number>> = [];
    let onRequest = () => {};

    beforeAll(async () => {
      server = createServer((req: IncomingMessage, res: ServerResponse) => {
        req.resume();
        req.on('end', () => {
          const request: { id: string; at: number; answeredAt?: number } = { id: String(req.headers['webhook-id']), at: Date.now() };
          requests.push(request);
          onRequest();
          void (answers.shift() ?? Promise.resolve(200)).then((status) => {
            request.answeredAt = Date.now();
            res.writeHead(status).end(String(status));
          });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      await Promise.all([startWorker(a), startWorker(b)]);
    });
    afterAll(async () => {
      await Promise.all([a.worker?.onApplicationShutdown(), b.worker?.onApplicationShutdown()]);
      a.queue.close();
      b.queue.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    /** The next request to arrive is held until `answer(status)`. */
    function holdNext() {
      let answer!: (status: number) => void;
      answers.push(new Promise<number>((resolve) => (answer = resolve)));
      return { answer };
    }
    const arrivals = (count: number) =>
      new Promise<void>((resolve) => {
        onRequest = () => requests.length >= count && resolve();
        onRequest();
      });
    const delivered = async (id: string, attempts: number) => {
      for (;;) {
        const s = await state(id);
        if (s.status === 'delivered' && !s.retry_requested && (await attemptNumbers(id)).length === attempts) return s;
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    it('makes it after the attempt in flight, whichever process holds the attempt and whichever takes the retry, and numbers the attempts on', async () => {
      const projectId = newId('project');
      const { endpoint } = await a.endpoints.create(projectId, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, subscriptions: ['*'], timeoutMs: 10_000 });

      // Attempt 1: handed to process A's worker by its insert, held open by the receiver.
      const first = holdNext();
      const id = await queue(a, projectId, endpoint.id);
      await arrivals(1);
      expect(a.claimed).not.toContain(id);
      // Retried through process B: accepted, and the attempt keeps its lease; a claim made now, by either process,
      // finds nothing of this delivery.
      expect(await retry(b, endpoint.id, id)).toEqual([id]);
      expect((await b.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect((await a.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect(await state(id)).toMatchObject({ status: 'queued', retry_requested: true, leased: true, attempt_count: 0 });
      expect(requests).toHaveLength(1);

      // Attempt 1 fails: the retry's attempt is due at once (not 5 s on), and claimed (by either worker).
      const second = holdNext();
      first.answer(503);
      await arrivals(2);
      expect([...a.claimed, ...b.claimed].filter((c) => c === id)).toHaveLength(1);
      // Retried again through process A, while that claimed attempt is in flight: the same.
      expect(await retry(a, endpoint.id, id)).toEqual([id]);
      expect((await a.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect((await b.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect(requests).toHaveLength(2);
      // Attempt 2 succeeds; the retry asked meanwhile is made all the same, after it.
      second.answer(200);
      await arrivals(3);
      expect(await delivered(id, 3)).toMatchObject({ attempt_count: 1, earlier_attempts: 2 });
      expect(await attemptNumbers(id)).toEqual([
        [1, 503],
        [2, 200],
        [3, 200],
      ]);
      // One at a time: each request arrived after the one before it was answered.
      expect(requests.map((r) => r.id)).toEqual([id, id, id]);
      requests.slice(1).forEach((r, i) => expect(r.at).toBeGreaterThanOrEqual(requests[i].answeredAt!));
    });
  });

  describe('on the row: a retry against a claim and a record, in each order', () => {
    let projectId: string;
    let webhookId: string;

    beforeAll(async () => {
      projectId = newId('project');
      webhookId = (await a.endpoints.create(projectId, { url: 'https://partner.example/hooks', subscriptions: ['*'], timeoutMs: 10_000 })).endpoint.id;
    });

    /** A delivery claimed by process A (its attempt in flight). */
    async function claimed(): Promise<ClaimedDelivery> {
      const id = await queue(a, projectId, webhookId);
      const [delivery] = (await a.deliveries.claimDue(100, 5_000)).filter((d) => d.id === id);
      expect(delivery).toBeDefined();
      return delivery;
    }
    /** The record of a failed attempt of the delivery, as the worker makes it (the next attempt 5 s on). */
    const failedAttempt = (d: ClaimedDelivery): RecordedAttempt => ({
      id: d.id,
      leaseToken: d.lease_token,
      attempt: d.earlier_attempts + d.attempt_count + 1,
      attemptedAt: new Date().toISOString(),
      durationMs: 3,
      statusCode: 500,
      error: null,
      responseBody: 'no',
      status: 'queued',
      retryAfterSecs: 5,
    });

    /** Runs `first` in a transaction left open until `second`, started meanwhile, waits on the row's lock; then commits it. */
    async function interleaved<F, S>(first: { db: TestDatabase; run: () => Promise<F> }, second: { db: TestDatabase; run: () => Promise<S> }): Promise<[F, S]> {
      let commit!: () => void;
      const committing = new Promise<void>((resolve) => (commit = resolve));
      let ran!: (value: F) => void;
      const firstRan = new Promise<F>((resolve) => (ran = resolve));
      const firstDone = first.db.uow.run(async () => {
        const value = await first.run();
        ran(value);
        await committing;
        return value;
      });
      await Promise.race([firstRan, firstDone]);
      let secondEnded = false;
      const secondDone = second.db.uow.run(second.run).finally(() => (secondEnded = true));
      // The second statement waits on the row the first transaction changed (or, failing, ends without waiting).
      let waited = false;
      while (!waited && !secondEnded) {
        const [{ waiting }] = await db.uow.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%webhooks.deliveries%'`,
        );
        waited = waiting > 0;
        if (!waited) await new Promise((r) => setTimeout(r, 5));
      }
      commit();
      const results = await Promise.all([firstDone, secondDone]);
      expect(waited).toBe(true);
      return results;
    }

    it('a record that waited on the retry queues the delivery again, due at once, its count started again', async () => {
      const d = await claimed();
      const [, recorded] = await interleaved(
        { db: b.db, run: () => b.writer.requeue(webhookId, { ids: [d.id] }, new Date().toISOString(), 30) },
        { db: a.db, run: () => a.deliveries.recordAttempts([failedAttempt(d)]) },
      );
      expect(recorded.updated).toContain(d.id);
      expect(recorded.retried).toContain(d.id);
      expect(await state(d.id)).toEqual({ status: 'queued', attempt_count: 0, earlier_attempts: 1, retry_requested: false, leased: false, due_now: true });
      // The retry's attempt is the delivery's second.
      const [next] = (await b.deliveries.claimDue(100, 5_000)).filter((c) => c.id === d.id);
      expect(next.earlier_attempts + next.attempt_count + 1).toBe(2);
    });

    it('a retry that waited on the record finds the attempt ended, and queues the delivery at once', async () => {
      const d = await claimed();
      const [recorded, requeued] = await interleaved(
        { db: a.db, run: () => a.deliveries.recordAttempts([failedAttempt(d)]) },
        { db: b.db, run: () => b.writer.requeue(webhookId, { ids: [d.id] }, new Date().toISOString(), 30) },
      );
      expect(recorded.retried.size).toBe(0);
      expect(requeued).toEqual([d.id]);
      expect(await state(d.id)).toEqual({ status: 'queued', attempt_count: 0, earlier_attempts: 1, retry_requested: false, leased: false, due_now: true });
    });

    it('a retry that waited on a claim finds the attempt in flight, and leaves it its lease', async () => {
      const id = await queue(a, projectId, webhookId);
      const [claims] = await interleaved(
        { db: a.db, run: () => a.deliveries.claimDue(100, 5_000) },
        { db: b.db, run: () => b.writer.requeue(webhookId, { ids: [id] }, new Date().toISOString(), 30) },
      );
      const d = claims.find((c) => c.id === id)!;
      expect(await state(id)).toMatchObject({ retry_requested: true, leased: true });
      expect((await b.deliveries.claimDue(100, 5_000)).map((c) => c.id)).not.toContain(id);
      // The attempt ends; the retry's is claimable at once.
      expect((await a.deliveries.recordAttempts([failedAttempt(d)])).retried).toContain(id);
      expect((await b.deliveries.claimDue(100, 5_000)).map((c) => c.id)).toContain(id);
    });

    it('a retry asked while a lease ran out unrecorded (its process died mid-attempt) is the next claim\'s attempt', async () => {
      const d = await claimed();
      await a.deliveries.recordAttempts([failedAttempt(d)]);
      // Retried: attempt 2 is due now, and claimed; retried again while it is in flight.
      expect(await retry(b, webhookId, d.id)).toEqual([d.id]);
      const [second] = (await a.deliveries.claimDue(100, 5_000)).filter((c) => c.id === d.id);
      expect(second.earlier_attempts + second.attempt_count + 1).toBe(2);
      expect(await retry(b, webhookId, d.id)).toEqual([d.id]);
      // Process A dies before recording attempt 2: its lease runs out.
      await db.uow.query(`UPDATE webhooks.deliveries SET lease_until = clock_timestamp() - interval '1 second' WHERE id = $1`, [d.id]);
      const [third] = (await b.deliveries.claimDue(100, 5_000)).filter((c) => c.id === d.id);
      // The retry's attempt, counted from 0 and numbered after the last one recorded.
      expect({ count: third.attempt_count, number: third.earlier_attempts + third.attempt_count + 1 }).toEqual({ count: 0, number: 2 });
      expect(await state(d.id)).toMatchObject({ retry_requested: false, leased: true });
    });
  });

  describe('the migration, on deliveries retried before it', () => {
    it('numbers their next attempts after every one recorded, and leaves the others at 0', async () => {
      const runner: QueryRunner = db.dataSource.createQueryRunner();
      const migration = new WebhookDeliveryRetries1700000003500();
      const projectId = newId('project');
      const { endpoint } = await a.endpoints.create(projectId, { url: 'https://partner.example/old', subscriptions: ['*'] });
      try {
        await migration.down(runner);
        // Rows as the version before left them: one retried after 3 attempts (its count restarted, 1 since), one never retried.
        const [retried, plain] = [newId('webhookDelivery'), newId('webhookDelivery')];
        for (const [id, count, recorded] of [
          [retried, 1, 4],
          [plain, 2, 2],
        ] as const) {
          await runner.query(
            `INSERT INTO webhooks.deliveries (id, project_id, webhook_id, event_id, event, body, status, attempt_count, next_attempt_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, 'webhook.test', '{}', 'queued', $5, now() + interval '1 hour', now(), now())`,
            [id, projectId, endpoint.id, newId('event'), count],
          );
          for (let n = 1; n <= recorded; n++) {
            await runner.query(`INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code) VALUES ($1, $2, now(), 1, 500)`, [id, n <= 3 ? n : n - 3]);
          }
        }
        await migration.up(runner);
        expect(await state(retried)).toMatchObject({ attempt_count: 1, earlier_attempts: 3, retry_requested: false });
        expect(await state(plain)).toMatchObject({ attempt_count: 2, earlier_attempts: 0, retry_requested: false });
      } finally {
        await runner.release();
      }
    });
  });
});
