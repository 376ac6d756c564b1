// Responses that carry a credential (a token, an API secret, a key) must not
// be kept by any cache on the way (RFC 9111 no-store). The header is added as
// the reply is sent, so every answer of a marked route has it, refusals
// included, whichever layer refused; unmarked routes get no hook at all.
import { RouteConfig } from '@nestjs/platform-fastify';
import type { FastifyInstance, onSendHookHandler } from 'fastify';

const NO_STORE = 'mmNoStore';

/** On a route whose response carries a credential. */
export const NoStore = () => RouteConfig({ [NO_STORE]: true });

const addNoStore: onSendHookHandler = (_request, reply, payload, done) => {
  void reply.header('cache-control', 'no-store');
  done(null, payload);
};

/** Before the routes are registered (configureHttpApp). */
export function applyNoStore(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    if (!(route.config as Record<string, unknown> | undefined)?.[NO_STORE]) return;
    route.onSend = [addNoStore, ...[route.onSend ?? []].flat()];
  });
}
