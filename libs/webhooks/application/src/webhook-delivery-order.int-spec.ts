// A resource's deliveries to an endpoint keep their order however long the one before them takes (spec: Events /
// Delivery and verification; docs/webhooks.md: "sent one after another, in the order they were created"), on a
// real PostgreSQL with a real HTTP receiver. Found by the fault run: a delivery that had waited longer than its
// lease could cover was given back to the table, and a later one of the same resource, handed over after it and
// so having waited less, went first. The subject is a bound on waiting, so this test waits for real time to pass
// that bound (MAX_ORDER_WAIT_MS), not for an event.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '@mm/platform/ids';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { MAX_ORDER_WAIT_MS } from './webhook-delivery.worker';
import { oneProcess, queue, startWorker, type ServiceProcess } from './webhook-delivery-processes.fixture';

describe('a resource’s deliveries to an endpoint', () => {
  let db: TestDatabase;
  let process: ServiceProcess<TestDatabase>;
  let server: Server;
  /** Delivery ids in the order their requests arrived. */
  const arrived: string[] = [];
  let arrival = () => {};
  /** While set, the receiver holds its answers until it resolves. */
  let hold: Promise<void> | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    process = await oneProcess(db);
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.push(String(req.headers['webhook-id']));
        arrival();
        void (hold ?? Promise.resolve()).then(() => res.writeHead(200).end('ok'));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await startWorker(process);
  });
  afterAll(async () => {
    await process.worker!.onApplicationShutdown();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await process.cache.onApplicationShutdown();
    await db.close();
  });

  const arrivals = (count: number) =>
    new Promise<void>((resolve) => {
      arrival = () => arrived.length >= count && resolve();
      arrival();
    });
  const after = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('go in the order they were made when the one before them takes longer than a lease can wait', async () => {
    const projectId = newId('project');
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const { endpoint } = await process.endpoints.create(projectId, { url, subscriptions: ['*'] });
    const customer = newId('customer');

    // The first is held by the receiver; the second is handed over and waits for it.
    let answer!: () => void;
    hold = new Promise<void>((resolve) => (answer = resolve));
    const first = await queue(process, projectId, endpoint.id, customer);
    await arrivals(1);
    const second = await queue(process, projectId, endpoint.id, customer);
    // The third is handed over a second later, so when the first is answered, only the second has waited longer
    // than its lease allows.
    await after(1_000);
    const third = await queue(process, projectId, endpoint.id, customer);
    await after(MAX_ORDER_WAIT_MS - 500);
    hold = undefined;
    answer();

    await arrivals(3);
    expect(arrived).toEqual([first, second, third]);
    // Sent in its turn under its renewed lease, not given back and claimed afresh.
    expect(process.claimed).not.toContain(second);
  });
});
