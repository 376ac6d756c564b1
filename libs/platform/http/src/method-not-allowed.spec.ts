// A path that exists asked with a method it does not take: 405 with Allow; a path that does not exist:
// 404 as before. A real Fastify server with the platform's error handler and Nest's not-found answer.
import { Logger, NotFoundException } from '@nestjs/common';
import Fastify, { type FastifyInstance } from 'fastify';
import { sendError } from './error-body.filter';
import { allowedMethods, trackRouteMethods } from './method-not-allowed';

describe('405 for a method a path does not take', () => {
  let app: FastifyInstance;
  const logger = new Logger('test');

  beforeAll(async () => {
    app = Fastify();
    trackRouteMethods(app);
    app.setNotFoundHandler((request, reply) =>
      sendError(reply, new NotFoundException(`Cannot ${request.method} ${request.url}`), logger),
    );
    app.get('/v1/things', () => []);
    app.post('/v1/things', () => ({}));
    app.get('/v1/things/:id', () => ({}));
    app.patch('/v1/things/:id', () => ({}));
    // A catch-all, as CORS registers for preflights, says nothing of a path.
    app.options('*', (_request, reply) => reply.callNotFound());
    // Routes of an encapsulated plugin count too.
    await app.register(async (child) => {
      child.delete('/v1/things/:id/tags/:tag', () => ({}));
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it('answers 405 MethodNotAllowed with the methods the path takes in Allow', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/v1/things?limit=2' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(res.json()).toMatchObject({
      error: 'MethodNotAllowed',
      code: 1105,
      status: 405,
      cause: '/v1/things takes GET, HEAD, POST, not DELETE',
    });
  });

  it('matches parameterised paths, and routes of an encapsulated plugin', async () => {
    const put = await app.inject({ method: 'PUT', url: '/v1/things/th_1' });
    expect(put.statusCode).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD, PATCH');
    const get = await app.inject({ method: 'GET', url: '/v1/things/th_1/tags/red' });
    expect(get.statusCode).toBe(405);
    expect(get.headers.allow).toBe('DELETE');
  });

  it('answers OPTIONS on a path without an OPTIONS route the same way', async () => {
    const res = await app.inject({ method: 'OPTIONS', url: '/v1/things/th_1' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD, PATCH');
  });

  it('keeps 404 for a path no route has', async () => {
    for (const url of ['/v1/nothing', '/v1/things/th_1/other', '/v1/things/th_1/tags']) {
      const res = await app.inject({ method: 'DELETE', url });
      expect(res.statusCode).toBe(404);
      expect(res.headers.allow).toBeUndefined();
      expect(res.json()).toMatchObject({ error: 'NotFound', code: 1104 });
    }
  });

  it('says nothing where routes were not tracked', async () => {
    const untracked = Fastify();
    untracked.get('/v1/things', () => []);
    untracked.setNotFoundHandler((request, reply) => reply.send({ allowed: allowedMethods(request) ?? null }));
    const res = await untracked.inject({ method: 'DELETE', url: '/v1/things' });
    expect(res.json()).toEqual({ allowed: null });
    await untracked.close();
  });
});
