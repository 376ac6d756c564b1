// The worker's two ways of getting a delivery (ADR 0018, ADR 0055), on a real
// PostgreSQL with a real HTTP receiver: what this process queues while the
// worker has a free slot is handed to it by the insert, leased, and sent with no
// claim; with no free slot it waits in the table for a claim, and nothing queued
// after it is handed over ahead of it until a claim has found the table empty.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookDeliveryWriter } from './webhook-delivery-writer';
import { endpointsServiceOf } from './webhook-endpoints.fixture';
import type { WebhookEndpointsService } from './webhook-endpoints.service';

describe('the delivery worker: handed over or claimed', () => {
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
  /** While set, requests are held unanswered until it resolves. */
  let hold: Promise<void> | undefined;
  let arrival = () => {};
  /** Every delivery id a claim returned, and how many claims found nothing. */
  const claimed = new Set<string>();
  let emptyClaims = 0;
  /** Claims under way now. */
  let claiming = 0;
  let onClaim = () => {};

  beforeAll(async () => {
    db = await createTestDatabase();
    config = loadConfig({
      DATABASE_URL: db.url,
      MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      MM_WEBHOOK_CONCURRENCY: '1',
    });
    cache = new WebhookEndpointsCache(db.uow);
    await cache.onApplicationBootstrap();
    deliveries = new WebhookDeliveries(db.uow, cache);
    const claimDue = deliveries.claimDue.bind(deliveries);
    deliveries.claimDue = async (limit, leaseMs) => {
      claiming++;
      try {
        const rows = await claimDue(limit, leaseMs);
        for (const row of rows) claimed.add(row.id);
        if (rows.length === 0) emptyClaims++;
        return rows;
      } finally {
        claiming--;
        onClaim();
      }
    };
    endpoints = endpointsServiceOf(db.uow, cache, deliveries, config);
    const clock = new ProjectClock(db.uow);
    const queue = new LocalDeliveryQueue();
    writer = new WebhookDeliveryWriter(db.uow, deliveries, cache, queue);
    worker = new WebhookDeliveryWorker(
      db.uow,
      deliveries,
      new PartnerEvents(db.uow),
      new WebhookSigningKeys(db.uow, config),
      endpoints,
      new TimerService(db.uow, clock),
      config,
      queue,
    );
    server = createServer((req: IncomingMessage, res: ServerResponse) => {
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

  const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  /** Resolves once `count` requests have arrived in all. */
  const arrivals = (count: number) =>
    new Promise<void>((resolve) => {
      arrival = () => arrived.length >= count && resolve();
      arrival();
    });

  /** A test send to the endpoint, queued in a transaction of its own; returns the delivery's id. */
  async function queue(projectId: string, webhookId: string): Promise<string> {
    const id = newId('webhookDelivery');
    await db.uow.run(() =>
      writer.insertNew(
        { id, webhookId, status: 'queued', body: '{}' },
        {
          projectId,
          eventId: newId('event'),
          event: 'webhook.test',
          resourceId: webhookId,
          test: true,
          createdAt: new Date().toISOString(),
        },
      ),
    );
    return id;
  }

  const statusOf = async (id: string) =>
    (
      await db.uow.query<{ status: string; attempt_count: number }>(
        `SELECT status, attempt_count FROM webhooks.deliveries WHERE id = $1`,
        [id],
      )
    )[0];

  /**
   * Resolves once no claim is under way. A claim woken by the record of the delivery before (or by the poll)
   * holds the free slot while it runs, so what is queued meanwhile waits for a claim instead of being handed over.
   */
  const noClaimUnderWay = () =>
    new Promise<void>((resolve) => {
      onClaim = () => claiming === 0 && resolve();
      onClaim();
    });

  /** Waits for the worker's record of the delivery (it follows the receiver's answer). */
  async function delivered(id: string): Promise<void> {
    for (;;) {
      if ((await statusOf(id)).status === 'delivered') return;
      await new Promise((r) => setImmediate(r));
    }
  }

  it('sends what it is handed with no claim, records it, and leaves to a claim what it has no slot for, in the order queued', async () => {
    const projectId = newId('project');
    const { endpoint } = await endpoints.create(projectId, { url: url(), subscriptions: ['*'] });

    // A free slot: handed over, never claimed.
    await noClaimUnderWay();
    const first = await queue(projectId, endpoint.id);
    await arrivals(1);
    await delivered(first);
    expect(claimed.has(first)).toBe(false);
    expect(await statusOf(first)).toEqual({ status: 'delivered', attempt_count: 1 });

    // The one slot busy (the receiver holds its answer): the next two wait in the table, in order.
    let answer!: () => void;
    hold = new Promise<void>((resolve) => (answer = resolve));
    const busy = await queue(projectId, endpoint.id);
    await arrivals(2);
    const waiting = [await queue(projectId, endpoint.id), await queue(projectId, endpoint.id)];
    hold = undefined;
    answer();
    await arrivals(4);
    expect(arrived).toEqual([first, busy, ...waiting]);
    for (const id of [busy, ...waiting]) await delivered(id);
    // `busy` itself may have come either way: a poll that found the slot taken by `first` leaves what is queued
    // next to a claim (DeliverySlots.wokenWhileFull), which is the rule this test checks for `waiting`.
    expect(waiting.every((id) => claimed.has(id))).toBe(true);

    // Once a claim has found the table empty, what is queued is handed over again.
    const empty = emptyClaims;
    await new Promise<void>((resolve) => {
      onClaim = () => emptyClaims > empty && resolve();
      onClaim();
    });
    await noClaimUnderWay();
    const after = await queue(projectId, endpoint.id);
    await arrivals(5);
    await delivered(after);
    expect(claimed.has(after)).toBe(false);
  });
});
