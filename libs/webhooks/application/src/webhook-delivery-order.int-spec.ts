// A resource's deliveries to an endpoint keep their order however long the one before them takes (spec: Events /
// Delivery and verification; docs/webhooks.md: "sent one after another, in the order they were created"), on a
// real PostgreSQL with a real HTTP receiver. Found by the fault run: a delivery that had waited longer than its
// lease could cover was given back to the table, and a later one of the same resource, handed over after it and
// so having waited less, went first. The subject is a bound on waiting, so this test waits for real time to pass
// that bound (MAX_ORDER_WAIT_MS), not for an event.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { loadConfig, type PlatformConfig } from '@mm/platform/config';
import { newId } from '@mm/platform/ids';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import {
  PartnerEvents,
  WebhookDeliveries,
  WebhookEndpointsCache,
  WebhookSigningKeys,
} from '@mm/webhooks/infrastructure';
import { LocalDeliveryQueue } from './local-delivery-queue';
import { MAX_ORDER_WAIT_MS, WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookDeliveryWriter } from './webhook-delivery-writer';
import { endpointsServiceOf } from './webhook-endpoints.fixture';
import type { WebhookEndpointsService } from './webhook-endpoints.service';

describe('a resource’s deliveries to an endpoint', () => {
  let db: TestDatabase;
  let config: PlatformConfig;
  let cache: WebhookEndpointsCache;
  let deliveries: WebhookDeliveries;
  let writer: WebhookDeliveryWriter;
  let endpoints: WebhookEndpointsService;
  let worker: WebhookDeliveryWorker;
  let server: Server;
  /** Delivery ids in the order their requests arrived. */
  const arrived: string[] = [];
  let arrival = () => {};
  /** While set, the receiver holds its answers until it resolves. */
  let hold: Promise<void> | undefined;
  const claimed = new Set<string>();

  beforeAll(async () => {
    db = await createTestDatabase();
    config = loadConfig({
      DATABASE_URL: db.url,
      MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      MM_WEBHOOK_CONCURRENCY: '4',
    });
    cache = new WebhookEndpointsCache(db.uow);
    await cache.onApplicationBootstrap();
    deliveries = new WebhookDeliveries(db.uow, cache);
    const claimDue = deliveries.claimDue.bind(deliveries);
    deliveries.claimDue = async (limit, leaseMs) => {
      const rows = await claimDue(limit, leaseMs);
      for (const row of rows) claimed.add(row.id);
      return rows;
    };
    endpoints = endpointsServiceOf(db.uow, cache, deliveries, config);
    const queue = new LocalDeliveryQueue();
    writer = new WebhookDeliveryWriter(db.uow, deliveries, cache, queue);
    worker = new WebhookDeliveryWorker(
      db.uow,
      deliveries,
      new PartnerEvents(db.uow),
      new WebhookSigningKeys(db.uow, config),
      endpoints,
      new TimerService(db.uow, new ProjectClock(db.uow)),
      config,
      queue,
    );
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.push(String(req.headers['webhook-id']));
        arrival();
        void (hold ?? Promise.resolve()).then(() => res.writeHead(200).end('ok'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await worker.onApplicationBootstrap();
  });
  afterAll(async () => {
    await worker.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await cache.onApplicationShutdown();
    await db.close();
  });

  const arrivals = (count: number) =>
    new Promise<void>((resolve) => {
      arrival = () => arrived.length >= count && resolve();
      arrival();
    });
  const after = (ms: number) => new Promise((r) => setTimeout(r, ms));

  /** A delivery of an event of `resourceId`, queued in a transaction of its own; returns its id. */
  async function queue(projectId: string, webhookId: string, resourceId: string): Promise<string> {
    const id = newId('webhookDelivery');
    await db.uow.run(() =>
      writer.insertNew(
        { id, webhookId, status: 'queued', body: '{}' },
        {
          projectId,
          eventId: newId('event'),
          event: 'customer.updated',
          resourceId,
          test: false,
          createdAt: new Date().toISOString(),
        },
      ),
    );
    return id;
  }

  it('go in the order they were made when the one before them takes longer than a lease can wait', async () => {
    const projectId = newId('project');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const { endpoint } = await endpoints.create(projectId, { url, subscriptions: ['*'] });
    const customer = newId('customer');

    // The first is held by the receiver; the second is handed over and waits for it.
    let answer!: () => void;
    hold = new Promise<void>((resolve) => (answer = resolve));
    const first = await queue(projectId, endpoint.id, customer);
    await arrivals(1);
    const second = await queue(projectId, endpoint.id, customer);
    // The third is handed over a second later, so when the first is answered, only the second has waited longer
    // than its lease allows.
    await after(1_000);
    const third = await queue(projectId, endpoint.id, customer);
    await after(MAX_ORDER_WAIT_MS - 500);
    hold = undefined;
    answer();

    await arrivals(3);
    expect(arrived).toEqual([first, second, third]);
    // Sent in its turn under its renewed lease, not given back and claimed afresh.
    expect(claimed.has(second)).toBe(false);
  });
});
