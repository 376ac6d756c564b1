// Which partner-visible webhook events (spec: Events / Catalog) each domain
// event announces. The log records facts once; the webhooks service fans
// them out under the names partners subscribe to.
import type { EventType } from './events';

export const PARTNER_EVENTS: Partial<Record<EventType, readonly string[]>> = {
  'endorsement.requested': ['endorsement.updated'],
  'endorsement.approved': ['endorsement.updated', 'endorsement.active'],
  'endorsement.rejected': ['endorsement.updated'],
  'wallet.provisioned': ['wallet.provisioned'],
};

/** The partner event names of a domain event; none for internal events. */
export function partnerEventsFor(type: string): readonly string[] {
  return PARTNER_EVENTS[type as EventType] ?? [];
}
