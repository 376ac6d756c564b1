// Spec: Events / Delivery and verification 1 (at least once; deduplicate on
// `id`). The platform process as `npm start` runs it is killed outright
// (SIGKILL) while deliveries are in flight and events are being produced, then
// started again on the same data: every event reaches the receiver at least
// once, deduplicating on `id` leaves exactly one of each, and nothing is lost.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { freeLoopbackPort } from '@mm/runtime/platform';
import { START_TIMEOUT_MS } from './support/distributed-processes';
import {
  dataDirs,
  newDataDir,
  platformDatabase,
  start,
  stop,
  stopEverything,
  token,
  until,
  type Launched,
} from './support/platform-process';
import { WebhookReceiver } from './support/webhook-receiver';

const OPERATIONS = 240;
const CONCURRENCY = 8;
/** Kill once this many operations have been answered: with more being produced and delivered. */
const KILL_AFTER = 80;

async function call(
  url: string,
  bearer: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/v0.13${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

afterAll(async () => {
  await stopEverything();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}, START_TIMEOUT_MS);

test(
  'SIGKILL while deliveries are in flight: after a restart every event is delivered, none lost, one of each after dedupe',
  async () => {
    const receiver = await WebhookReceiver.start();
    // A little latency on every answer keeps deliveries in flight when the process dies.
    receiver.hang('/crash', 25);
    const dataDir = newDataDir();
    const port = String(await freeLoopbackPort());
    const database = await platformDatabase();
    try {
      let platform: Launched = await start(dataDir, { PORT: port, ...database });
      let bearer = await token(platform.url);
      const endpoint = await call(platform.url, bearer, 'POST', '/webhooks', {
        url: receiver.url('/crash'),
        subscriptions: ['*'],
        timeoutMs: 1000,
      });
      expect(endpoint.status).toBe(201);
      const webhookId: string = endpoint.body.id;

      // Test sends and customers with an endorsement (three partner events each), until the kill.
      const testDeliveries: string[] = [];
      const customers: string[] = [];
      let answered = 0;
      let killed = false;
      let next = 0;
      const worker = async () => {
        while (next < OPERATIONS && !killed) {
          const n = next++;
          try {
            if (n % 2 === 0) {
              const res = await call(platform.url, bearer, 'POST', `/webhooks/${webhookId}/test`);
              if (res.status === 201) testDeliveries.push(res.body.id);
            } else {
              const res = await call(platform.url, bearer, 'POST', '/customers', {
                type: 'individual',
                firstName: 'Crash',
                lastName: `Test${n}`,
                endorsements: ['basic'],
              });
              if (res.status === 201) customers.push(res.body.id);
            }
          } catch {
            // the process is gone: requests in flight fail
          }
          if (++answered === KILL_AFTER) {
            killed = true;
            const exit = await stop(platform, 'SIGKILL');
            expect(exit.signal).toBe('SIGKILL');
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      expect(killed).toBe(true);
      const receivedBeforeRestart = receiver.at('/crash').length;

      platform = await start(dataDir, { PORT: port, ...database });
      bearer = await token(platform.url);
      // Production goes on after the restart.
      for (let i = 0; i < 10; i++) {
        const res = await call(platform.url, bearer, 'POST', `/webhooks/${webhookId}/test`);
        expect(res.status).toBe(201);
        testDeliveries.push(res.body.id);
      }

      const receivedIds = () => new Set(receiver.at('/crash').map((r) => r.body.id as string));
      // Every test send that was answered 201 arrives.
      await until(
        () => (testDeliveries.every((id) => receivedIds().has(id)) ? true : undefined),
        60_000,
        () => `${testDeliveries.filter((id) => !receivedIds().has(id)).length} test sends missing`,
      );
      // Every customer created: its endorsement requested, approved and active events arrive.
      const expected = (id: string) => {
        const of = receiver
          .at('/crash')
          .filter((r) => r.body.data?.id === id)
          .map((r) => `${r.body.event}:${r.body.data.endorsements[0].status}`);
        return ['endorsement.updated:pending', 'endorsement.updated:active', 'endorsement.active:active'].every((e) =>
          of.includes(e),
        );
      };
      await until(
        () => (customers.every(expected) ? true : undefined),
        60_000,
        () => `${customers.filter((id) => !expected(id)).length} customers' events missing`,
      );

      // The history agrees: every delivery the platform recorded is delivered and arrived, and nothing
      // arrived that it did not record. Deduplicating on id leaves exactly one of each.
      const listed = await until(
        async () => {
          const all: Array<{ id: string; status: string }> = [];
          for (let cursor: string | null = null; ;) {
            const page = await call(
              platform.url,
              bearer,
              'GET',
              `/webhooks/${webhookId}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
            );
            all.push(...page.body.data);
            cursor = page.body.nextCursor;
            if (!page.body.hasMore) break;
          }
          return all.every((d) => d.status === 'delivered') ? all : undefined;
        },
        60_000,
        () => 'deliveries still queued',
      );
      const ids = receivedIds();
      expect(listed.map((d) => d.id).sort()).toEqual([...ids].sort());
      expect(ids.size).toBe(listed.length);
      expect(listed.length).toBeGreaterThanOrEqual(testDeliveries.length + 3 * customers.length);
      // The kill really was in the middle of it: some arrived before, more after.
      expect(receivedBeforeRestart).toBeGreaterThan(0);
      expect(receiver.at('/crash').length).toBeGreaterThan(receivedBeforeRestart);
      await stop(platform, 'SIGTERM');
    } finally {
      await receiver.stop();
    }
  },
  2 * START_TIMEOUT_MS,
);
