// Distributed mode: the gateway is the only public entry, and forwards every
// partner path it does not serve itself to the service that owns it
// (libs/contracts SERVICE_ROUTES), with @fastify/http-proxy. The request id
// travels as X-Request-Id and the trace context as traceparent (node http, so
// tracing's http instrumentation sees the outgoing call). A service that is down
// or does not answer in time is a 503 ServiceUnavailable with Retry-After, never
// a hang and never a 500.
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import httpProxy from '@fastify/http-proxy';
import { ApiError, SERVICE_ROUTES, serviceUrlVariable, type ServiceName } from '@mm/contracts';
import type { PlatformConfig } from '@mm/platform/config';
import { API_BASE_PATH, sendError } from '@mm/platform/http';

/** Where each service listens, from MM_SERVICE_<NAME>_URL; a missing one stops start-up. */
export function serviceUpstreams(config: PlatformConfig): Array<{ service: ServiceName; upstream: string; prefixes: string[] }> {
  return Object.entries(SERVICE_ROUTES).map(([service, prefixes]) => {
    const variable = serviceUrlVariable(service as ServiceName);
    const upstream = (config as unknown as Record<string, string | undefined>)[variable];
    if (!upstream) throw new Error(`${variable} is not set: the gateway cannot reach the ${service} service`);
    return { service: service as ServiceName, upstream, prefixes };
  });
}

export async function routeToServices(app: NestFastifyApplication, config: PlatformConfig): Promise<void> {
  const logger = new Logger('gateway');
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
        http: { requestOptions: { timeout: config.MM_GATEWAY_UPSTREAM_TIMEOUT_MS } },
        replyOptions: {
          rewriteRequestHeaders: (request, headers) => ({ ...headers, 'x-request-id': String(request.id) }),
          onError: (reply, { error }) => {
            logger.warn(`${service} unavailable: ${error.message}`);
            sendError(
              reply as unknown as Parameters<typeof sendError>[0],
              new ApiError('ServiceUnavailable', `the ${service} service is unavailable; retry shortly`, { 'retry-after': '1' }),
              logger,
            );
          },
        },
      });
    }
  }
}
