// A retry of a delivery with an attempt in flight (spec: Endpoints / Webhooks, the retry endpoint; ADR 0059), on
// a real PostgreSQL. A delivery has one attempt in flight at a time, whichever process's worker holds it (handed
// over by its insert, or claimed) and whichever process takes the retry: the retry keeps the attempt's lease and
// is made once that attempt is recorded; the attempt count starts again with the retry, and attempt numbers go
// on. Two processes of the webhooks service with their running workers and a real HTTP receiver that holds
// attempts open; each order in which a retry can meet a claim and a record on the delivery's row is in
// webhook-delivery-retry-row.int-spec.ts.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { newId } from '@mm/platform/ids';
import { anotherProcess, createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import {
  attemptNumbersOf,
  closeProcesses,
  deliveryState,
  queue,
  retry,
  startWorker,
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
  const attemptNumbers = (id: string) => attemptNumbersOf(db, id);

  describe('two processes with their workers, and a receiver that holds attempts open', () => {
    let server: Server;
    /** Each request as it arrived: the delivery, when, and when it was answered. */
    const requests: Array<{ id: string; at: number; answeredAt?: number }> = [];
    /** Answers for the requests to come, in order: each holds its request until its promise resolves with a status. */
    const answers: Array<Promise<number>> = [];
    let onRequest = () => {};

    beforeAll(async () => {
      server = createServer((req: IncomingMessage, res: ServerResponse) => {
        req.resume();
        req.on('end', () => {
          const request: { id: string; at: number; answeredAt?: number } = {
            id: String(req.headers['webhook-id']),
            at: Date.now(),
          };
          requests.push(request);
          onRequest();
          void (answers.shift() ?? Promise.resolve(200)).then((status) => {
            request.answeredAt = Date.now();
            res.writeHead(status).end(String(status));
          });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      await Promise.all([startWorker(a), startWorker(b)]);
    });
    afterAll(async () => {
      await Promise.all([a.worker?.onApplicationShutdown(), b.worker?.onApplicationShutdown()]);
      a.queue.close();
      b.queue.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    });

    /** The next request to arrive is held until `answer(status)`. */
    function holdNext() {
      let answer!: (status: number) => void;
      answers.push(new Promise<number>((resolve) => (answer = resolve)));
      return { answer };
    }
    const arrivals = (count: number) =>
      new Promise<void>((resolve) => {
        onRequest = () => requests.length >= count && resolve();
        onRequest();
      });
    const delivered = async (id: string, attempts: number) => {
      for (;;) {
        const s = await state(id);
        if (s.status === 'delivered' && !s.retry_requested && (await attemptNumbers(id)).length === attempts) return s;
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    it('makes it after the attempt in flight, whichever process holds the attempt and whichever takes the retry, and numbers the attempts on', async () => {
      const projectId = newId('project');
      const { endpoint } = await a.endpoints.create(projectId, {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
        subscriptions: ['*'],
        timeoutMs: 10_000,
      });

      // Attempt 1: handed to process A's worker by its insert, held open by the receiver.
      const first = holdNext();
      const id = await queue(a, projectId, endpoint.id);
      await arrivals(1);
      expect(a.claimed).not.toContain(id);
      // Retried through process B: accepted, and the attempt keeps its lease; a claim made now, by either process,
      // finds nothing of this delivery.
      expect(await retry(b, endpoint.id, id)).toEqual([id]);
      expect((await b.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect((await a.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect(await state(id)).toMatchObject({
        status: 'queued',
        retry_requested: true,
        leased: true,
        attempt_count: 0,
      });
      expect(requests).toHaveLength(1);

      // Attempt 1 fails: the retry's attempt is due at once (not 5 s on), and claimed (by either worker).
      const second = holdNext();
      first.answer(503);
      await arrivals(2);
      expect([...a.claimed, ...b.claimed].filter((c) => c === id)).toHaveLength(1);
      // Retried again through process A, while that claimed attempt is in flight: the same.
      expect(await retry(a, endpoint.id, id)).toEqual([id]);
      expect((await a.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect((await b.deliveries.claimDue(10, 5_000)).map((d) => d.id)).not.toContain(id);
      expect(requests).toHaveLength(2);
      // Attempt 2 succeeds; the retry asked meanwhile is made all the same, after it.
      second.answer(200);
      await arrivals(3);
      expect(await delivered(id, 3)).toMatchObject({ attempt_count: 1, earlier_attempts: 2 });
      expect(await attemptNumbers(id)).toEqual([
        [1, 503],
        [2, 200],
        [3, 200],
      ]);
      // One at a time: each request arrived after the one before it was answered.
      expect(requests.map((r) => r.id)).toEqual([id, id, id]);
      requests.slice(1).forEach((r, i) => expect(r.at).toBeGreaterThanOrEqual(requests[i].answeredAt!));
    });
  });
});
