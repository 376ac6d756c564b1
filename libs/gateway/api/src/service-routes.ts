// Distributed mode: the gateway is the only public entry, and forwards every
// partner path it does not serve itself to the service that owns it
// (libs/contracts SERVICE_ROUTES), with @fastify/http-proxy. The request id
// travels as X-Request-Id and the trace context as traceparent (node http, so
// tracing's http instrumentation sees the outgoing call). A service that is down
// or does not answer in time is a 503 ServiceUnavailable with Retry-After, never
// a hang and never a 500.
import { Readable } from 'node:stream';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import httpProxy from '@fastify/http-proxy';
import { ApiError, SERVICE_ROUTES, serviceUrlVariable, type ServiceName } from '@mm/contracts';
import type { OpenAPIObject } from '@nestjs/swagger';
import { BearerAuthenticator, bearerCredential, GATEWAY_CHECKED_HEADER, gatewayCheckOf } from '@mm/platform/auth';
import { internalToken, type PlatformConfig } from '@mm/platform/config';
import {
  API_BASE_PATH,
  deferredBody,
  describeWebhooks,
  REQUEST_ID_HEADER,
  sendError,
  type ApiRequest,
} from '@mm/platform/http';

/** How long an idle connection to a service is kept. */
const UPSTREAM_IDLE_MS = 4_000;

/**
 * A read model rebuild answers when it is done, which on a long log takes far longer than any partner request
 * may: the gateway waits for it up to this long before the 503 (the service goes on rebuilding either way).
 */
const REBUILD_TIMEOUT_MS = 15 * 60_000;
const REBUILD_PREFIX = '/admin/read-models';

/** Where each service listens, from MM_SERVICE_<NAME>_URL; a missing one stops start-up. */
export function serviceUpstreams(
  config: PlatformConfig,
): Array<{ service: ServiceName; upstream: string; prefixes: string[] }> {
  return Object.entries(SERVICE_ROUTES).map(([service, prefixes]) => {
    const variable = serviceUrlVariable(service as ServiceName);
    const upstream = (config as unknown as Record<string, string | undefined>)[variable];
    if (!upstream) throw new Error(`${variable} is not set: the gateway cannot reach the ${service} service`);
    return { service: service as ServiceName, upstream, prefixes };
  });
}

export async function routeToServices(app: NestFastifyApplication, config: PlatformConfig): Promise<void> {
  const logger = new Logger('gateway');
  const bearer = app.get(BearerAuthenticator);
  const internalSecret = internalToken(config);
  const refuse = (reply: unknown, error: unknown) => sendError(reply as Parameters<typeof sendError>[0], error, logger);
  for (const { service, upstream, prefixes } of serviceUpstreams(config)) {
    for (const prefix of prefixes) {
      const path = `/${API_BASE_PATH}${prefix}`;
      await app.register(httpProxy, {
        upstream,
        prefix: path,
        rewritePrefix: path,
        // Bodies are parsed here first, by the same parser every service uses (hostile JSON stops
        // at the door), and forwarded as the JSON they parsed to.
        proxyPayloads: false,
        // An idle connection to a service is closed after 4 s, well inside the service's keep-alive: kept
        // as long as the service allows, it races the service's close on a busy machine, and the request
        // sent on it fails (a spurious 503).
        http: {
          requestOptions: {
            timeout: prefix.startsWith(REBUILD_PREFIX) ? REBUILD_TIMEOUT_MS : config.MM_GATEWAY_UPSTREAM_TIMEOUT_MS,
          },
          agentOptions: { timeout: UPSTREAM_IDLE_MS },
        },
        preHandler: async (request, reply) => {
          // A bearer token is checked here too, where revocations are heard at once; the service checks
          // it again (reached directly, it refuses the same), and decides about requests without one.
          // Operator paths carry the operator token, which the owning service checks.
          if (request.headers.authorization !== undefined && !prefix.startsWith('/admin')) {
            try {
              // Its project goes on the gateway's access line.
              (request as ApiRequest).caller = await bearer.authenticate(request.headers.authorization);
            } catch (error) {
              refuse(reply, error);
              return reply;
            }
          }
          // A body the parsers refused: the owning service decides first who may send anything to this
          // route (partner, operator, or a sandbox-only route in production), then refuses the body in the
          // same words. It gets the bytes as they came, with their own Content-Type and length.
          const refused = deferredBody(request);
          if (refused) {
            request.body = Readable.from([refused.bytes]);
            return;
          }
          // Every partner body is a JSON object; the services refuse anything else in these words too.
          if (
            request.body === undefined ||
            (request.body !== null && typeof request.body === 'object' && !Array.isArray(request.body))
          )
            return;
          refuse(reply, new ApiError('InvalidRequest', 'the body must be a JSON object'));
          return reply;
        },
        replyOptions: {
          rewriteRequestHeaders: (request, headers) => {
            // The id this request has here (the caller's when valid, else the gateway's own): the service takes it as
            // its own, so its log lines, its error bodies and the response's X-Request-Id all carry the same id.
            const forwarded: Record<string, string | string[] | undefined> = {
              ...headers,
              [REQUEST_ID_HEADER]: String(request.id),
            };
            // The token was checked here, against keys whose revocation this process hears at once: the service
            // need not ask about its key again (ADR 0057). Only the gateway makes this header; a caller's own is dropped.
            delete forwarded[GATEWAY_CHECKED_HEADER];
            const token =
              (request as ApiRequest).caller?.kind === 'partner'
                ? bearerCredential(request.headers.authorization)
                : undefined;
            if (token) forwarded[GATEWAY_CHECKED_HEADER] = gatewayCheckOf(internalSecret, token);
            // A parsed body goes out whole, with the Content-Length of its JSON: the client's chunking must not
            // travel with it, or the service refuses a request that has both (a smuggling guard).
            if (forwarded['content-length'] !== undefined) delete forwarded['transfer-encoding'];
            return forwarded;
          },
          onError: (reply, { error }) => {
            logger.warn(`${service} unavailable: ${error.message}`);
            refuse(
              reply,
              new ApiError('ServiceUnavailable', `the ${service} service is unavailable; retry shortly`, {
                'retry-after': '1',
              }),
            );
          },
        },
      });
    }
  }
}

/**
 * The API reference through the gateway is the whole API: its own document with
 * the paths and schemas of every service's /openapi.json merged in. Fetched on
 * request and kept a minute; a service that cannot be reached is left out until
 * it can, or kept as last fetched. Its `webhooks` are those of every resource the merged document has.
 * Nothing decides on it (routes are SERVICE_ROUTES), and a service's document changes only when that
 * service is deployed again: a minute behind a deploy is what it can be (ADR 0025).
 */
export function serviceDocuments(
  config: PlatformConfig,
  now: () => number = Date.now,
): (own: OpenAPIObject) => Promise<OpenAPIObject> {
  const upstreams = serviceUpstreams(config);
  const cache = new Map<string, { document: OpenAPIObject; at: number }>();
  const fetchDocument = async (upstream: string): Promise<OpenAPIObject | undefined> => {
    const cached = cache.get(upstream);
    if (cached && now() - cached.at < 60_000) return cached.document;
    const document = await fetch(`${upstream}/openapi.json`, { signal: AbortSignal.timeout(2000) })
      .then((r) => (r.ok ? (r.json() as Promise<OpenAPIObject>) : undefined))
      .catch(() => undefined);
    if (document) cache.set(upstream, { document, at: now() });
    return document ?? cached?.document;
  };
  return async (own) => {
    const merged: OpenAPIObject = {
      ...own,
      paths: { ...own.paths },
      components: { ...own.components, schemas: { ...own.components?.schemas } },
    };
    for (const { upstream } of upstreams) {
      const document = await fetchDocument(upstream);
      if (!document) continue;
      Object.assign(merged.paths, document.paths);
      Object.assign(merged.components!.schemas!, document.components?.schemas);
    }
    // The events of every resource the merged document now describes.
    return describeWebhooks(merged);
  };
}
