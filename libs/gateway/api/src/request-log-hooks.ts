// Where the request log's entries come from (docs/request-logs.md): the process partners reach (the one process,
// or the gateway in distributed mode, where every partner request passes), hooked into its HTTP server before any
// route, so that every partner request is seen, refusals included. A request is a partner's once a partner token
// was accepted for it: requests without one (a token exchange, a token refused) belong to no project and are not
// kept, nor are operators' requests nor the request log's own reads. The response is kept as it went out: a
// proxied one is read whole on its way (a service's JSON answers are small) and sent on as read.
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loggedBody, loggedText, maskLongNumbers, type RequestLogRecorder } from '@mm/gateway/application';
import { API_BASE_PATH, deferredBody, type ApiRequest } from '@mm/platform/http';
import { newId } from '@mm/platform/ids';

const RESPONSE_TEXT = Symbol('the response as the request log keeps it');
type Recorded = ApiRequest & { [RESPONSE_TEXT]?: string };

const PARTNER_PATHS = `/${API_BASE_PATH}/`;
const OWN_PATHS = new RegExp(`^/${API_BASE_PATH.replace('.', '\\.')}/request-logs(/|$)`);
/** The longest path an entry keeps. */
const MAX_PATH = 2048;
const MAX_IDEMPOTENCY_KEY = 255;

/** The project whose request this is, if its log keeps it. */
function projectOf(request: FastifyRequest): string | undefined {
  const caller = (request as ApiRequest).caller;
  if (caller?.kind !== 'partner' || !caller.projectId) return undefined;
  const path = request.url.split('?')[0];
  if (!path.startsWith(PARTNER_PATHS) || OWN_PATHS.test(path)) return undefined;
  return caller.projectId;
}

async function textOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

function requestBodyOf(request: FastifyRequest): unknown {
  const refused = deferredBody(request);
  if (refused) return loggedText(refused.bytes.toString('utf8'));
  if (request.body instanceof Readable) return null;
  const length = Number(request.headers['content-length']);
  return loggedBody(request.body, Number.isFinite(length) && length > 0 ? length : undefined);
}

/** The recorder is looked up per request: the hooks go on before the application that holds it exists. */
export function recordPartnerRequests(fastify: FastifyInstance, recorder: () => RequestLogRecorder | undefined): void {
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (projectOf(request) === undefined) return payload;
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      (request as Recorded)[RESPONSE_TEXT] = payload.toString();
      return payload;
    }
    const json = String(reply.getHeader('content-type') ?? '').includes('json');
    if (!(payload instanceof Readable) || !json || reply.getHeader('content-encoding') !== undefined) return payload;
    const body = await textOf(payload);
    (request as Recorded)[RESPONSE_TEXT] = body.toString('utf8');
    // Sent on whole, with its length (the service may have sent it in chunks).
    reply.removeHeader('transfer-encoding');
    void reply.header('content-length', body.length);
    return body;
  });
  fastify.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    const projectId = projectOf(request);
    const sink = projectId === undefined ? undefined : recorder();
    if (sink && projectId) {
      const key = request.headers['idempotency-key'];
      sink.record({
        id: newId('requestLog'),
        project_id: projectId,
        api_key: (request as ApiRequest).caller?.apiKey ?? null,
        method: request.method,
        path: maskLongNumbers(request.url.split('?')[0].slice(0, MAX_PATH)),
        status: reply.statusCode,
        request_id: String(request.id),
        idempotency_key: typeof key === 'string' ? key.slice(0, MAX_IDEMPOTENCY_KEY) : null,
        duration_ms: Math.round(reply.elapsedTime),
        created_at: new Date(Date.now() - reply.elapsedTime).toISOString(),
        request_body: requestBodyOf(request),
        response_body: loggedText((request as Recorded)[RESPONSE_TEXT] ?? ''),
      });
    }
    done();
  });
}
