// Slow or greedy clients cannot hold the server (ADR 0009): Node's own
// header, request, idle and keep-alive timeouts, a total and a per-client
// connection cap, and the refusals Node's HTTP parser makes (431, 400 for bad
// framing, 408) answered in the API's error body. Everything here runs per
// connection or per refusal, never per request.
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyInstance } from 'fastify';
import { ApiError, type ErrorName } from '@mm/contracts';
import { newRequestId } from './request-id';

/** The configuration variables it reads (PlatformConfig has them). */
export interface ConnectionLimits {
  MM_HTTP_HEADERS_TIMEOUT_MS: number;
  MM_HTTP_REQUEST_TIMEOUT_MS: number;
  MM_HTTP_IDLE_TIMEOUT_MS: number;
  MM_HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
  MM_HTTP_MAX_CONNECTIONS: number;
  MM_HTTP_MAX_CONNECTIONS_PER_CLIENT: number;
}

type ServerOptions = Pick<
  FastifyHttpOptions<Server>,
  'connectionTimeout' | 'keepAliveTimeout' | 'requestTimeout' | 'http' | 'clientErrorHandler'
>;

/** Options for the Fastify adapter: they must be given when the server is created. */
export function connectionOptions(limits: ConnectionLimits): ServerOptions {
  return {
    connectionTimeout: limits.MM_HTTP_IDLE_TIMEOUT_MS,
    keepAliveTimeout: limits.MM_HTTP_KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: limits.MM_HTTP_REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: limits.MM_HTTP_HEADERS_TIMEOUT_MS,
      // Node checks the header and request deadlines on this interval (30 s by default), so a
      // deadline can overrun by up to one interval: a quarter of the header timeout, at most 1 s.
      connectionsCheckingInterval: Math.min(1000, Math.max(25, Math.floor(limits.MM_HTTP_HEADERS_TIMEOUT_MS / 4))),
    },
    clientErrorHandler: refuseInApiBody,
  };
}

/** The total and per-client caps, on the server the adapter created. */
export function capConnections(server: Server, limits: ConnectionLimits): void {
  // Node closes connections beyond this one at accept, before any parser is allocated.
  server.maxConnections = limits.MM_HTTP_MAX_CONNECTIONS;
  const perClient = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress;
    if (client === undefined) return;
    const open = perClient.get(client) ?? 0;
    if (open >= limits.MM_HTTP_MAX_CONNECTIONS_PER_CLIENT) {
      socket.destroy();
      return;
    }
    perClient.set(client, open + 1);
    socket.once('close', () => {
      const left = (perClient.get(client) ?? 1) - 1;
      if (left > 0) perClient.set(client, left);
      else perClient.delete(client);
    });
  });
}

/** How often a closing server looks for connections whose answer has gone out since it last looked. */
const CLOSE_SWEEP_MS = 50;

/**
 * A graceful stop that ends. Node's close() closes the connections idle at that instant and waits for
 * the rest; a connection still answering then stays open after its answer until its keep-alive timeout
 * (65 s by default), longer than an orchestrator waits before killing the process. So, from the close
 * until the server has closed, connections are closed as soon as their answers have gone out. Requests
 * in flight still finish; the cost is a timer while stopping, nothing per request.
 */
export function closeConnectionsOnceAnswered(fastify: FastifyInstance): void {
  fastify.addHook('preClose', (done) => {
    const server = fastify.server;
    const sweep = setInterval(() => server.closeIdleConnections(), CLOSE_SWEEP_MS);
    sweep.unref();
    server.once('close', () => clearInterval(sweep));
    done();
  });
}

/** How long a connection is kept reading after an answer given before its request's body had arrived. */
export const LINGER_MS = 5_000;

/**
 * An answer given before the request's body has all arrived (413 for a body over the limit, a
 * malformed body) ends the connection: Fastify says Connection: close. Node would then close the
 * socket as soon as the answer is written; what the client is still sending reaches a closed socket,
 * its kernel answers with a reset, and a client still writing its body loses the answer it has not
 * read yet (fetch reports "fetch failed", a write EPIPE). So, as web servers' lingering close does:
 * send the answer and the FIN, go on reading and dropping the body until it has arrived or the client
 * closes, at most LINGER_MS, then close. Called per refusal, for answers that close the connection.
 */
export function lingerUntilTheBodyArrives(request: IncomingMessage, lingerMs = LINGER_MS): void {
  const socket = request.socket as Socket | null;
  if (request.complete || !socket || socket.destroyed || Object.hasOwn(socket, 'destroySoon')) return;
  // Node's server calls destroySoon() once an answer that closes the connection has been handed over.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    if (this.writable) this.end();
    const close = () => (this.writableFinished ? this.destroy() : this.once('finish', () => this.destroy()));
    if (request.complete || this.readableEnded) {
      close();
      return;
    }
    const timer = setTimeout(close, lingerMs);
    timer.unref();
    // The body goes on through Node's parser into the request, which Fastify or Node drains.
    request.once('end', close);
    this.once('end', close);
    this.once('close', () => clearTimeout(timer));
  };
}

const REFUSALS: Record<string, ErrorName> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'RequestTimeout',
  HPE_HEADER_OVERFLOW: 'HeadersTooLarge',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'PayloadTooLarge',
};

/**
 * Node's parser and deadline errors arrive here, outside Fastify's request
 * cycle, so the answer is written to the socket by hand; the connection is
 * then closed because its framing can no longer be trusted.
 */
export function refuseInApiBody(error: Error & { code?: string; reason?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already under way on this socket would be corrupted by a second one.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse<IncomingMessage> })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const name = REFUSALS[error.code ?? ''] ?? 'InvalidRequest';
    const refusal = new ApiError(
      name,
      name === 'InvalidRequest' ? `malformed HTTP request: ${error.reason ?? error.code ?? error.message}` : undefined,
    );
    // A request Node could not parse has no id yet, nor a header to take it from: it gets a new one.
    const requestId = newRequestId();
    const body = JSON.stringify({ ...refusal.toBody(), requestId });
    const status = refusal.definition.status;
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
