// A real HTTP server on loopback standing in for the API in the client's unit
// tests: it issues tokens as POST /auth/token does, records every request as
// received, and answers the rest with whatever the test says.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Drop the connection without answering. */
  hangUp?: boolean;
}

export const API_KEY = 'sk_sdbx_unit_key';
export const API_SECRET = 'unit-secret-that-must-never-show';

export class LocalApi {
  readonly received: Received[] = [];
  /** Each token issued, in order. */
  readonly tokens: string[] = [];
  /** The lifetime of the next tokens, in seconds. */
  tokenLifetime = 3600;
  /** Tokens the API refuses with 401 invalid_token. */
  readonly refused = new Set<string>();
  /** Replies for the token endpoint before it issues one. */
  readonly tokenReplies: Reply[] = [];
  private handler: (request: Received, n: number) => Reply = () => ({ status: 200, body: {} });

  private constructor(private readonly server: Server) {}

  static async start(): Promise<LocalApi> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () =>
        api.answer(
          {
            method: req.method ?? '',
            path: req.url ?? '',
            headers: req.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          },
          res,
        ),
      );
    });
    const api = new LocalApi(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v0.13`;
  }

  /** How the API answers every request but the token endpoint's; n counts the requests it answered so far. */
  on(handler: (request: Received, n: number) => Reply): void {
    this.handler = handler;
  }

  /** The requests that reached the API, the token endpoint's left out. */
  get calls(): Received[] {
    return this.received.filter((r) => !r.path.endsWith('/auth/token'));
  }

  get tokenRequests(): Received[] {
    return this.received.filter((r) => r.path.endsWith('/auth/token'));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(request: Received, res: ServerResponse): void {
    this.received.push(request);
    let reply: Reply;
    if (request.path === '/v0.13/auth/token') {
      reply = this.tokenReplies.shift() ?? this.issue(request);
    } else {
      const token = /^Bearer (.+)$/.exec(String(request.headers.authorization ?? ''))?.[1];
      reply =
        token !== undefined && this.refused.has(token)
          ? {
              status: 401,
              body: {
                error: 'invalid_token',
                error_description: 'token expired',
                code: 1000,
                msg: 'unauthorized access',
                cause: 'token expired',
                status: 401,
              },
            }
          : this.handler(request, this.calls.length);
    }
    if (reply.hangUp) {
      res.socket?.destroy();
      return;
    }
    const status = reply.status ?? 200;
    res.writeHead(status, {
      'x-request-id': `req_${this.received.length}`,
      ...(reply.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...reply.headers,
    });
    res.end(
      reply.body === undefined ? undefined : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body),
    );
  }

  private issue(request: Received): Reply {
    const { apiKey, apiSecret } = JSON.parse(request.body) as { apiKey: string; apiSecret: string };
    if (apiKey !== API_KEY || apiSecret !== API_SECRET) {
      return {
        status: 401,
        body: {
          error: 'Unauthorized',
          code: 1000,
          msg: 'unauthorized access',
          cause: 'signature',
          status: 401,
          error_description: 'invalid API key or secret',
        },
      };
    }
    const token = `token-${this.tokens.length + 1}`;
    this.tokens.push(token);
    return {
      status: 200,
      body: {
        accessToken: token,
        tokenType: 'bearer',
        expiresIn: this.tokenLifetime,
        expiresAt: new Date(Date.now() + this.tokenLifetime * 1000).toISOString(),
      },
    };
  }
}

/** An error body of the API. */
export function errorBody(
  status: number,
  error: string,
  code: number,
  cause = 'because',
): { status: number; body: Record<string, unknown> } {
  return { status, body: { error, code, msg: `msg of ${error}`, cause, status, requestId: 'req_body' } };
}
