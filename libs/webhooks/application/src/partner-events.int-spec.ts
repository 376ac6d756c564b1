// The Events API's record (ADR 0034), on a real PostgreSQL: the fan-out records
// every partner event of a project once, whether or not an endpoint takes it and
// however often the transport hands it over; the record is purged with the
// deliveries, after the retention window of each project's own clock. An
// installation upgraded to it recovers the events its deliveries still hold.
import type { EventPayloads } from '@mm/contracts';
import { ProjectClock } from '@mm/platform/clock';
import type { RecordedEvent } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import {
  AnnouncementOrder,
  PartnerEvents,
  WebhookDeliveries,
  WebhookEndpointsCache,
  WebhookPartnerEvents1700000003400,
} from '@mm/webhooks/infrastructure';
import { LocalDeliveryQueue } from './local-delivery-queue';
import { WebhookDeliveryWriter } from './webhook-delivery-writer';
import { WebhookFanOut } from './webhook-fan-out';

const DAY_MS = 86_400_000;

describe('the record of partner events', () => {
  let db: TestDatabase;
  let cache: WebhookEndpointsCache;
  let clock: ProjectClock;
  let events: PartnerEvents;
  let fanOut: WebhookFanOut;

  beforeAll(async () => {
    db = await createTestDatabase();
    cache = new WebhookEndpointsCache(db.uow);
    clock = new ProjectClock(db.uow);
    await cache.onApplicationBootstrap();
    await clock.onApplicationBootstrap();
    events = new PartnerEvents(db.uow);
    const deliveries = new WebhookDeliveries(db.uow, cache);
    fanOut = new WebhookFanOut(
      deliveries,
      new WebhookDeliveryWriter(db.uow, deliveries, cache, new LocalDeliveryQueue()),
      events,
      new AnnouncementOrder(db.uow),
      clock,
    );
  });
  afterAll(async () => {
    await clock.onApplicationShutdown();
    await cache.onApplicationShutdown();
    await db.close();
  });

  const count = async (table: string, projectId: string) =>
    Number(
      (
        await db.uow.query<{ n: string }>(`SELECT count(*) AS n FROM webhooks.${table} WHERE project_id = $1`, [
          projectId,
        ])
      )[0].n,
    );

  it('records an event nobody subscribes to, once, as its deliveries would carry it', async () => {
    const projectId = newId('project');
    const walletId = newId('wallet');
    const published: RecordedEvent<'partnerEvent.published', EventPayloads['partnerEvent.published']> = {
      eventId: newId('event'),
      source: 'accounts',
      globalPosition: '1',
      transactionId: '1',
      streamId: `partner-${walletId}`,
      streamVersion: 1,
      type: 'partnerEvent.published',
      data: {
        projectId,
        event: 'wallet.provisioned',
        resourceId: walletId,
        sequence: 1,
        occurredAt: '2026-01-02T03:04:05.678Z',
        data: { id: walletId, object: 'wallet' },
      },
      metadata: { projectId } as RecordedEvent['metadata'],
      recordedAt: new Date().toISOString(),
    };
    // Handed over twice, as an at-least-once transport may.
    await db.uow.run(() => fanOut.onPartnerEvent(published));
    await db.uow.run(() => fanOut.onPartnerEvent(published));

    expect(await count('deliveries', projectId)).toBe(0);
    const rows = await events.find(projectId, [], [published.eventId], new Date(0).toISOString());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ event_id: published.eventId, event: 'wallet.provisioned', resource_id: walletId });
    expect(JSON.parse(rows[0].body)).toEqual({
      id: published.eventId,
      event: 'wallet.provisioned',
      sequence: 1,
      createdAt: new Date(rows[0].created_at).toISOString(),
      occurredAt: '2026-01-02T03:04:05.678Z',
      data: { id: walletId, object: 'wallet' },
    });
  });

  it("purges what is older than the retention window by each project's clock, and nothing else", async () => {
    const [still, ahead] = [newId('project'), newId('project')];
    // The other project's clock is two days ahead.
    await db.uow.run(() => clock.advance(ahead, 2 * 86_400));
    const record = (projectId: string, ageDays: number) => {
      const eventId = newId('event');
      return db.uow
        .run(() =>
          events.record({
            eventId,
            projectId,
            event: 'wallet.provisioned',
            resourceId: newId('wallet'),
            createdAt: new Date(Date.now() - ageDays * DAY_MS).toISOString(),
            body: '{}',
          }),
        )
        .then(() => eventId);
    };
    const kept = [await record(still, 29), await record(still, 1), await record(ahead, 27)];
    const gone = [await record(still, 31), await record(ahead, 29)];

    let purged = 0;
    for (
      let batch = await db.uow.run(() => events.purge(30, 1));
      batch > 0;
      batch = await db.uow.run(() => events.purge(30, 1))
    )
      purged += batch;
    expect(purged).toBe(gone.length);
    const left = async (projectId: string) =>
      (await events.find(projectId, [], [...kept, ...gone], new Date(0).toISOString())).map((r) => r.event_id);
    expect([...(await left(still)), ...(await left(ahead))].sort()).toEqual([...kept].sort());
  });

  it('recovers, when installed, the events of the deliveries already made: once each, in the order they were made', async () => {
    const migration = new WebhookPartnerEvents1700000003400();
    const runner = db.uow.dataSource.createQueryRunner();
    try {
      await migration.down(runner);
      const projectId = newId('project');
      const hooks = [newId('webhook'), newId('webhook')];
      for (const id of hooks) {
        await runner.query(
          `INSERT INTO webhooks.endpoints (id, project_id, url, subscriptions, timeout_ms, notify_threshold_secs, status, version, created_at, updated_at)
           VALUES ($1, $2, 'https://partner.example/hooks', '["*"]', 5000, 3600, 'enabled', 1, now(), now())`,
          [id, projectId],
        );
      }
      const envelope = (deliveryId: string, eventId: string) =>
        JSON.stringify({
          id: deliveryId,
          eventType: 'transaction.statusChanged',
          eventId,
          previousStatus: null,
          sequence: 1,
          createdAt: '2026-01-01T00:00:00.000Z',
          occurredAt: '2026-01-01T00:00:00.000Z',
          data: { id: 'txn_x', object: 'transaction' },
        });
      const [older, newer, test] = [newId('event'), newId('event'), newId('event')];
      const deliver = (webhookId: string, eventId: string, at: string, isTest = false) => {
        const id = newId('webhookDelivery');
        return runner.query(
          `INSERT INTO webhooks.deliveries (id, project_id, webhook_id, event_id, event, resource_id, test, body, status, created_at, updated_at) VALUES ($1, $2, $3, $4, 'transaction.statusChanged', 'txn_x', $5, $6, 'delivered', $7, $7)`,
          [id, projectId, webhookId, eventId, isTest, envelope(id, eventId), at],
        );
      };
      // The newer event first in id order: the order is the deliveries' creation.
      await deliver(hooks[0], newer, '2026-01-01T00:00:02Z');
      await deliver(hooks[1], newer, '2026-01-01T00:00:02Z');
      await deliver(hooks[0], older, '2026-01-01T00:00:01Z');
      await deliver(hooks[0], test, '2026-01-01T00:00:03Z', true);
      await migration.up(runner);

      const rows = await db.uow.query<{ event_id: string; body: string }>(
        `SELECT event_id, body FROM webhooks.partner_events WHERE project_id = $1 ORDER BY position`,
        [projectId],
      );
      expect(rows.map((r) => r.event_id)).toEqual([older, newer]);
      for (const row of rows) expect(row.body).toBe(envelope(row.event_id, row.event_id));
    } finally {
      await runner.release();
    }
  });
});
