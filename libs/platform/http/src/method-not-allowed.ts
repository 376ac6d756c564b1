// A path that exists, asked with a method it does not take, is a 405 MethodNotAllowed with an Allow
// header naming the methods it takes (RFC 9110 15.5.6), not a 404: the caller has the path right and
// the method wrong. Fastify answers both with its not-found handler, so the paths and methods are kept
// in a router of their own (find-my-way, the one Fastify matches with, with Fastify's default options),
// filled as routes are registered and read only when a request found no route: nothing per request.
import FindMyWay from 'find-my-way';
import type { FastifyInstance, FastifyRequest } from 'fastify';

type Router = ReturnType<typeof FindMyWay>;

const ROUTES = Symbol('mm.routeMethods');
type Tracked = FastifyInstance & { [ROUTES]?: { router: Router; methods: Set<string> } };

/** Keeps every route's path and methods from now on: call it before any route is registered. */
export function trackRouteMethods(fastify: FastifyInstance): void {
  const tracked = { router: FindMyWay(), methods: new Set<string>() };
  (fastify as Tracked)[ROUTES] = tracked;
  fastify.addHook('onRoute', (route) => {
    // A catch-all (CORS's preflight `OPTIONS *`, a proxy's prefix) has every path: it says nothing of one.
    if (route.url.includes('*')) return;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      try {
        tracked.router.on(method as Parameters<Router['on']>[0], route.url, () => undefined);
        tracked.methods.add(method);
      } catch {
        // The same method and path twice (a plugin's HEAD beside a GET's): already known.
      }
    }
  });
}

/**
 * The methods the request's path takes, sorted, when it takes some but not the request's own;
 * undefined when no route has the path (a 404), or where routes were not tracked.
 */
export function allowedMethods(request: FastifyRequest): string[] | undefined {
  // Tracked on the root instance; a plugin's encapsulated instance has it through its prototype.
  const tracked = (request.server as Tracked)[ROUTES];
  if (!tracked) return undefined;
  const path = request.url.split('?')[0];
  const allowed = [...tracked.methods].filter(
    (method) =>
      method !== request.method && tracked.router.find(method as Parameters<Router['find']>[0], path) !== null,
  );
  return allowed.length > 0 ? allowed.sort() : undefined;
}
