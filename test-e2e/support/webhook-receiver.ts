// A real HTTP receiver on loopback for webhook deliveries: it keeps every
// request as received (raw body, headers, arrival time) and answers each path by
// a plan: fail the first N requests with a status, hang, or answer 200; or holds
// the next request to a path open until the test answers it.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: any;
  at: number;
  /** When its answer was sent (unset while it is held). */
  answeredAt?: number;
}

/** The next request to a path, held open: `arrived` once it has come, answered with `answer(status)`. */
export interface HeldRequest {
  arrived: Promise<ReceivedDelivery>;
  answer(status: number): void;
}

interface Plan {
  failures: number;
  status: number;
  hangMs?: number;
}

export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  private readonly plans = new Map<string, Plan>();
  private readonly served = new Map<string, number>();
  private readonly holds = new Map<
    string,
    Array<(delivery: ReceivedDelivery, reply: (status: number) => void) => void>
  >();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined = undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => receiver!.answer(req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    receiver = new WebhookReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The URL of a path on this receiver. */
  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The first `failures` requests to the path get `status` (Infinity: all of them). */
  fail(path: string, failures: number, status = 500): void {
    this.plans.set(path, { failures, status });
  }

  /** Requests to the path are answered only after hangMs. */
  hang(path: string, hangMs: number): void {
    this.plans.set(path, { failures: Infinity, status: 200, hangMs });
  }

  /**
   * Holds the next request to the path unanswered (after those already held) until `answer` is called, whatever
   * the path's plan: the sender's attempt stays in flight as long as the test needs.
   */
  holdNext(path: string): HeldRequest {
    let answer!: (status: number) => void;
    const answered = new Promise<number>((resolve) => (answer = resolve));
    const arrived = new Promise<ReceivedDelivery>((resolve) => {
      this.holds.set(path, [
        ...(this.holds.get(path) ?? []),
        (delivery, reply) => {
          resolve(delivery);
          void answered.then(reply);
        },
      ]);
    });
    return { arrived, answer };
  }

  at(path: string): ReceivedDelivery[] {
    return this.received.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(
    path: string,
    headers: IncomingHttpHeaders,
    rawBody: string,
    res: import('node:http').ServerResponse,
  ): void {
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const delivery: ReceivedDelivery = { path, headers, rawBody, body, at: Date.now() };
    this.received.push(delivery);
    const n = (this.served.get(path) ?? 0) + 1;
    this.served.set(path, n);
    const plan = this.plans.get(path);
    const send = (status: number) => {
      if (res.destroyed) return;
      delivery.answeredAt = Date.now();
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : `failing on purpose (${n})`);
    };
    const reply = () => send(plan && !plan.hangMs && n <= plan.failures ? plan.status : 200);
    const held = this.holds.get(path)?.shift();
    if (held) held(delivery, send);
    else if (plan?.hangMs) setTimeout(reply, plan.hangMs);
    else reply();
  }
}
