// Which partner-visible webhook events (spec: Events / Catalog) each domain
// event announces. The log records facts once; the webhooks service fans
// them out under the names partners subscribe to.
import type { EventType } from './events';

export const PARTNER_EVENTS: Partial<Record<EventType, readonly string[]>> = {
  'endorsement.requested': ['endorsement.updated'],
  'endorsement.approved': ['endorsement.updated', 'endorsement.active'],
  'endorsement.rejected': ['endorsement.updated'],
  'wallet.provisioned': ['wallet.provisioned'],
  'externalAccount.created': ['externalAccount.created'],
  'externalAccount.statusChanged': ['externalAccount.statusChanged'],
  'externalAccount.verified': ['externalAccount.verified'],
  'externalAccount.declined': ['externalAccount.declined'],
  'externalAccount.updated': ['externalAccount.updated'],
  'externalAccount.deleted': ['externalAccount.deleted'],
  // A counterparty's status moves to active on creation and to deleted on deletion; the catalogue
  // announces counterparties only by status.
  'counterparty.created': ['counterparty.statusChanged'],
  'counterparty.deleted': ['counterparty.statusChanged'],
};

/** The partner event names of a domain event; none for internal events. */
export function partnerEventsFor(type: string): readonly string[] {
  return PARTNER_EVENTS[type as EventType] ?? [];
}
