// A graceful stop that ends: a connection answering when the server closes is closed once its answer
// has gone out, not kept open for its keep-alive timeout. A real Fastify server and a real client.
import { request, Agent, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { closeConnectionsOnceAnswered } from './connection-limits';

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

  const closedSocket = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

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
