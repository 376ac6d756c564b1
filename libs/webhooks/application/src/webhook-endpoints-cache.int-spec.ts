// Read your writes across processes (issue 24, ADR 0025): once an endpoint
// command has been answered, the fan-out of every process reads the project's
// endpoints as the command left them, though each keeps them in memory
// (WebhookEndpointsCache). Two sets of objects with connections and feeds of
// their own stand for two processes on one database: one answers the commands,
// the other fans out.
import { randomBytes } from 'node:crypto';
import { loadConfig } from '@mm/platform/config';
import { newId } from '@mm/platform/ids';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { WebhookDeliveries, WebhookEndpointsCache } from '@mm/webhooks/infrastructure';
import type { WebhookEndpointsService } from './webhook-endpoints.service';
import { endpointsServiceOf } from './webhook-endpoints.fixture';

describe("a project's webhook endpoints kept in memory by several processes", () => {
  let db: TestDatabase;
  let other: TestDatabase;
  let hereCache: WebhookEndpointsCache;
  let thereCache: WebhookEndpointsCache;
  let endpoints: WebhookEndpointsService;
  let there: WebhookDeliveries;
  let thereEndpoints: WebhookEndpointsService;

  beforeAll(async () => {
    db = await createTestDatabase();
    other = await anotherProcess(db);
    const config = loadConfig({
      DATABASE_URL: db.url,
      MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    });
    hereCache = new WebhookEndpointsCache(db.uow);
    thereCache = new WebhookEndpointsCache(other.uow);
    await hereCache.onApplicationBootstrap();
    await thereCache.onApplicationBootstrap();
    endpoints = endpointsServiceOf(db.uow, hereCache, new WebhookDeliveries(db.uow, hereCache), config);
    there = new WebhookDeliveries(other.uow, thereCache);
    thereEndpoints = endpointsServiceOf(other.uow, thereCache, there, config);
  });
  afterAll(async () => {
    await thereCache.onApplicationShutdown();
    await hereCache.onApplicationShutdown();
    await other.close();
    await db.close();
  });

  /** What the other process's fan-out would queue a transaction.statusChanged for, read twice so it is held in memory. */
  async function fannedOutThere(projectId: string): Promise<Array<{ id: string; status: string }>> {
    const first = await there.subscribedEndpoints(projectId, 'transaction.statusChanged', true);
    expect(await there.subscribedEndpoints(projectId, 'transaction.statusChanged', true)).toEqual(first);
    return first;
  }

  /** The endpoint a test send in the other process would go to (or its refusal), read twice so it is held in memory. */
  async function testSendTargetThere(projectId: string, id: string): Promise<unknown> {
    const read = () =>
      thereEndpoints.requireEnabled(projectId, id).then(
        (row) => ({
          url: row.url,
          description: row.description,
          status: row.status,
          updatedAt: row.updated_at.toISOString(),
        }),
        (error: { errorName?: string }) => error.errorName,
      );
    const first = await read();
    expect(await read()).toEqual(first);
    return first;
  }

  it('sends a test to the endpoint as the last answered command left it, in every process', async () => {
    for (let round = 1; round <= 5; round++) {
      const projectId = newId('project');
      const { endpoint } = await endpoints.create(projectId, {
        url: 'https://partner.example/hooks',
        subscriptions: ['cashIn.created'],
      });
      const shown = (row: { url: string; description: string | null; status: string; updated_at: Date }) => ({
        url: row.url,
        description: row.description,
        status: row.status,
        updatedAt: row.updated_at.toISOString(),
      });
      expect({ round, step: 'created', target: await testSendTargetThere(projectId, endpoint.id) }).toEqual({
        round,
        step: 'created',
        target: shown(endpoint),
      });

      const updated = await endpoints.update(projectId, endpoint.id, {
        url: 'https://partner.example/v2',
        description: 'second',
      });
      expect({ round, step: 'updated', target: await testSendTargetThere(projectId, endpoint.id) }).toEqual({
        round,
        step: 'updated',
        target: shown(updated),
      });

      const { endpoint: rotated } = await endpoints.rotateKey(projectId, endpoint.id);
      expect(rotated.updated_at.getTime()).toBeGreaterThanOrEqual(updated.updated_at.getTime());
      expect({ round, step: 'rotated', target: await testSendTargetThere(projectId, endpoint.id) }).toEqual({
        round,
        step: 'rotated',
        target: shown(rotated),
      });

      await endpoints.disable(projectId, endpoint.id);
      expect({ round, step: 'disabled', target: await testSendTargetThere(projectId, endpoint.id) }).toEqual({
        round,
        step: 'disabled',
        target: 'WebhookNotEnabled',
      });

      const enabled = await endpoints.enable(projectId, endpoint.id);
      expect({ round, step: 'enabled', target: await testSendTargetThere(projectId, endpoint.id) }).toEqual({
        round,
        step: 'enabled',
        target: shown(enabled),
      });

      await endpoints.delete(projectId, endpoint.id);
      expect({ round, step: 'deleted', target: await testSendTargetThere(projectId, endpoint.id) }).toEqual({
        round,
        step: 'deleted',
        target: 'WebhookNotFound',
      });
      expect(await testSendTargetThere(projectId, 'wh_not-an-id')).toBe('InvalidWebhookID');
    }
  });

  it('fans out as the last answered command left the endpoints, in every process', async () => {
    // Many rounds: without acknowledgements the other process's notification often arrives after the answer.
    for (let round = 1; round <= 15; round++) {
      const projectId = newId('project');
      expect(await fannedOutThere(projectId)).toEqual([]);

      const { endpoint } = await endpoints.create(projectId, {
        url: 'https://partner.example/hooks',
        subscriptions: ['transaction.statusChanged'],
      });
      expect({ round, step: 'created', endpoints: await fannedOutThere(projectId) }).toEqual({
        round,
        step: 'created',
        endpoints: [{ id: endpoint.id, status: 'enabled' }],
      });

      await endpoints.update(projectId, endpoint.id, { subscriptions: ['cashIn.created'] });
      expect({ round, step: 'unsubscribed', endpoints: await fannedOutThere(projectId) }).toEqual({
        round,
        step: 'unsubscribed',
        endpoints: [],
      });

      await endpoints.update(projectId, endpoint.id, { subscriptions: ['*'] });
      expect({ round, step: 'subscribed', endpoints: await fannedOutThere(projectId) }).toEqual({
        round,
        step: 'subscribed',
        endpoints: [{ id: endpoint.id, status: 'enabled' }],
      });

      await endpoints.disable(projectId, endpoint.id);
      expect({ round, step: 'disabled', endpoints: await fannedOutThere(projectId) }).toEqual({
        round,
        step: 'disabled',
        endpoints: [],
      });

      await endpoints.enable(projectId, endpoint.id);
      expect({ round, step: 'enabled', endpoints: await fannedOutThere(projectId) }).toEqual({
        round,
        step: 'enabled',
        endpoints: [{ id: endpoint.id, status: 'enabled' }],
      });

      await endpoints.delete(projectId, endpoint.id);
      expect({ round, step: 'deleted', endpoints: await fannedOutThere(projectId) }).toEqual({
        round,
        step: 'deleted',
        endpoints: [],
      });
    }
  });
});
