// Where deliveries may go (issues 9 and 17; Stripe's rules): an absolute http or
// https URL without credentials or fragment, stored in the normal form that a
// delivery calls (WHATWG URL: scheme and host lower case, IDNA, default port
// dropped, dot segments resolved, IP addresses in their canonical spelling).
//
// URL parsing forgives: it drops tabs and newlines anywhere, trims spaces and
// controls at both ends, reads `\` as `/` and `http:host` as `http://host`. A
// url that parsing would change that way is refused rather than repaired, so
// what a partner sees is what they sent, or a 422 saying why not.
//
// In production the host must be public: never a localhost name, nor an IP
// address that is not public unicast, in any IPv6 spelling that carries an IPv4
// address. Delivery checks the host again, and every address its name resolves to.
import ipaddr from 'ipaddr.js';

/** The longest url kept, in its normal form. */
export const MAX_URL_LENGTH = 2048;

export type WebhookUrlResult = { url: string } | { problem: string };

const CONTROL = /\p{Cc}/u;
// \s: the space, no-break spaces, the Unicode space separators, line and paragraph separators, BOM.
const WHITESPACE = /\s/u;
// Format characters: zero-width spaces and joiners, soft hyphen, bidirectional overrides.
const INVISIBLE = /\p{Cf}/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The url as deliveries will call it, or why it cannot be one. */
export function normaliseWebhookUrl(raw: string, policy: { production: boolean }): WebhookUrlResult {
  const refuse = (problem: string): WebhookUrlResult => ({ problem: `url: ${problem}` });
  for (const [pattern, what] of [
    [CONTROL, 'a control character'],
    [WHITESPACE, 'whitespace'],
    [INVISIBLE, 'an invisible formatting character'],
  ] as const) {
    const found = pattern.exec(raw);
    if (found) return refuse(`must not contain ${what} (${codePoint(found[0])} at position ${found.index})`);
  }
  if (raw.includes('\\')) return refuse('must not contain a backslash');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return refuse('must use http or https');
  // `http:host`, `http:/host` and `http:///host` all parse as http://host.
  if (!/^https?:\/\/[^/]/i.test(raw))
    return refuse('the scheme must be followed by exactly two slashes and the host (https://host/path)');
  if (url.username || url.password)
    return refuse('must not carry credentials; authenticate deliveries with the Webhook-Signature header');
  // An empty fragment (a trailing #) survives in the normal form too.
  if (url.hash || raw.includes('#')) return refuse('must not have a fragment');
  if (url.port === '0') return refuse('port 0 cannot be called');
  if (url.href.length > MAX_URL_LENGTH)
    return refuse(`must be at most ${MAX_URL_LENGTH} characters once normalised (${url.href.length})`);
  if (policy.production && isNonPublicHost(url.hostname)) {
    return refuse('must not point at a loopback, link-local or private address in production');
  }
  return { url: url.href };
}

/**
 * Whether a host, as `URL.hostname` spells it, is refused in production: a
 * localhost name (RFC 6761, with or without the trailing dot of a fully
 * qualified name) or an IP address that is not public.
 */
export function isNonPublicHost(hostname: string): boolean {
  if (hostname.startsWith('[')) return isNonPublicAddress(hostname.slice(1, -1));
  // URL parsing turns any host that ends in a number into a dotted-decimal IPv4 address.
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) return isNonPublicAddress(hostname);
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Whether an IP address is anything but public unicast; what cannot be read as an address counts as not public. */
export function isNonPublicAddress(address: string): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return true;
  }
  return ip.kind() === 'ipv4' ? !isPublicIPv4(ip as ipaddr.IPv4) : !isPublicIPv6(ip as ipaddr.IPv6);
}

/** ipaddr.js's special ranges: private, loopback, link-local, shared (100.64/10), unspecified, broadcast, multicast, reserved. */
function isPublicIPv4(ip: ipaddr.IPv4): boolean {
  return ip.range() === 'unicast';
}

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

function isPublicIPv6(ip: ipaddr.IPv6): boolean {
  const carried = carriedIPv4(ip);
  if (carried === 'refused') return false;
  if (carried) return carried.every(isPublicIPv4);
  return ip.match(GLOBAL_UNICAST) && ip.range() === 'unicast';
}

const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 addresses an IPv6 address carries, which are what a packet to it
 * reaches: IPv4-mapped (::ffff:0:0/96) and IPv4-translated (::ffff:0:0:0/96),
 * IPv4-compatible (::/96, deprecated; :: and ::1 among them), NAT64
 * (64:ff9b::/96) and 6to4 (2002::/16). The local-use NAT64 prefix
 * (64:ff9b:1::/48) and Teredo (2001::/32), whose addresses are a site's own or
 * obfuscated, are refused whole. Undefined for an address that carries none.
 */
function carriedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4[] | 'refused' | undefined {
  const p = ip.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return [ipv4(p[6], p[7])];
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return [ipv4(p[6], p[7])];
  if (zeros(0, 6)) return [ipv4(p[6], p[7])];
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return [ipv4(p[6], p[7])];
  if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 1) return 'refused';
  if (p[0] === 0x2002) return [ipv4(p[1], p[2])];
  if (p[0] === 0x2001 && p[1] === 0) return 'refused';
  return undefined;
}
