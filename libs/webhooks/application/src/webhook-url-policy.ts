// Where deliveries may go (issues 9 and 17): the rules are the domain's
// (webhook-url.ts); a url they refuse is a 422 InvalidWebhookUrl naming why,
// and one they accept is kept in the normal form that deliveries call.
import { ApiError } from '@mm/contracts';
import { normaliseWebhookUrl } from '@mm/webhooks/domain';

/** The url as it will be called, or a 422 InvalidWebhookUrl naming the problem. */
export function checkWebhookUrl(value: string, production: boolean): string {
  const result = normaliseWebhookUrl(value, { production });
  if ('problem' in result) throw new ApiError('InvalidWebhookUrl', result.problem);
  return result.url;
}
