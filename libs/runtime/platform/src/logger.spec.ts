// Issue 18 item 4: a request's id is on every log line written while it is
// handled, whoever writes it, and on one access line; the start-up narration
// of Nest is debugging detail. The HTTP server and the logger as start-up
// wires them, without a database.
import { connect } from 'node:net';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { genRequestId, traceRequests, VALID_REQUEST_ID } from '@mm/platform/http';
import { createRootLogger, PinoNestLogger, prettyLogs } from './logger';

function capture(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createRootLogger(level, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('request ids in the log', () => {
  let app: FastifyInstance;
  let waitingForBody: Promise<void>;
  const { logger, lines } = capture();
  const nest = new PinoNestLogger(logger);

  beforeAll(async () => {
    let bodyAwaited: () => void;
    waitingForBody = new Promise((resolve) => (bodyAwaited = resolve));
    app = Fastify({ genReqId: genRequestId, logController: new LogController({ disableRequestLogging: true }) });
    traceRequests(app, logger);
    app.addHook('preParsing', async (request, _reply, payload) => {
      if (request.method === 'POST') setImmediate(bodyAwaited);
      return payload;
    });
    app.get('/things/:id', async () => {
      nest.warn('handling a thing', 'things');
      await new Promise((resolve) => setImmediate(resolve));
      logger.info('still handling it');
      return { ok: true };
    });
    app.post('/things', async (request) => {
      // After the body was read, which happens in the socket's context, not the request's.
      nest.log(`got ${Object.keys(request.body as object).length} field(s)`, 'things');
      return { ok: true };
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const linesOf = (requestId: string) => lines.filter((line) => line.requestId === requestId);

  it('are on every line written while the request is handled, and on its one access line', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/things/thing_1?token=secret-value',
      headers: { 'x-request-id': 'caller-id-1' },
    });
    expect(res.headers['x-request-id']).toBe('caller-id-1');
    const written = linesOf('caller-id-1');
    expect(written.map((line) => line.msg)).toEqual([
      'handling a thing',
      'still handling it',
      expect.stringMatching(/^GET \/things\/:id 200 /),
    ]);
    expect(written[2]).toEqual(
      expect.objectContaining({ method: 'GET', route: '/things/:id', status: 200, durationMs: expect.any(Number) }),
    );
    expect(JSON.stringify(lines)).not.toContain('secret-value');
  });

  it('are on the lines written after a body was read', async () => {
    // Over a socket, the rest of the body sent once the server waits for it: its bytes then arrive as the
    // socket's events, outside the request's context.
    const url = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
    const body = JSON.stringify({ a: 1, b: 2 });
    const socket = connect(Number(url.port), url.hostname);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(
      `POST /things HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nX-Request-Id: caller-id-2\r\nConnection: close\r\n\r\n${body.slice(0, 3)}`,
    );
    await waitingForBody;
    socket.end(body.slice(3));
    await closed;
    expect(answer).toMatch(/^HTTP\/1.1 200 /);
    expect(linesOf('caller-id-2').map((line) => line.msg)).toEqual([
      'got 2 field(s)',
      expect.stringMatching(/^POST \/things 200 /),
    ]);
  });

  it('are new ones when the caller sent none, or one that is not valid (never echoed)', async () => {
    for (const sent of [undefined, '', 'has space', 'a"quote', 'x'.repeat(129), 'naïve', 'a,b']) {
      const res = await app.inject({
        method: 'GET',
        url: '/things/1',
        headers: sent === undefined ? {} : { 'x-request-id': sent },
      });
      const id = res.headers['x-request-id'] as string;
      expect(id).toMatch(/^req_[0-9a-z]{26}$/);
      expect(linesOf(id)).toHaveLength(3);
    }
  });

  it('say which route answered and with what, without the path of a matched route or any query', async () => {
    await app.inject({
      method: 'GET',
      url: '/nowhere/at/all?apiSecret=hunter2',
      headers: { 'x-request-id': 'caller-id-3' },
    });
    expect(linesOf('caller-id-3')).toEqual([
      expect.objectContaining({ method: 'GET', route: null, path: '/nowhere/at/all', status: 404 }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});

describe('a valid request id', () => {
  it('is 1 to 128 letters, digits or - . _ ~ : + = @ /', () => {
    for (const id of [
      'a',
      'x'.repeat(128),
      '0b9a1f7e-6d3c-4e2a-9f10-7c1b2a3d4e5f',
      'req_01h455vb4pex5vsknk084sn02q',
      'Root=1-5759e988-bd862e3fe1be46a994272793',
      'YWJj+/==',
      'svc:1234@host',
    ]) {
      expect(VALID_REQUEST_ID.test(id)).toBe(true);
    }
    for (const id of ['', 'x'.repeat(129), 'a b', 'a\tb', 'a;b', 'a,b', '<script>', 'é', 'a\nb'])
      expect(VALID_REQUEST_ID.test(id)).toBe(false);
  });
});

describe('start-up lines', () => {
  it("leave Nest's narration of modules and routes to debug, and keep its warnings", () => {
    const { logger, lines } = capture();
    const nest = new PinoNestLogger(logger);
    nest.log('Mapped {/v0.13/customers, POST} route', 'RouterExplorer');
    nest.log('AccountsModule dependencies initialized', 'InstanceLoader');
    nest.log('CustomersController {/v0.13/customers}:', 'RoutesResolver');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.warn('something to know', 'NestApplication');
    nest.log('published 30 cash location(s)', 'cash-locations');
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [40, 'something to know'],
      [30, 'published 30 cash location(s)'],
    ]);
  });

  it('are human-readable on a terminal, JSON lines otherwise, unless MM_LOG_FORMAT says', () => {
    expect(prettyLogs('auto', true)).toBe(true);
    expect(prettyLogs('auto', false)).toBe(false);
    expect(prettyLogs('json', true)).toBe(false);
    expect(prettyLogs('pretty', false)).toBe(true);
  });
});
