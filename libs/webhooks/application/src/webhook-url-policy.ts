// Where deliveries may go (issue 9; Stripe's rules): http or https, no
// credentials or fragment; in production never a loopback, link-local or
// private address, which would let a partner aim our worker at our own network.
// Hostnames are checked again against what they resolve to when delivering.
import { ApiError } from '@mm/contracts';
import { isNonPublicAddress } from '@mm/webhooks/infrastructure';

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
