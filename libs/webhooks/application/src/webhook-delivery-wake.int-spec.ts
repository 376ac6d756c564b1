// How a queued delivery wakes a worker (ADR 0053): in a process whose worker
// runs, that worker, in memory, once the delivery has committed, and no NOTIFY
// goes to the other processes; in a process without one, a NOTIFY after the
// commit, as before. A raw LISTEN connection on a real PostgreSQL stands for
// the other processes; a sentinel notified after each case tells it that every
// earlier notification has arrived (PostgreSQL delivers them in commit order).
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { loadConfig } from '@mm/platform/config';
import { newId } from '@mm/platform/ids';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { DELIVERIES_CHANNEL, WebhookDeliveries, WebhookEndpointsCache } from '@mm/webhooks/infrastructure';
import type { WebhookEndpointsService } from './webhook-endpoints.service';
import { endpointsServiceOf } from './webhook-endpoints.fixture';

describe('the wake-up of a worker when a delivery is queued', () => {
  let db: TestDatabase;
  let cache: WebhookEndpointsCache;
  let deliveries: WebhookDeliveries;
  let endpoints: WebhookEndpointsService;
  let listener: Client;
  /** Payloads heard on the deliveries channel, in order. */
  const heard: string[] = [];
  let onHeard = () => {};

  beforeAll(async () => {
    db = await createTestDatabase();
    const config = loadConfig({ DATABASE_URL: db.url, MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}` });
    cache = new WebhookEndpointsCache(db.uow);
    await cache.onApplicationBootstrap();
    deliveries = new WebhookDeliveries(db.uow, cache);
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
  afterEach(() => deliveries.serveLocally(undefined));
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

  /** Queues delivery `id`, a test to a new endpoint, in a transaction; `during` runs before its commit. */
  async function queueOne(id: string, during: () => Promise<void> = async () => undefined): Promise<void> {
    const projectId = newId('project');
    const { endpoint } = await endpoints.create(projectId, { url: 'https://partner.example/hooks', subscriptions: ['*'] });
    await db.uow.run(async () => {
      await deliveries.insertNew(
        { id, webhookId: endpoint.id, status: 'queued', body: '{}' },
        { projectId, eventId: newId('event'), event: 'webhook.test', resourceId: endpoint.id, test: true, createdAt: new Date().toISOString() },
      );
      await during();
    });
  }

  const visible = async (id: string) => (await db.uow.query(`SELECT 1 FROM webhooks.deliveries WHERE id = $1`, [id])).length === 1;

  it('wakes the worker of its own process after the commit, and notifies no other process', async () => {
    await heardByOthers();
    const id = newId('webhookDelivery');
    // Whether another connection (a claim) saw the delivery, read as each wake-up came.
    const wakes: Array<Promise<boolean>> = [];
    deliveries.serveLocally(() => void wakes.push(visible(id)));
    // Not woken before the commit: when the transaction's last statement has run, nothing yet.
    await queueOne(id, async () => expect(wakes).toEqual([]));
    expect(await Promise.all(wakes)).toEqual([true]);
    expect(await heardByOthers()).toEqual([]);
  });

  it('wakes nothing when the transaction rolls back', async () => {
    await heardByOthers();
    let wakes = 0;
    deliveries.serveLocally(() => void wakes++);
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
    deliveries.serveLocally(() => void wakes++);
    const id = newId('webhookDelivery');
    // Queued while the worker ran; it stops (the process shutting down) before the transaction commits.
    await queueOne(id, async () => deliveries.serveLocally(undefined));
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
});
