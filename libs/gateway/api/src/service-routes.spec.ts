// The services' OpenAPI documents as the gateway merges them (ADR 0025): kept a
// minute, then fetched again; nothing decides on them. Served here by a local
// HTTP server standing for every service.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OpenAPIObject } from '@nestjs/swagger';
import { SERVICE_ROUTES, serviceUrlVariable, type ServiceName } from '@mm/contracts';
import { loadConfig } from '@mm/platform/config';
import { serviceDocuments } from './service-routes';

const OWN: OpenAPIObject = {
  openapi: '3.1.0',
  info: { title: 'gateway', version: '1' },
  paths: { '/own': {} },
  components: { schemas: {} },
};

describe("the gateway's merged API reference", () => {
  let server: Server;
  let base: string;
  /** The path each service's document names, by service; none for one that is down. */
  const documented = new Map<string, string | undefined>();
  let now: number;

  beforeEach(async () => {
    now = 1_000_000;
    for (const service of Object.keys(SERVICE_ROUTES)) documented.set(service, `/${service}-v1`);
    server = createServer((request, response) => {
      const path = documented.get(request.url!.split('/')[1]);
      if (!path) return void response.writeHead(503).end();
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ paths: { [path]: {} }, components: { schemas: {} } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const merged = () =>
    serviceDocuments(
      loadConfig(
        Object.fromEntries(
          Object.keys(SERVICE_ROUTES).map((s) => [serviceUrlVariable(s as ServiceName), `${base}/${s}`]),
        ),
      ),
      () => now,
    );

  it("shows a service's new document within a minute of its deploy", async () => {
    const documents = merged();
    expect(Object.keys((await documents(OWN)).paths)).toContain('/accounts-v1');
    documented.set('accounts', '/accounts-v2');
    now += 59_999;
    expect(Object.keys((await documents(OWN)).paths)).toContain('/accounts-v1');
    now += 1;
    const paths = Object.keys((await documents(OWN)).paths);
    expect(paths).toContain('/accounts-v2');
    expect(paths).not.toContain('/accounts-v1');
    expect(paths).toContain('/own');
  });

  it('keeps the last document of a service that cannot be reached, and leaves out one never fetched', async () => {
    documented.set('quoting', undefined);
    const documents = merged();
    expect(Object.keys((await documents(OWN)).paths)).not.toContain('/quoting-v1');
    documented.set('accounts', undefined);
    now += 60_000;
    expect(Object.keys((await documents(OWN)).paths)).toContain('/accounts-v1');
  });
});
