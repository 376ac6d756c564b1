// One HTTP attempt of a delivery (API-CONTRACT: Webhooks on the wire): a POST of
// the envelope, any 2xx within `timeoutMs` a success. The timeout runs from
// before the connection opens until the response has been read; redirects are
// not followed (a 3xx is a failure like any other). In production every address
// a hostname resolves to must be public, so a DNS answer cannot turn a partner's
// URL into a way into our own network.
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, request } from 'undici';

const NON_PUBLIC = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(address, prefix, 'ipv4');
}
// IPv4-mapped addresses (::ffff:10.0.0.1) are checked against the IPv4 rules by BlockList itself.
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(address, prefix, 'ipv6');
}

/** Whether an IP literal is not a public unicast address. */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export interface SendResult {
  statusCode: number | null;
  error: string | null;
  /** The first bytes of the response body, as text. */
  responseBody: string | null;
  durationMs: number;
}

const RESPONSE_BODY_LIMIT = 1024;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup that refuses any non-public answer. */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => isNonPublicAddress(a.address));
    if (refused) {
      const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to a non-public address`);
      e.code = 'ENONPUBLIC';
      return callback(e, []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

export class WebhookSender {
  private readonly agent: Agent;

  constructor(options: { production: boolean; connectionsPerOrigin?: number }) {
    this.agent = new Agent({
      keepAliveTimeout: 4_000,
      connections: options.connectionsPerOrigin ?? 32,
      connect: options.production ? { lookup: publicOnlyLookup as never } : {},
    });
  }

  async send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
    const started = performance.now();
    const signal = AbortSignal.timeout(timeoutMs);
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(performance.now() - started) });
    try {
      const response = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'money-movement-webhooks/1', ...headers },
        dispatcher: this.agent,
        signal,
      });
      let text = '';
      for await (const chunk of response.body) {
        if (text.length < RESPONSE_BODY_LIMIT) text += (chunk as Buffer).toString('utf8');
      }
      return done({ statusCode: response.statusCode, error: null, responseBody: text ? text.slice(0, RESPONSE_BODY_LIMIT) : null });
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      const reason = signal.aborted ? `timeout after ${timeoutMs} ms` : `${e.code ?? e.cause?.code ?? e.name}: ${e.message}`.slice(0, 300);
      return done({ statusCode: null, error: reason, responseBody: null });
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
