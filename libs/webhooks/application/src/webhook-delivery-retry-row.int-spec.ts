// A retry of a delivery with an attempt in flight (spec: Endpoints / Webhooks, the retry endpoint; ADR 0059), on
// a real PostgreSQL, on the delivery's row: each order in which a retry can meet a claim and a record, the
// statements of two processes of the webhooks service held apart by open transactions; the retry keeps an
// attempt's lease and is made once that attempt is recorded, its attempt count started again and attempt numbers
// going on. Then the migration that numbers the attempts of deliveries retried before it.
import type { QueryRunner } from 'typeorm';
import { newId } from '@mm/platform/ids';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import {
  WebhookDeliveryRetries1700000003500,
  type ClaimedDelivery,
  type RecordedAttempt,
} from '@mm/webhooks/infrastructure';
import {
  closeProcesses,
  deliveryState,
  queue,
  retry,
  twoProcesses,
  type ServiceProcess,
} from './webhook-delivery-processes.fixture';

describe('a retry of a delivery with an attempt in flight', () => {
  let db: TestDatabase;
  let a: ServiceProcess<TestDatabase>;
  let b: ServiceProcess<TestDatabase>;

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ a, b } = await twoProcesses(db, await anotherProcess(db, 4)));
  });
  afterAll(() => closeProcesses(a, b));

  const state = (id: string) => deliveryState(db, id);

  describe('on the row: a retry against a claim and a record, in each order', () => {
    let projectId: string;
    let webhookId: string;

    beforeAll(async () => {
      projectId = newId('project');
      webhookId = (
        await a.endpoints.create(projectId, {
          url: 'https://partner.example/hooks',
          subscriptions: ['*'],
          timeoutMs: 10_000,
        })
      ).endpoint.id;
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
    async function interleaved<F, S>(
      first: { db: TestDatabase; run: () => Promise<F> },
      second: { db: TestDatabase; run: () => Promise<S> },
    ): Promise<[F, S]> {
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
      expect(await state(d.id)).toEqual({
        status: 'queued',
        attempt_count: 0,
        earlier_attempts: 1,
        retry_requested: false,
        leased: false,
        due_now: true,
      });
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
      expect(await state(d.id)).toEqual({
        status: 'queued',
        attempt_count: 0,
        earlier_attempts: 1,
        retry_requested: false,
        leased: false,
        due_now: true,
      });
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

    it("a retry asked while a lease ran out unrecorded (its process died mid-attempt) is the next claim's attempt", async () => {
      const d = await claimed();
      await a.deliveries.recordAttempts([failedAttempt(d)]);
      // Retried: attempt 2 is due now, and claimed; retried again while it is in flight.
      expect(await retry(b, webhookId, d.id)).toEqual([d.id]);
      const [second] = (await a.deliveries.claimDue(100, 5_000)).filter((c) => c.id === d.id);
      expect(second.earlier_attempts + second.attempt_count + 1).toBe(2);
      expect(await retry(b, webhookId, d.id)).toEqual([d.id]);
      // Process A dies before recording attempt 2: its lease runs out.
      await db.uow.query(
        `UPDATE webhooks.deliveries SET lease_until = clock_timestamp() - interval '1 second' WHERE id = $1`,
        [d.id],
      );
      const [third] = (await b.deliveries.claimDue(100, 5_000)).filter((c) => c.id === d.id);
      // The retry's attempt, counted from 0 and numbered after the last one recorded.
      expect({ count: third.attempt_count, number: third.earlier_attempts + third.attempt_count + 1 }).toEqual({
        count: 0,
        number: 2,
      });
      expect(await state(d.id)).toMatchObject({ retry_requested: false, leased: true });
    });
  });

  describe('the migration, on deliveries retried before it', () => {
    it('numbers their next attempts after every one recorded, and leaves the others at 0', async () => {
      const runner: QueryRunner = db.dataSource.createQueryRunner();
      const migration = new WebhookDeliveryRetries1700000003500();
      const projectId = newId('project');
      const { endpoint } = await a.endpoints.create(projectId, {
        url: 'https://partner.example/old',
        subscriptions: ['*'],
      });
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
            await runner.query(
              `INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code) VALUES ($1, $2, now(), 1, 500)`,
              [id, n <= 3 ? n : n - 3],
            );
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
