// One HTTP attempt of a delivery (API-CONTRACT: Webhooks on the wire): a POST of
// the envelope, any 2xx within `timeoutMs` a success. The timeout runs from
// before the connection opens until the response has been read; redirects are
// not followed (a 3xx is a failure like any other). In production every address
// a hostname resolves to must be public, so a DNS answer cannot turn a partner's
// URL into a way into our own network; the host itself is checked before that,
// since an IP address is never looked up (the rules: webhooks domain, webhook-url.ts).
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { Readable } from 'node:stream';
import { Agent, request } from 'undici';
import { isNonPublicAddress, isNonPublicHost } from '@mm/webhooks/domain';

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

/**
 * The body read to its end (the connection then serves the next delivery), its first `limit` characters kept;
 * by events rather than an async iterator, which costs promises a chunk. Rejects as the body fails (the timeout
 * aborts it).
 */
function firstBytes(body: Readable, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    body.on('data', (chunk: Buffer) => {
      if (text.length < limit) text += chunk.toString('utf8');
    });
    body.once('end', () => resolve(text));
    body.once('error', reject);
  });
}

export class WebhookSender {
  private readonly agent: Agent;
  private readonly production: boolean;

  constructor(options: { production: boolean; connectionsPerOrigin?: number }) {
    this.production = options.production;
    this.agent = new Agent({
      keepAliveTimeout: 4_000,
      connections: options.connectionsPerOrigin ?? 32,
      connect: options.production ? { lookup: publicOnlyLookup as never } : {},
    });
  }

  async send(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<SendResult> {
    const started = performance.now();
    // A timer cleared as soon as the exchange ends: AbortSignal.timeout's stays armed for the whole timeout
    // and is tracked for the garbage collector (about 7 µs a send against well under one).
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), timeoutMs).unref();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({
      ...r,
      durationMs: Math.round(performance.now() - started),
    });
    try {
      // Registration refuses these hosts too; this is for a url stored before a rule was added.
      if (this.production) {
        const host = new URL(url).hostname;
        if (isNonPublicHost(host))
          return done({ statusCode: null, error: `ENONPUBLIC: ${host} is a non-public address`, responseBody: null });
      }
      const response = await request(url, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', 'user-agent': 'money-movement-webhooks/1', ...headers },
        dispatcher: this.agent,
        signal: timeout.signal,
      });
      const text = await firstBytes(response.body, RESPONSE_BODY_LIMIT);
      return done({
        statusCode: response.statusCode,
        error: null,
        responseBody: text ? text.slice(0, RESPONSE_BODY_LIMIT) : null,
      });
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
      const reason = timeout.signal.aborted
        ? `timeout after ${timeoutMs} ms`
        : `${e.code ?? e.cause?.code ?? e.name}: ${e.message}`.slice(0, 300);
      return done({ statusCode: null, error: reason, responseBody: null });
    } finally {
      clearTimeout(timer);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
