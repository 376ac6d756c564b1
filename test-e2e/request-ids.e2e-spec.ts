// Issue 18 item 4, "Request ids and logs": every response carries X-Request-Id
// (the caller's when it sent a valid one, else a new one), every error body
// carries it as requestId, and the log has one access line per request with
// that id, and no stack trace or credential. In distributed mode the gateway
// forwards the id, so the service that answers (and any service it calls)
// logs under the same id.
import { randomUUID } from 'node:crypto';
import { newId } from '@mm/platform/ids';
import {
  BOOTSTRAP_SECRET,
  E2E_MODE,
  eventually,
  START_TIMEOUT_MS,
  TestPlatform,
  type Response,
} from './support/test-platform';

const NEW_ID = /^req_[0-9a-z]{26}$/;

interface LogLine {
  /** The process that wrote it: `platform`, or in distributed mode the service whose output it is. */
  process: string;
  fields: Record<string, any>;
}

/** Every JSON log line of the output, with the process that wrote it. */
function logLines(output: string): LogLine[] {
  const lines: LogLine[] = [];
  for (const raw of output.split('\n')) {
    const match = /^(?:\[([\w-]+)\] )?(\{.*\})$/.exec(raw);
    if (!match) continue;
    try {
      lines.push({ process: match[1] ?? 'platform', fields: JSON.parse(match[2]) });
    } catch {
      // not a log line
    }
  }
  return lines;
}

/** The process the caller talks to: the gateway in distributed mode. */
const FRONT = E2E_MODE === 'distributed' ? 'gateway' : 'platform';

/** The gateway's route for a request: a path under a prefix it forwards is the prefix's wildcard; the rest as they are. */
function gatewayRoute(route: string | null): string | null {
  if (route === null || route === '/v0.13/auth/token') return route;
  return route.replace(/^(\/v0\.13\/[\w-]+)\/.+$/, '$1/*');
}

const isAccessLine = (line: LogLine) =>
  typeof line.fields.method === 'string' && typeof line.fields.status === 'number' && 'route' in line.fields;

describe('request ids', () => {
  let platform: TestPlatform;
  let token: string;

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    token = await platform.token();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  /** The access lines of this request id, once the front process has written its own. */
  const accessLinesOf = (requestId: string) =>
    eventually(async () => {
      const lines = logLines(platform.logs()).filter(
        (line) => line.fields.requestId === requestId && isAccessLine(line),
      );
      return lines.some((line) => line.process === FRONT) ? lines : undefined;
    });

  const expectIdOnError = (res: Response, status: number) => {
    expect(res.status).toBe(status);
    const id = res.headers.get('x-request-id');
    expect(id).toBeTruthy();
    expect(res.body.requestId).toBe(id);
    return id!;
  };

  describe('X-Request-Id', () => {
    it('is on a success, a new id when the caller sent none', async () => {
      for (const [path, options] of [
        ['/healthz', {}],
        ['/v0.13/customers', { token }],
      ] as const) {
        const res = await platform.request('GET', path, options);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-request-id')).toMatch(NEW_ID);
      }
    });

    it('is on a 4xx and in its error body', async () => {
      const invalid = await platform.request('POST', '/v0.13/customers', { token, body: { type: 'individual' } });
      expectIdOnError(invalid, 400);
      expectIdOnError(await platform.request('GET', '/v0.13/customers'), 401);
      expectIdOnError(await platform.request('GET', `/v0.13/customers/${newId('customer')}`, { token }), 404);
      expectIdOnError(await platform.request('POST', '/v0.13/customers', { token, rawBody: '{"type":' }), 400);
    });

    it('is on a 404 for an unknown route, and in its error body', async () => {
      const id = expectIdOnError(await platform.request('GET', '/v0.13/no-such-route'), 404);
      expect(id).toMatch(NEW_ID);
    });

    it("is the caller's own when it is valid, on the response, its error body and every process's access line", async () => {
      const sent = `e2e-${randomUUID()}`;
      const res = await platform.request('GET', `/v0.13/customers/${newId('customer')}`, {
        token,
        headers: { 'x-request-id': sent },
      });
      expect(expectIdOnError(res, 404)).toBe(sent);
      const lines = await accessLinesOf(sent);
      // The gateway forwarded it: the accounts service answered under the same id.
      const processes = E2E_MODE === 'distributed' ? ['accounts', 'gateway'] : ['platform'];
      await eventually(async () => ((await accessLinesOf(sent)).length === processes.length ? true : undefined));
      expect((await accessLinesOf(sent)).map((line) => line.process).sort()).toEqual(processes);
      expect(lines.find((line) => line.process === FRONT)!.fields).toMatchObject({
        method: 'GET',
        status: 404,
        projectId: platform.projectId,
      });
    });

    it('travels on to the services a service calls', async () => {
      const sent = `e2e-${randomUUID()}`;
      const wallet = newId('wallet');
      const res = await platform.request('POST', '/v0.13/quotes', {
        token,
        headers: { 'x-request-id': sent },
        body: {
          customerId: newId('customer'),
          source: { type: 'walletOms', details: { id: wallet }, amount: '10' },
          destination: { type: 'walletOms', details: { id: newId('wallet') } },
        },
      });
      expect(expectIdOnError(res, 404)).toBe(sent);
      if (E2E_MODE !== 'distributed') return;
      // gateway → quoting → the accounts service's port (its lookups side by side), one id throughout. Each
      // process writes its line once it has answered, and each line reaches the test through that process's
      // own output, so they arrive in no set order: wait for a line from each of the three (if one never
      // comes, the comparison below shows which).
      const lines = () =>
        logLines(platform.logs()).filter((line) => line.fields.requestId === sent && isAccessLine(line));
      await eventually(async () => (new Set(lines().map((line) => line.process)).size >= 3 ? true : undefined)).catch(
        () => undefined,
      );
      const routes = [...new Set(lines().map((line) => `${line.process} ${line.fields.route}`))].sort();
      expect(routes).toEqual([
        'accounts /v0.13/internal/accounts/wallet',
        'gateway /v0.13/quotes',
        'quoting /v0.13/quotes',
      ]);
    });

    it('is a new one when the caller sent one that is not valid, which is never echoed nor logged', async () => {
      const marker = randomUUID().slice(0, 8);
      for (const sent of [
        `has space ${marker}`,
        `<script>${marker}</script>`,
        `${marker}${'x'.repeat(129)}`,
        `"${marker}"`,
      ]) {
        const res = await platform.request('GET', '/v0.13/no-such-route', { headers: { 'x-request-id': sent } });
        const id = expectIdOnError(res, 404);
        expect(id).toMatch(NEW_ID);
        expect(res.text).not.toContain(marker);
        await accessLinesOf(id);
      }
      expect(platform.logs()).not.toContain(marker);
    });
  });

  describe('the access log', () => {
    it('has one line per request, with method, route, status, duration, project and id, and no stack trace or credential', async () => {
      const batch = randomUUID();
      const customer = await platform.request('POST', '/v0.13/customers', {
        token,
        body: { type: 'individual', firstName: 'Ada', lastName: 'Lovelace' },
      });
      expect(customer.status).toBe(201);
      const requests: Array<{
        id: string;
        method: string;
        send: (headers: Record<string, string>) => Promise<Response>;
        route: string | null;
        status: number;
        authenticated: boolean;
      }> = [];
      for (let i = 0; i < 100; i++) {
        const id = `${batch}-${i}`;
        const kinds = [
          {
            method: 'GET',
            send: (headers: Record<string, string>) =>
              platform.request('GET', `/v0.13/customers/${customer.body.id}`, { token, headers }),
            route: '/v0.13/customers/:id',
            status: 200,
            authenticated: true,
          },
          {
            method: 'GET',
            send: (headers: Record<string, string>) =>
              platform.request('GET', '/v0.13/customers?limit=0', { token, headers }),
            route: '/v0.13/customers',
            status: 400,
            authenticated: true,
          },
          {
            method: 'GET',
            send: (headers: Record<string, string>) =>
              platform.request('GET', '/v0.13/customers', { token: 'not-a-token', headers }),
            route: '/v0.13/customers',
            status: 401,
            authenticated: false,
          },
          {
            method: 'GET',
            send: (headers: Record<string, string>) =>
              platform.request('GET', `/v0.13/nowhere/${i}?apiSecret=${BOOTSTRAP_SECRET}`, { headers }),
            route: null,
            status: 404,
            authenticated: false,
          },
          {
            method: 'POST',
            send: (headers: Record<string, string>) =>
              platform.request('POST', '/v0.13/auth/token', {
                body: { apiKey: 'sk_sdbx_unknownKey000000000', apiSecret: BOOTSTRAP_SECRET },
                headers,
              }),
            route: '/v0.13/auth/token',
            status: 401,
            authenticated: false,
          },
        ];
        requests.push({ id, ...kinds[i % kinds.length] });
      }
      const mark = platform.logs().length;
      for (const request of requests) {
        const res = await request.send({ 'x-request-id': request.id });
        expect({ id: request.id, status: res.status, header: res.headers.get('x-request-id') }).toEqual({
          id: request.id,
          status: request.status,
          header: request.id,
        });
      }
      const ids = new Set(requests.map((r) => r.id));
      const ours = () => logLines(platform.logs().slice(mark)).filter((line) => ids.has(line.fields.requestId));
      const access = await eventually(async () => {
        const lines = ours().filter((line) => line.process === FRONT && isAccessLine(line));
        return lines.length >= requests.length ? lines : undefined;
      });
      expect(access).toHaveLength(100);
      for (const request of requests) {
        const [line] = access.filter((l) => l.fields.requestId === request.id);
        expect(line.fields).toEqual({
          level: 30,
          time: expect.any(String),
          service: 'money-movement',
          msg: expect.any(String),
          requestId: request.id,
          method: request.method,
          // The route's pattern, never the path with its ids; the path (without its query) only when no route matched.
          route: E2E_MODE === 'distributed' ? gatewayRoute(request.route) : request.route,
          ...(request.route === null ? { path: expect.stringMatching(/^\/v0\.13\/nowhere\/\d+$/) } : {}),
          status: request.status,
          durationMs: expect.any(Number),
          ...(request.authenticated ? { projectId: platform.projectId } : {}),
        });
      }
      // The log of these requests: on a platform of this file's own everything written since; on the shared one
      // (other files' requests meanwhile), the lines carrying these ids.
      const written =
        E2E_MODE === 'distributed'
          ? ours()
              .map((line) => JSON.stringify(line.fields))
              .join('\n')
          : platform.logs().slice(mark);
      // No stack trace.
      expect(written).not.toMatch(/\\n\s+at /);
      expect(written).not.toContain('"stack"');
      // No credential: the bearer token, the secret sent in a body or a query, the Authorization header.
      expect(platform.logs().slice(mark)).not.toContain(token);
      expect(written).not.toContain(BOOTSTRAP_SECRET);
      expect(written).not.toContain('not-a-token');
      expect(written.toLowerCase()).not.toContain('authorization');
    });
  });
});
