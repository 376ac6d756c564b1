// The gateway's public keys as a service keeps them (ADR 0025): a kid's key
// never changes, so one held is answered from memory; a kid not held fetches
// the keyset again, at once while nothing is held (the gateway had made no key
// yet), else at most once a second. Served here by a local HTTP server.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JwksKeyset } from './jwks-keyset';
import { KeysetUnavailableError } from './token-claims';

const jwk = (kid: string) => ({
  ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
  kid,
  alg: 'ES256',
  use: 'sig',
});

describe('JwksKeyset', () => {
  let server: Server;
  let url: string;
  let served: { status: number; keys: object[] };
  let fetches: number;
  let now: number;

  beforeEach(async () => {
    served = { status: 200, keys: [] };
    fetches = 0;
    now = 1_000_000;
    server = createServer((_request, response) => {
      fetches++;
      response
        .writeHead(served.status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: served.keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('finds the key the gateway made after the service first asked, at once', async () => {
    const keyset = new JwksKeyset(url, () => now);
    expect(await keyset.publicKey('sig_a')).toBeUndefined();
    served.keys = [jwk('sig_a')];
    expect(await keyset.publicKey('sig_a')).toBeDefined();
    expect(fetches).toBe(2);
  });

  it("answers a kid it holds from memory, even while the keyset cannot be fetched: a kid's key never changes", async () => {
    served.keys = [jwk('sig_a')];
    const keyset = new JwksKeyset(url, () => now);
    const key = await keyset.publicKey('sig_a');
    served.status = 503;
    now += 60_000;
    expect(await keyset.publicKey('sig_a')).toBe(key);
    expect(fetches).toBe(1);
  });

  it('fetches again for a kid it does not hold at most once a second, and says when the keyset cannot be read', async () => {
    served.keys = [jwk('sig_a')];
    const keyset = new JwksKeyset(url, () => now);
    await keyset.publicKey('sig_a');
    served.keys = [...served.keys, jwk('sig_b')];
    expect(await keyset.publicKey('sig_b')).toBeUndefined();
    expect(fetches).toBe(1);
    now += 1_000;
    expect(await keyset.publicKey('sig_b')).toBeDefined();
    expect(fetches).toBe(2);
    served.status = 503;
    now += 1_000;
    await expect(keyset.publicKey('sig_c')).rejects.toBeInstanceOf(KeysetUnavailableError);
  });
});
