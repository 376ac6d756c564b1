// OpenTelemetry across processes (issue 6, item 8): a request through the
// gateway is one trace, the service's server span a child of the gateway's call;
// an event one process appends is handled in another under the same trace, over
// Kafka (the run's broker) when there is one. The processes export over
// OTLP/HTTP (JSON) to a receiver of this test's own.
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { cloneTemplateDatabase } from '@mm/platform/testing';
import { ADMIN_TOKEN, BOOTSTRAP_KEY, BOOTSTRAP_SECRET, eventually } from './support/test-platform';
import { START_TIMEOUT_MS, startDistributedProcesses, type PlatformHandle } from './support/distributed-processes';
import { distributedKafka, platformSettings } from './support/settings';

jest.setTimeout(60_000);

interface Span {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: { stringValue?: string } }>;
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const SPAN_KIND_CONSUMER = 5;

describe('tracing across the gateway and a service', () => {
  const spans: Span[] = [];
  let receiver: Server;
  let platform: PlatformHandle | undefined;
  let base: string;

  beforeAll(async () => {
    receiver = createHttpServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const payload = JSON.parse(body) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
            scopeSpans: Array<{ spans: Span[] }>;
          }>;
        };
        for (const resourceSpans of payload.resourceSpans ?? []) {
          const service =
            resourceSpans.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resourceSpans.scopeSpans)
            for (const span of scope.spans) spans.push({ ...span, service });
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    const address = receiver.address();
    const receiverPort = typeof address === 'object' && address ? address.port : 0;
    const databaseUrl = await cloneTemplateDatabase();
    // The gateway and the accounts service only: the two processes these tests trace across.
    platform = await startDistributedProcesses(
      platformSettings(databaseUrl, {
        ...distributedKafka(databaseUrl),
        MM_LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiverPort}/v1/traces`,
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }),
      undefined,
      ['accounts'],
    );
    base = `${platform.url}/v0.13`;
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await platform?.stop();
    await new Promise((done) => receiver.close(done));
  });

  it("makes the service's server span a child of the gateway's call to it, in one trace", async () => {
    const { accessToken } = (await fetch(`${base}/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET }),
    }).then((r) => r.json())) as { accessToken: string };
    const created = await fetch(`${base}/customers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        'idempotency-key': randomUUID(),
      },
      body: JSON.stringify({ type: 'individual', firstName: 'Trace', lastName: 'Me' }),
    });
    expect(created.status).toBe(201);

    const linked = await eventually(async () => {
      const gatewayCalls = spans.filter((s) => s.service === 'money-movement-gateway' && s.kind === SPAN_KIND_CLIENT);
      const served = spans.filter(
        (s) => s.service === 'money-movement-accounts' && s.kind === SPAN_KIND_SERVER && /POST/.test(s.name),
      );
      return served.find((s) => gatewayCalls.some((c) => c.traceId === s.traceId && c.spanId === s.parentSpanId));
    }, 20_000).catch(() => {
      throw new Error(
        `no linked spans among ${spans.length}: ${JSON.stringify(spans.map((s) => [s.service, s.kind, s.name]))}`,
      );
    });
    // The gateway's own server span for the partner's request starts the trace.
    expect(
      spans.some(
        (s) => s.service === 'money-movement-gateway' && s.kind === SPAN_KIND_SERVER && s.traceId === linked.traceId,
      ),
    ).toBe(true);
  });

  it('handles an event in another process under the trace of the request that appended it', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
    const project = (await fetch(`${base}/admin/projects`, {
      method: 'POST',
      headers: { ...admin, 'idempotency-key': randomUUID() },
      body: JSON.stringify({ name: 'traced' }),
    }).then((r) => r.json())) as {
      id: string;
    };
    const created = await fetch(`${base}/admin/projects/${project.id}/api-keys`, {
      method: 'POST',
      headers: { authorization: admin.authorization, 'idempotency-key': randomUUID() },
    });
    expect(created.status).toBe(201);

    // The gateway appends apiKey.created; the accounts process handles it (its API key projection).
    const handled = await eventually(async () => {
      const requests = spans.filter(
        (s) =>
          s.service === 'money-movement-gateway' &&
          s.kind === SPAN_KIND_SERVER &&
          (s.attributes ?? []).some((a) => /\/api-keys$/.test(a.value.stringValue ?? '')),
      );
      return spans.find(
        (s) =>
          s.service === 'money-movement-accounts' &&
          s.kind === SPAN_KIND_CONSUMER &&
          s.name === 'apiKey.created process' &&
          requests.some((r) => r.traceId === s.traceId),
      );
    }, 20_000).catch(() => {
      throw new Error(
        `no consumer span in the request's trace among ${spans.length}: ${JSON.stringify(spans.map((s) => [s.service, s.kind, s.name]))}`,
      );
    });
    const system = handled.attributes?.find((a) => a.key === 'messaging.system')?.value.stringValue;
    expect(system).toBe(process.env.KAFKA_BROKERS ? 'kafka' : 'postgresql');
  });
});
