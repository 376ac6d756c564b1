// Where deliveries may go (issue 9; Stripe's rules): http or https, no
// credentials or fragment; in production never a loopback, link-local or
// private address, which would let a partner aim our worker at our own network.
// Hostnames are checked again against what they resolve to when delivering.
import { BlockList, isIP } from 'node:net';
import { ApiError } from '@mm/contracts';

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

export const MAX_URL_LENGTH = 2048;

/** The url as it will be called, or a 422 InvalidWebhookUrl naming the problem. */
export function checkWebhookUrl(value: string, production: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ApiError('InvalidWebhookUrl', 'url: must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError('InvalidWebhookUrl', 'url: must use http or https');
  if (url.username || url.password) throw new ApiError('InvalidWebhookUrl', 'url: must not carry credentials; authenticate deliveries with the Webhook-Signature header');
  if (url.hash) throw new ApiError('InvalidWebhookUrl', 'url: must not have a fragment');
  if (production) {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (host === 'localhost' || host.endsWith('.localhost') || isNonPublicAddress(host)) {
      throw new ApiError('InvalidWebhookUrl', 'url: must not point at a loopback, link-local or private address in production');
    }
  }
  return value;
}
