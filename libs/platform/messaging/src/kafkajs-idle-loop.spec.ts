// kafkajs' connections look at their queue of waiting requests only while one waits
// (kafkajs-idle-loop.ts): an idle connection does not wake its process every
// millisecond, and a request held back by a throttle is still sent when it ends.
import './kafkajs-idle-loop';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const RequestQueue = require('kafkajs/src/network/requestQueue');

const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

interface Queue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
  push(request: { entry: Entry; expectResponse: boolean; sendRequest: () => void }): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer | null; size: number }): void;
  destroy(): void;
}

interface Entry {
  correlationId: number;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const entry = (correlationId: number): Entry => ({ correlationId, resolve: () => undefined, reject: () => undefined });

function queue(): Queue {
  return new RequestQueue({
    maxInFlightRequests: 1,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: 'test:9092',
    logger: quiet,
  });
}

describe("kafkajs' request queue", () => {
  it('schedules no look at an empty queue when nothing throttles it', () => {
    const q = queue();
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
    q.destroy();
  });

  it('looks once at an empty queue, not again and again', async () => {
    const q = queue();
    let looks = 0;
    const look = q.checkPendingRequests.bind(q);
    q.checkPendingRequests = () => {
      looks++;
      look();
    };
    q.checkPendingRequests();
    // Long enough for dozens of 1 ms timers, had one been scheduled.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(looks).toBe(1);
    q.destroy();
  });

  it('sends a request held back by a throttle once the throttle ends', async () => {
    const q = queue();
    q.throttledUntil = Date.now() + 20;
    const sent = new Promise<void>((resolve) =>
      q.push({ entry: entry(1), expectResponse: false, sendRequest: resolve }),
    );
    expect(q.pending).toHaveLength(1);
    await sent;
    expect(q.pending).toHaveLength(0);
    q.destroy();
  });

  it('sends a request waiting for a place in flight once an answer frees one', async () => {
    const q = queue();
    q.push({ entry: entry(1), expectResponse: true, sendRequest: () => undefined });
    const sent = new Promise<void>((resolve) =>
      q.push({ entry: entry(2), expectResponse: true, sendRequest: resolve }),
    );
    expect(q.pending).toHaveLength(1);
    q.fulfillRequest({ correlationId: 1, payload: null, size: 0 });
    await sent;
    q.destroy();
  });
});
