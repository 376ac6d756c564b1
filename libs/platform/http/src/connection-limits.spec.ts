// A graceful stop that ends: a connection answering when the server closes is closed once its answer
// has gone out, not kept open for its keep-alive timeout. A real Fastify server and a real client.
import { request, Agent, type IncomingMessage } from 'node:http';
import { createConnection, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { Logger } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import { closeConnectionsOnceAnswered } from './connection-limits';
import { sendError } from './error-body.filter';

const closedSocket = (socket: Socket) =>
  new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('closeConnectionsOnceAnswered', () => {
  let app: FastifyInstance;
  let body: PassThrough;

  beforeEach(async () => {
    // A keep-alive timeout far beyond the test's own: only the fix lets close() end.
    app = Fastify({ forceCloseConnections: false, keepAliveTimeout: 3_600_000 });
    closeConnectionsOnceAnswered(app);
    app.get('/streaming', (_request, reply) => {
      body = new PassThrough();
      body.write('first part,');
      return reply.type('text/plain').send(body);
    });
    app.get('/quick', () => ({ ok: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterEach(async () => {
    app.server.closeAllConnections();
    await app.close();
  });

  const url = () => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

  /** A kept-alive GET: its response once the headers are in, and the socket it travels on. */
  function get(agent: Agent, path: string): Promise<{ response: IncomingMessage; socket: Socket }> {
    return new Promise((resolve, reject) => {
      const req = request(`${url()}${path}`, { agent }, (response) => resolve({ response, socket: req.socket! }));
      req.on('error', reject);
      req.end();
    });
  }

  const read = (response: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve(text));
      response.on('error', reject);
    });

  it('lets an answer under way finish, then closes its connection, and the server closes', async () => {
    const agent = new Agent({ keepAlive: true });
    const { response, socket } = await get(agent, '/streaming');
    const text = read(response);
    const closing = app.close();
    // The answer is still being written when the server starts closing; it then ends.
    body.end('last part');
    expect(await text).toBe('first part,last part');
    await closedSocket(socket);
    await closing;
    expect(app.server.listening).toBe(false);
    agent.destroy();
  });

  it('closes a connection left idle by an earlier answer at once', async () => {
    const agent = new Agent({ keepAlive: true });
    const { response, socket } = await get(agent, '/quick');
    expect(JSON.parse(await read(response))).toEqual({ ok: true });
    await app.close();
    await closedSocket(socket);
    agent.destroy();
  });
});

// A client still sending its body when the answer comes (a 413 mid-upload) must be able to read that
// answer: the server closes only once the body has arrived, the client has closed, or the linger ends.
describe('an answer given before the body has arrived', () => {
  let app: FastifyInstance;
  const logger = new Logger('test');

  beforeEach(async () => {
    app = Fastify({ bodyLimit: 1024 });
    app.setErrorHandler((error, _request, reply) => sendError(reply, error, logger));
    app.post('/echo', (request) => ({ received: request.body }));
    app.post('/refuse', () => {
      throw new ApiError('InvalidRequest', 'refused after reading the body');
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
  });

  afterEach(async () => {
    app.server.closeAllConnections();
    await app.close();
  });

  /** A raw connection that keeps sending after the server's FIN, as a client mid-upload does. */
  function connect(): Promise<Socket> {
    const { port } = app.server.address() as { port: number };
    return new Promise((resolve, reject) => {
      const socket = createConnection({ port, host: '127.0.0.1', allowHalfOpen: true }, () => resolve(socket));
      socket.once('error', reject);
    });
  }

  /** Everything the server sends until the response's Content-Length is met. */
  function response(socket: Socket): Promise<{ head: string; body: string }> {
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const split = text.indexOf('\r\n\r\n');
        if (split < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(text.slice(0, split))?.[1]);
        if (text.length - split - 4 < length) return;
        socket.off('data', onData);
        resolve({ head: text.slice(0, split), body: text.slice(split + 4, split + 4 + length) });
      };
      socket.on('data', onData);
      socket.once('error', reject);
    });
  }

  /** How the connection ended: the first socket error (a reset, a broken pipe) or none. */
  const ended = (socket: Socket) =>
    new Promise<string | undefined>((resolve) => {
      let error: string | undefined;
      socket.on('error', (e: NodeJS.ErrnoException) => (error ??= e.code ?? e.message));
      socket.resume();
      socket.once('close', () => resolve(error));
    });

  /** The server's end of the next connection. */
  const serverSide = () => new Promise<Socket>((resolve) => app.server.once('connection', resolve));

  const send = (socket: Socket, data: string) =>
    new Promise<void>((resolve, reject) => socket.write(data, (e) => (e ? reject(e) : resolve())));

  const chunk = (size: number) => `${size.toString(16)}\r\n${' '.repeat(size)}\r\n`;

  it('lets a chunked body over the limit finish arriving, so the client reads its 413, then closes', async () => {
    const server = serverSide();
    const socket = await connect();
    socket.write(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        chunk(64 * 1024),
    );
    const answer = await response(socket);
    expect(answer.head).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.head).toMatch(/connection: close/i);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'PayloadTooLarge', code: 1103 });
    const closed = ended(socket);
    // The client goes on sending after it has the answer; the server reads and drops it.
    for (let i = 0; i < 16; i++) await send(socket, chunk(64 * 1024));
    socket.end('0\r\n\r\n');
    expect(await closed).toBeUndefined();
    await closedSocket(await server);
  });

  it('lets a declared Content-Length over the limit arrive as well', async () => {
    const socket = await connect();
    const size = 512 * 1024;
    socket.write(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`);
    expect((await response(socket)).head).toMatch(/^HTTP\/1\.1 413 /);
    const closed = ended(socket);
    for (let sent = 0; sent < size; sent += 64 * 1024) await send(socket, ' '.repeat(64 * 1024));
    socket.end();
    expect(await closed).toBeUndefined();
  });

  it('closes a connection whose body stops coming once the linger is over', async () => {
    const server = serverSide();
    const socket = await connect();
    socket.write(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
        chunk(4096),
    );
    expect((await response(socket)).head).toMatch(/^HTTP\/1\.1 413 /);
    // Neither the rest of the body nor the client's FIN ever comes: the server closes on its own.
    await closedSocket(await server);
    socket.destroy();
  });

  it('keeps a connection whose error came after the whole body', async () => {
    const socket = await connect();
    socket.write(
      'POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}',
    );
    const first = await response(socket);
    expect(first.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(first.head).not.toMatch(/connection: close/i);
    socket.write(
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}',
    );
    const second = await response(socket);
    expect(second.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(JSON.parse(second.body)).toEqual({ received: { a: 1 } });
    socket.destroy();
  });
});
