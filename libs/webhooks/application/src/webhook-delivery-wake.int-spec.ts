// How a queued delivery reaches a worker (ADR 0053, ADR 0055): in a process
// whose worker runs and has room, offered to it through the local queue once
// the delivery has committed, leased to it by the insert so that no claim finds
// it; with no room, that worker woken in memory after the commit, and no NOTIFY
// goes to the other processes; in a process without one, a NOTIFY after the
// commit, as before. A raw LISTEN connection on a real PostgreSQL stands for the
// other processes; a sentinel notified after each case tells it that every
// earlier notification has arrived (PostgreSQL delivers them in commit order).
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig, type PlatformConfig } from '@mm/platform/config';
import { newId } from '@mm/platform/ids';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import {
  DELIVERIES_CHANNEL,
  WebhookDeliveries,
  WebhookEndpointsCache,
  WebhookSigningKeys,
  type ClaimedDelivery,
} from '@mm/webhooks/infrastructure';
import { LocalDeliveryQueue, type LocalDeliveryConsumer } from './local-delivery-queue';
import { WebhookDeliveryWriter } from './webhook-delivery-writer';
import type { WebhookEndpointsService } from './webhook-endpoints.service';
import { endpointsServiceOf } from './webhook-endpoints.fixture';

describe('the wake-up of a worker when a delivery is queued', () => {
  let db: TestDatabase;
  let cache: WebhookEndpointsCache;
  let deliveries: WebhookDeliveries;
  /** This process's local queue, and what queues deliveries through it. */
  let queue: LocalDeliveryQueue;
  let writer: WebhookDeliveryWriter;
  let endpoints: WebhookEndpointsService;
  let listener: Client;
  let config: PlatformConfig;
  /** Payloads heard on the deliveries channel, in order. */
  const heard: string[] = [];
  let onHeard = () => {};

  beforeAll(async () => {
    db = await createTestDatabase();
    config = loadConfig({
      DATABASE_URL: db.url,
      MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    });
    cache = new WebhookEndpointsCache(db.uow);
    await cache.onApplicationBootstrap();
    deliveries = new WebhookDeliveries(db.uow, cache);
    queue = new LocalDeliveryQueue();
    writer = new WebhookDeliveryWriter(db.uow, deliveries, cache, queue);
    endpoints = endpointsServiceOf(db.uow, cache, deliveries, config);
    listener = new Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (n) => {
      heard.push(n.payload ?? '');
      onHeard();
    });
    await listener.query(`LISTEN ${DELIVERIES_CHANNEL}`);
  });
  // Each case's worker, if it registered one, is gone before the next.
  afterEach(() => {
    queue.close();
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    await listener.end();
    await cache.onApplicationShutdown();
    await db.close();
  });

  /** What the other processes heard on the channel since the last call: everything before a sentinel. */
  async function heardByOthers(): Promise<string[]> {
    const sentinel = `sentinel ${newId('event')}`;
    const arrived = new Promise<void>((resolve) => (onHeard = () => heard.includes(sentinel) && resolve()));
    await db.uow.query(`SELECT pg_notify($1, $2)`, [DELIVERIES_CHANNEL, sentinel]);
    await arrived;
    return heard.splice(0).filter((p) => p !== sentinel);
  }

  /** A worker of this process that takes no hand-off: each wake-up calls `onWake`. */
  const refusing = (onWake: () => void): LocalDeliveryConsumer => ({
    wake: onWake,
    hasRoom: () => false,
    offered: () => undefined,
  });

  /** Queues delivery `id`, a test to a new endpoint, in a transaction; `during` runs before its commit. Returns the endpoint's id and key. */
  async function queueOne(
    id: string,
    during: () => Promise<void> = async () => undefined,
  ): Promise<{ webhookId: string; signingKey: string }> {
    const projectId = newId('project');
    const { endpoint, signingKey } = await endpoints.create(projectId, {
      url: 'https://partner.example/hooks',
      subscriptions: ['*'],
    });
    await db.uow.run(async () => {
      await writer.insertNew(
        { id, webhookId: endpoint.id, status: 'queued', body: '{}' },
        {
          projectId,
          eventId: newId('event'),
          event: 'webhook.test',
          resourceId: endpoint.id,
          test: true,
          createdAt: new Date().toISOString(),
        },
      );
      await during();
    });
    return { webhookId: endpoint.id, signingKey };
  }

  const visible = async (id: string) =>
    (await db.uow.query(`SELECT 1 FROM webhooks.deliveries WHERE id = $1`, [id])).length === 1;

  it('wakes the worker of its own process after the commit, and notifies no other process', async () => {
    await heardByOthers();
    const id = newId('webhookDelivery');
    // Whether another connection (a claim) saw the delivery, read as each wake-up came.
    const wakes: Array<Promise<boolean>> = [];
    queue.open(refusing(() => void wakes.push(visible(id))));
    // Not woken before the commit: when the transaction's last statement has run, nothing yet.
    await queueOne(id, async () => expect(wakes).toEqual([]));
    expect(await Promise.all(wakes)).toEqual([true]);
    expect(await heardByOthers()).toEqual([]);
  });

  it('wakes nothing when the transaction rolls back', async () => {
    await heardByOthers();
    let wakes = 0;
    queue.open(refusing(() => void wakes++));
    await expect(
      queueOne(newId('webhookDelivery'), async () => {
        throw new Error('the command fails after queueing');
      }),
    ).rejects.toThrow('the command fails after queueing');
    expect(wakes).toBe(0);
    expect(await heardByOthers()).toEqual([]);
  });

  it('notifies every process when the worker stopped before the commit', async () => {
    await heardByOthers();
    let wakes = 0;
    queue.open(refusing(() => void wakes++));
    const id = newId('webhookDelivery');
    // Queued while the worker ran; it stops (the process shutting down) before the transaction commits.
    await queueOne(id, async () => void queue.close());
    expect(wakes).toBe(0);
    expect(await visible(id)).toBe(true);
    expect(await heardByOthers()).toEqual(['']);
  });

  it('notifies every process after the commit when this process runs no worker', async () => {
    await heardByOthers();
    const id = newId('webhookDelivery');
    await queueOne(id);
    expect(await visible(id)).toBe(true);
    expect(await heardByOthers()).toEqual(['']);
  });

  describe('handed to its worker (ADR 0055)', () => {
    /** A worker with room: what it was handed, how often the queue was told of a delivery left in the table, and how often it was woken. */
    function taking(hasRoom = () => true) {
      const leftInTable = jest.spyOn(queue, 'leftInTable');
      const worker = {
        taken: [] as ClaimedDelivery[],
        get left() {
          return leftInTable.mock.calls.length;
        },
        wakes: 0,
      };
      queue.open({
        wake: () => void worker.wakes++,
        hasRoom,
        offered: () => {
          for (let offered = queue.take(); offered; offered = queue.take()) worker.taken.push(offered.delivery);
        },
      });
      return worker;
    }
    const lease = async (id: string) =>
      (
        await db.uow.query<{ lease_token: string | null; left_ms: number | null }>(
          `SELECT lease_token::text, (extract(epoch FROM lease_until - clock_timestamp()) * 1000)::float8 AS left_ms FROM webhooks.deliveries WHERE id = $1`,
          [id],
        )
      )[0];

    it("hands the delivery over after the commit, leased to it for the endpoint's timeout and the margin, with what a claim would answer; no claim finds it", async () => {
      await heardByOthers();
      const worker = taking();
      const id = newId('webhookDelivery');
      const { webhookId, signingKey } = await queueOne(id, async () => expect(worker.taken).toEqual([]));
      expect(worker.taken).toHaveLength(1);
      const [handed] = worker.taken;
      expect(handed).toMatchObject({
        id,
        webhook_id: webhookId,
        test: true,
        body: '{}',
        attempt_count: 0,
        url: 'https://partner.example/hooks',
        timeout_ms: 5000,
      });
      // Signed with the key the endpoint was created with.
      expect(
        new WebhookSigningKeys(db.uow, config).open(webhookId, handed.encryption_key_id!, handed.key_sealed!),
      ).toBe(signingKey);
      const row = await lease(id);
      expect(row.lease_token).toBe(handed.lease_token);
      expect(row.left_ms).toBeGreaterThan(5_000);
      expect(row.left_ms).toBeLessThanOrEqual(10_000);
      expect((await deliveries.claimDue(100, 5_000)).map((d) => d.id)).not.toContain(id);
      expect(worker.wakes).toBe(0);
      expect(worker.left).toBe(0);
      expect(await heardByOthers()).toEqual([]);
    });

    it('hands nothing over when the transaction rolls back', async () => {
      const worker = taking();
      const id = newId('webhookDelivery');
      await expect(
        queueOne(id, async () => Promise.reject(new Error('the command fails after queueing'))),
      ).rejects.toThrow('the command fails after queueing');
      expect(worker.taken).toEqual([]);
      expect(await visible(id)).toBe(false);
    });

    it('leaves the delivery in the table, unleased, and wakes the worker after the commit when it has no room', async () => {
      const worker = taking(() => false);
      const id = newId('webhookDelivery');
      await queueOne(id);
      expect(worker.taken).toEqual([]);
      expect(worker.left).toBe(1);
      expect(worker.wakes).toBe(1);
      expect((await lease(id)).lease_token).toBeNull();
      expect((await deliveries.claimDue(100, 5_000)).map((d) => d.id)).toContain(id);
    });

    it('hands over only the queued deliveries a fan-out inserts now, not the skipped ones or a repeat', async () => {
      const worker = taking();
      const projectId = newId('project');
      const a = (await endpoints.create(projectId, { url: 'https://partner.example/a', subscriptions: ['*'] }))
        .endpoint;
      const b = (await endpoints.create(projectId, { url: 'https://partner.example/b', subscriptions: ['*'] }))
        .endpoint;
      const common = {
        projectId,
        eventId: newId('event'),
        event: 'customer.created',
        resourceId: newId('customer'),
        test: false,
        createdAt: new Date().toISOString(),
      };
      const queued = newId('webhookDelivery');
      const fanOut = () =>
        db.uow.run(() =>
          writer.insert(
            [
              { id: queued, webhookId: a.id, status: 'queued', body: '{}' },
              { id: newId('webhookDelivery'), webhookId: b.id, status: 'skipped', body: '{}' },
            ],
            common,
          ),
        );
      expect(await fanOut()).toHaveLength(2);
      expect(worker.taken.map((d) => [d.id, d.url, d.resource_id])).toEqual([
        [queued, 'https://partner.example/a', common.resourceId],
      ]);
      expect((await lease(queued)).lease_token).toBe(worker.taken[0].lease_token);
      // The event handed over again (at least once): its rows are there, nothing is inserted or handed over.
      expect(await fanOut()).toEqual([]);
      expect(worker.taken).toHaveLength(1);
    });

    it('leaves the lease to run out when the worker stopped before the commit; then a claim takes it', async () => {
      const worker = taking();
      const id = newId('webhookDelivery');
      await queueOne(id, async () => void queue.close());
      expect(worker.taken).toEqual([]);
      expect((await deliveries.claimDue(100, 5_000)).map((d) => d.id)).not.toContain(id);
      // The lease's end, reached (as a process that died with the delivery would leave it).
      await db.uow.query(
        `UPDATE webhooks.deliveries SET lease_until = clock_timestamp() - interval '1 second' WHERE id = $1`,
        [id],
      );
      expect((await deliveries.claimDue(100, 5_000)).map((d) => d.id)).toContain(id);
    });
  });
});
