// What an endpoint subscribes to (spec: Events): names of the catalogue, or `*`
// for every partner-visible event except the compliance review events, which
// must be named. `webhook.test` reaches every endpoint whatever it subscribes to.
// Only events this version sends can be named (ADR 0027): an endpoint subscribed
// to a virtual account event would wait for an event that cannot come, and
// nothing would tell its owner.
import {
  COMPLIANCE_REVIEW_EVENTS,
  PARTNER_EVENT_CATALOGUE,
  PARTNER_EVENT_RESOURCES,
  partnerEventDefinition,
} from '@mm/contracts';

export const ALL_EVENTS = '*';
export const TEST_EVENT = 'webhook.test';

/** Where partners find the names, said in every refusal. */
export const EVENT_NAMES_PAGE =
  'the event catalogue (the Events page of the documentation, and `webhooks` in GET /openapi.json) lists them';

/** The names that are not subscribable in this version. */
export function unknownSubscriptions(subscriptions: readonly string[]): string[] {
  return subscriptions.filter((name) => name !== ALL_EVENTS && !PARTNER_EVENT_CATALOGUE.includes(name));
}

/** Why one name cannot be subscribed to. */
function refusal(name: string): string {
  const shown = JSON.stringify(name.length > 50 ? `${name.slice(0, 50)}…` : name);
  const planned = partnerEventDefinition(name);
  if (planned) {
    const resource = PARTNER_EVENT_RESOURCES[planned.resource];
    if (resource.available)
      return `${shown} is an event of ${resource.title.toLowerCase()} this version does not send yet`;
    return `${shown} is an event of ${resource.title.toLowerCase()}, which this version does not offer yet`;
  }
  return `${shown} is not an event of this version`;
}

/** The events of the resource a misspelt name seems to be about (`transaction.created`, `cashin.created`). */
function familyOf(name: string): string[] {
  const family = name.split('.')[0].toLowerCase();
  return PARTNER_EVENT_CATALOGUE.filter((known) => known.split('.')[0].toLowerCase() === family);
}

/**
 * The cause of an UnknownEventType for these names, or undefined when every one can be subscribed
 * to: each refused name with the reason (at most three), the events of the resource the first one
 * seems to be about, and where every valid name is listed.
 */
export function subscriptionsProblem(subscriptions: readonly string[]): string | undefined {
  const refused = [...new Set(unknownSubscriptions(subscriptions))];
  if (refused.length === 0) return undefined;
  const shown = refused.slice(0, 3).map(refusal);
  const more = refused.length > shown.length ? `; and ${refused.length - shown.length} more` : '';
  const family = refused.map(familyOf).find((names) => names.length > 0);
  const hint = family ? ` The ${family[0].split('.')[0]} events are ${family.join(', ')}.` : '';
  return `subscriptions: ${shown.join('; ')}${more}.${hint} Subscribe to "*" or to names of this version: ${EVENT_NAMES_PAGE}`;
}

/** Whether an endpoint with these subscriptions receives this partner event. */
export function subscribesTo(subscriptions: readonly string[], eventName: string): boolean {
  if (eventName === TEST_EVENT || subscriptions.includes(eventName)) return true;
  return subscriptions.includes(ALL_EVENTS) && !COMPLIANCE_REVIEW_EVENTS.includes(eventName);
}
