// API-CONTRACT: Webhooks on the wire; issue 9 (production URLs never reach a non-public address).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isNonPublicAddress } from '@mm/webhooks/domain';
import { WebhookSender } from './webhook-sender';

describe('webhook sender', () => {
  let server: Server;
  let port: number;
  const sandbox = new WebhookSender({ production: false });
  const production = new WebhookSender({ production: true });

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/slow') return void setTimeout(() => res.end('late'), 1000);
      if (req.url === '/trickle') {
        res.writeHead(200).write('early');
        return void setTimeout(() => res.end('late'), 1000);
      }
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
      res.writeHead(req.url === '/gone' ? 410 : 200).end(req.url === '/big' ? 'x'.repeat(10_000) : 'ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await Promise.all([sandbox.close(), production.close()]);
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('answers the status, the first 1 KiB of the body and the duration', async () => {
    expect(await sandbox.send(`http://127.0.0.1:${port}/ok`, '{}', {}, 1000)).toMatchObject({
      statusCode: 200,
      error: null,
      responseBody: 'ok',
    });
    expect((await sandbox.send(`http://127.0.0.1:${port}/big`, '{}', {}, 1000)).responseBody).toHaveLength(1024);
    expect(await sandbox.send(`http://127.0.0.1:${port}/gone`, '{}', {}, 1000)).toMatchObject({ statusCode: 410 });
  });

  it('does not follow redirects, and times out from connect through response', async () => {
    expect(await sandbox.send(`http://127.0.0.1:${port}/redirect`, '{}', {}, 1000)).toMatchObject({ statusCode: 302 });
    const slow = await sandbox.send(`http://127.0.0.1:${port}/slow`, '{}', {}, 200);
    expect(slow).toMatchObject({ statusCode: null, error: 'timeout after 200 ms' });
    expect(slow.durationMs).toBeLessThan(900);
    // The status came at once, the body too slowly: the timeout covers reading it.
    const trickle = await sandbox.send(`http://127.0.0.1:${port}/trickle`, '{}', {}, 200);
    expect(trickle).toMatchObject({ statusCode: null, error: 'timeout after 200 ms' });
    expect(trickle.durationMs).toBeLessThan(900);
  });

  it('in production, refuses a hostname that resolves to a non-public address', async () => {
    const refused = await production.send(`http://localhost:${port}/ok`, '{}', {}, 1000);
    expect(refused.statusCode).toBeNull();
    expect(refused.error).toMatch(/non-public/);
    expect(await sandbox.send(`http://localhost:${port}/ok`, '{}', {}, 1000)).toMatchObject({ statusCode: 200 });
  });

  it('in production, refuses a url whose host is a non-public address, in any spelling, without connecting', async () => {
    const served = (await sandbox.send(`http://127.0.0.1:${port}/ok`, '{}', {}, 1000)).statusCode;
    expect(served).toBe(200);
    // An IP literal is never looked up, so the resolver's check alone would let these through.
    for (const host of [
      '127.0.0.1',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[64:ff9b::7f00:1]',
      '[2002:7f00:1::1]',
      '[::127.0.0.1]',
      'localhost.',
    ]) {
      const refused = await production.send(`http://${host}:${port}/ok`, '{}', {}, 1000);
      expect([host, refused.statusCode, refused.error]).toEqual([host, null, expect.stringMatching(/non-public/)]);
    }
  });

  it('judges resolved addresses by the domain rules', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:10.0.0.1',
      '100.64.0.1',
      '64:ff9b::a00:1',
      '2002:a00:1::1',
    ])
      expect([a, isNonPublicAddress(a)]).toEqual([a, true]);
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) expect([a, isNonPublicAddress(a)]).toEqual([a, false]);
  });
});
