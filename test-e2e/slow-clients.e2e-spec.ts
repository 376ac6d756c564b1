// Issue 5, item 6: slow clients cannot hold the server, and the refusals Node's
// HTTP parser makes (431, 400 for bad framing, 408) come in the API's error
// body. Raw sockets play the abusive clients; the normal client is fetch from
// 127.0.0.1, and abusive sockets bind other loopback addresses so that each is
// a different client to the per-client cap. Bounds are the configured timeouts
// plus Node's checking interval and a margin for a loaded machine, against the
// minutes such connections stayed open before. The header timeout is also the window in which the normal
// client must be served while every abusive connection is still open: two seconds, so that a loaded machine's
// slow answers cannot close it before the normal requests are done.
import { connect, type Socket } from 'node:net';
import { eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const HEADERS_MS = 2000;
// Above the idle timeout (a dripping body outlives it, so only the request deadline closes it), which is above
// the header timeout (a connection that sends nothing gets the header timeout's 408 before it is idle for long).
const REQUEST_MS = 5000;
const IDLE_MS = 3000;
const KEEP_ALIVE_MS = 800;
const PER_CLIENT = 5;
const TOTAL = 40;
// Node checks header and request deadlines every quarter header timeout (connection-limits.ts),
// and adds one second to the keep-alive timeout it announces.
const CHECK_MS = HEADERS_MS / 4;
const NODE_KEEP_ALIVE_BUFFER_MS = 1000;
const MARGIN_MS = 2000;

interface Raw {
  socket: Socket;
  /** Everything the server sent, and when the connection closed (ms after it opened). */
  closed: Promise<{ data: string; afterMs: number }>;
}

describe('slow clients', () => {
  let platform: TestPlatform;
  let token: string;
  let customerId: string;
  const open = new Set<Socket>();
  const drips = new Set<NodeJS.Timeout>();

  beforeAll(async () => {
    platform = await TestPlatform.start(
      {
        MM_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
        MM_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
        MM_HTTP_IDLE_TIMEOUT_MS: String(IDLE_MS),
        MM_HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
        MM_HTTP_MAX_CONNECTIONS: String(TOTAL),
        MM_HTTP_MAX_CONNECTIONS_PER_CLIENT: String(PER_CLIENT),
        // The limits are the public entry's; behind it, distributed, only the service of the routes asked.
      },
      undefined,
      { services: ['accounts'] },
    );
    token = await platform.token();
    const customer = await platform.request('POST', '/v0.13/customers', {
      token,
      body: { type: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
    });
    customerId = customer.body.id;
  }, START_TIMEOUT_MS);
  afterEach(() => {
    for (const drip of drips) clearInterval(drip);
    drips.clear();
    for (const socket of open) socket.destroy();
    open.clear();
  });
  afterAll(() => platform.stop());

  const port = () => Number(new URL(platform.url).port);

  /** A raw connection from localAddress that sends `send`, then one more byte every `dripMs` if given. */
  function raw(localAddress: string, send = '', dripMs?: number): Raw {
    const started = Date.now();
    const socket = connect({ host: '127.0.0.1', port: port(), localAddress });
    open.add(socket);
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('error', () => undefined);
    socket.on('connect', () => {
      if (send) socket.write(send);
      if (dripMs === undefined) return;
      const drip = setInterval(() => socket.writable && socket.write('a'), dripMs);
      drips.add(drip);
      socket.once('close', () => clearInterval(drip));
    });
    const closed = new Promise<{ data: string; afterMs: number }>((resolve) =>
      socket.once('close', () => {
        open.delete(socket);
        resolve({ data, afterMs: Date.now() - started });
      }),
    );
    return { socket, closed };
  }

  /** Resolves when the server closes the connection; fails if it is still open after boundMs. */
  async function closedWithin(connection: Raw, boundMs: number): Promise<{ data: string; afterMs: number }> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the server kept the connection open for over ${boundMs} ms`)),
        boundMs,
      );
    });
    try {
      return await Promise.race([connection.closed, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The status, headers and JSON body of a raw HTTP/1.1 response. */
  function parse(data: string): { status: number; headers: Record<string, string>; body: any } {
    const [head, body] = [data.slice(0, data.indexOf('\r\n\r\n')), data.slice(data.indexOf('\r\n\r\n') + 4)];
    const [statusLine, ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    return { status: Number(statusLine.split(' ')[1]), headers, body: body ? JSON.parse(body) : undefined };
  }

  function expectRefusal(data: string, status: number, error: string, code: number): void {
    const response = parse(data);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers.connection).toBe('close');
    // A request Node could not parse still gets an id (issue 18 item 4), in the header and the body.
    expect(response.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    expect(response.body).toEqual({
      error,
      code,
      msg: expect.any(String),
      cause: expect.any(String),
      status,
      requestId: response.headers['x-request-id'],
    });
  }

  /** Normal requests from 127.0.0.1: each answered 200 within the header timeout. */
  async function normalRequestsSucceed(): Promise<void> {
    for (let i = 0; i < 3; i++) {
      for (const [path, auth] of [
        ['/healthz', null],
        [`/v0.13/customers/${customerId}`, token],
      ] as const) {
        const started = Date.now();
        const res = await platform.request('GET', path, { token: auth });
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(Date.now() - started).toBeLessThan(HEADERS_MS);
      }
    }
  }

  it('closes idle, half-sent-header, slow-header and slow-body connections, and keeps serving others meanwhile', async () => {
    const idle = raw('127.0.0.2');
    const halfHeaders = raw('127.0.0.3', 'GET /healthz HTTP/1.1\r\nHost: x\r\n');
    const slowHeaders = raw('127.0.0.4', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ', 100);
    const slowBody = raw(
      '127.0.0.5',
      `POST /v0.13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: slow-body\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"type":"',
      100,
    );
    const stalledBody = raw(
      '127.0.0.6',
      `POST /v0.13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: stalled-body\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"type":"',
    );
    const abusive = [idle, halfHeaders, slowHeaders, slowBody, stalledBody];
    let firstClosed = Infinity;
    for (const connection of abusive)
      void connection.closed.then(() => (firstClosed = Math.min(firstClosed, Date.now())));

    await normalRequestsSucceed();
    expect(Date.now()).toBeLessThan(firstClosed);

    for (const connection of [idle, halfHeaders, slowHeaders]) {
      const { data } = await closedWithin(connection, HEADERS_MS + CHECK_MS + MARGIN_MS);
      expectRefusal(data, 408, 'RequestTimeout', 1160);
    }
    const slow = await closedWithin(slowBody, REQUEST_MS + CHECK_MS + MARGIN_MS);
    expectRefusal(slow.data, 408, 'RequestTimeout', 1160);
    // Dripping bytes keeps the idle timer from firing: only the request deadline closed it.
    expect(slow.afterMs).toBeGreaterThanOrEqual(IDLE_MS);
    // Silence mid-request: the idle timeout closes it, with no answer (the request is cut short).
    const stalled = await closedWithin(stalledBody, IDLE_MS + MARGIN_MS);
    expect(stalled.data).toBe('');
    expect(stalled.afterMs).toBeGreaterThanOrEqual(IDLE_MS - CHECK_MS);

    await normalRequestsSucceed();
    expect(Number((await platform.running.dataSource.query(`SELECT count(*) AS n FROM accounts.customers`))[0].n)).toBe(
      1,
    );
  });

  it('closes a kept-alive connection left idle after its response', async () => {
    const keptAlive = raw('127.0.0.2', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    const { data, afterMs } = await closedWithin(keptAlive, KEEP_ALIVE_MS + NODE_KEEP_ALIVE_BUFFER_MS + MARGIN_MS);
    expect(parse(data).status).toBe(200);
    expect(afterMs).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
  });

  it('closes connections from one client beyond its cap while another client is served', async () => {
    const held = Array.from({ length: PER_CLIENT }, () => raw('127.0.0.2'));
    await Promise.all(held.map((connection) => new Promise((resolve) => connection.socket.once('connect', resolve))));
    const beyond = raw('127.0.0.2');
    const refused = await closedWithin(beyond, HEADERS_MS);
    expect(refused.data).toBe('');
    await normalRequestsSucceed();

    // The cap counts open connections: once the held ones close, the client is served again.
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
    for (let attempt = 0; ; attempt++) {
      const again = await closedWithin(
        raw('127.0.0.2', 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        HEADERS_MS + MARGIN_MS,
      );
      if (again.data !== '' || attempt === 20) {
        expect(parse(again.data).status).toBe(200);
        break;
      }
    }
  });

  it('closes connections beyond the total cap, whoever opens them', async () => {
    const addresses = Array.from({ length: 10 }, (_, i) => `127.0.1.${i + 1}`);
    const attempts = addresses.flatMap((address) => Array.from({ length: PER_CLIENT }, () => raw(address)));
    let refusedCount = 0;
    for (const attempt of attempts)
      void attempt.closed.then(({ data, afterMs }) => data === '' && afterMs < HEADERS_MS && refusedCount++);
    const deadline = Date.now() + HEADERS_MS;
    while (refusedCount < attempts.length - TOTAL && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(refusedCount).toBeGreaterThanOrEqual(attempts.length - TOTAL);

    for (const attempt of attempts) attempt.socket.destroy();
    await Promise.all(attempts.map((attempt) => attempt.closed));
    // The server counts a connection off when it sees it close, a moment after this side does
    // (another process, when distributed): until then it still closes new ones at the cap.
    await eventually(
      () =>
        fetch(`${platform.url}/healthz`).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      5_000,
    );
    await normalRequestsSucceed();
  });

  it('answers headers over 16 KB with 431 in the API error body', async () => {
    const big = raw('127.0.0.2', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expectRefusal((await closedWithin(big, MARGIN_MS)).data, 431, 'HeadersTooLarge', 1161);
  });

  it('answers conflicting Content-Length and Transfer-Encoding, and bad chunking, with 400 in the API error body', async () => {
    const body = '{"type":"individual","firstName":"Ada","lastName":"Lovelace"}';
    const conflicting = raw(
      '127.0.0.2',
      `POST /v0.13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: smuggle\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    const { data } = await closedWithin(conflicting, MARGIN_MS);
    expectRefusal(data, 400, 'InvalidRequest', 1100);
    expect(parse(data).body.cause).toMatch(/^malformed HTTP request: .*Content-Length/);

    const badChunk = raw(
      '127.0.0.2',
      `POST /v0.13/customers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nIdempotency-Key: bad-chunk\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    );
    expectRefusal((await closedWithin(badChunk, MARGIN_MS)).data, 400, 'InvalidRequest', 1100);
    expect(Number((await platform.running.dataSource.query(`SELECT count(*) AS n FROM accounts.customers`))[0].n)).toBe(
      1,
    );
  });
});
