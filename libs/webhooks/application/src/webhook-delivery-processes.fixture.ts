// For the integration tests of retries: two processes of the webhooks service on
// one PostgreSQL, each with its own connections, copy of the endpoints, local
// queue and (once started) worker, their claims recorded; and what the tests read
// and do on a delivery's row, as the retry endpoint and a test send do it.
import { randomBytes } from 'node:crypto';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { loadConfig, type PlatformConfig } from '@mm/platform/config';
import type { UnitOfWork } from '@mm/platform/database';
import { newId } from '@mm/platform/ids';
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

/** A process's connections to the test database (a TestDatabase, which the specs make). */
export interface ProcessDatabase {
  url: string;
  uow: UnitOfWork;
  close(): Promise<void>;
}

/** One process of the webhooks service: its connections, its copy of the endpoints, its queue and (started) its worker. */
export interface ServiceProcess<D extends ProcessDatabase = ProcessDatabase> {
  db: D;
  config: PlatformConfig;
  cache: WebhookEndpointsCache;
  deliveries: WebhookDeliveries;
  queue: LocalDeliveryQueue;
  writer: WebhookDeliveryWriter;
  endpoints: WebhookEndpointsService;
  worker?: WebhookDeliveryWorker;
  /** Every delivery id its claims returned. */
  claimed: string[];
}

export interface DeliveryState {
  status: string;
  attempt_count: number;
  earlier_attempts: number;
  retry_requested: boolean;
  leased: boolean;
  due_now: boolean;
}

function serviceProcess<D extends ProcessDatabase>(database: D, config: PlatformConfig): ServiceProcess<D> {
  const cache = new WebhookEndpointsCache(database.uow);
  const deliveries = new WebhookDeliveries(database.uow, cache);
  const queue = new LocalDeliveryQueue();
  const writer = new WebhookDeliveryWriter(database.uow, deliveries, cache, queue);
  const process: ServiceProcess<D> = {
    db: database,
    config,
    cache,
    deliveries,
    queue,
    writer,
    endpoints: endpointsServiceOf(database.uow, cache, deliveries, config),
    claimed: [],
  };
  const claimDue = deliveries.claimDue.bind(deliveries);
  deliveries.claimDue = async (limit, leaseMs) => {
    const rows = await claimDue(limit, leaseMs);
    process.claimed.push(...rows.map((r) => r.id));
    return rows;
  };
  return process;
}

const configFor = (db: ProcessDatabase): PlatformConfig =>
  loadConfig({
    DATABASE_URL: db.url,
    MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    MM_WEBHOOK_CONCURRENCY: '4',
  });

/** Processes A and B (four slots each) on the connections given, their copies of the endpoints started. */
export async function twoProcesses<D extends ProcessDatabase>(
  db: D,
  other: D,
): Promise<{ a: ServiceProcess<D>; b: ServiceProcess<D> }> {
  const config = configFor(db);
  const a = serviceProcess(db, config);
  const b = serviceProcess(other, config);
  await Promise.all([a.cache.onApplicationBootstrap(), b.cache.onApplicationBootstrap()]);
  return { a, b };
}

/** One process (four slots) on the connections given, its copy of the endpoints started. */
export async function oneProcess<D extends ProcessDatabase>(db: D): Promise<ServiceProcess<D>> {
  const process = serviceProcess(db, configFor(db));
  await process.cache.onApplicationBootstrap();
  return process;
}

export async function closeProcesses(a: ServiceProcess, b: ServiceProcess): Promise<void> {
  await Promise.all([a.cache.onApplicationShutdown(), b.cache.onApplicationShutdown()]);
  await b.db.close();
  await a.db.close();
}

export async function startWorker(process: ServiceProcess): Promise<void> {
  const { uow } = process.db;
  const { config } = process;
  process.worker = new WebhookDeliveryWorker(
    uow,
    process.deliveries,
    new PartnerEvents(uow),
    new WebhookSigningKeys(uow, config),
    process.endpoints,
    new TimerService(uow, new ProjectClock(uow)),
    config,
    process.queue,
  );
  await process.worker.onApplicationBootstrap();
}

export const deliveryState = async (db: ProcessDatabase, id: string): Promise<DeliveryState> =>
  (
    await db.uow.query<DeliveryState>(
      `SELECT status, attempt_count, earlier_attempts, retry_requested, lease_until IS NOT NULL AS leased, next_attempt_at <= clock_timestamp() AS due_now FROM webhooks.deliveries WHERE id = $1`,
      [id],
    )
  )[0];

export const attemptNumbersOf = async (db: ProcessDatabase, id: string) =>
  (
    await db.uow.query<{ attempt: number; status_code: number | null }>(
      `SELECT attempt, status_code FROM webhooks.delivery_attempts WHERE delivery_id = $1 ORDER BY id`,
      [id],
    )
  ).map((r) => [r.attempt, r.status_code]);

/** The retry endpoint's statement, in a transaction of the process given. */
export const retry = (process: ServiceProcess, webhookId: string, id: string) =>
  process.db.uow.run(() => process.writer.requeue(webhookId, { ids: [id] }, new Date().toISOString(), 30));

/**
 * A delivery queued by the process given, in a transaction of its own: handed to its worker when it runs one with
 * room. A test send, or with `resourceId` a delivery of an event of that resource (which keeps its order).
 */
export async function queue(
  process: ServiceProcess,
  projectId: string,
  webhookId: string,
  resourceId?: string,
): Promise<string> {
  const id = newId('webhookDelivery');
  await process.db.uow.run(() =>
    process.writer.insertNew(
      { id, webhookId, status: 'queued', body: '{}' },
      {
        projectId,
        eventId: newId('event'),
        event: resourceId ? 'customer.updated' : 'webhook.test',
        resourceId: resourceId ?? webhookId,
        test: !resourceId,
        createdAt: new Date().toISOString(),
      },
    ),
  );
  return id;
}
