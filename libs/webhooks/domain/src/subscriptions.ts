// What an endpoint subscribes to (spec: Events): names of the catalogue, or `*`
// for every partner-visible event except the compliance review events, which
// must be named. `webhook.test` reaches every endpoint whatever it subscribes to.
import { COMPLIANCE_REVIEW_EVENTS, PARTNER_EVENT_CATALOGUE } from '@mm/contracts';

export const ALL_EVENTS = '*';
export const TEST_EVENT = 'webhook.test';

/** The names that are not subscribable, or undefined when all are. */
export function unknownSubscriptions(subscriptions: readonly string[]): string[] {
  return subscriptions.filter((name) => name !== ALL_EVENTS && !PARTNER_EVENT_CATALOGUE.includes(name));
}

/** Whether an endpoint with these subscriptions receives this partner event. */
export function subscribesTo(subscriptions: readonly string[], eventName: string): boolean {
  if (eventName === TEST_EVENT || subscriptions.includes(eventName)) return true;
  return subscriptions.includes(ALL_EVENTS) && !COMPLIANCE_REVIEW_EVENTS.includes(eventName);
}
