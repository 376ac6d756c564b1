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
  // Cash-ins (spec: Events, ties 1 and 6): a refreshed code is the cash-in's update; a deposit completes it.
  'cashIn.created': ['cashIn.created'],
  'cashIn.codeRefreshed': ['cashIn.updated'],
  'cashIn.deposited': ['cashIn.completed'],
  'cashIn.expired': ['cashIn.expired'],
  // Transactions: every change of status or sub-status is a statusChanged (the transactions service
  // publishes only the events that change either); a review start also names its direction.
  ...Object.fromEntries(
    (
      [
        'transaction.created',
        'transaction.fundsPulled',
        'transaction.legInitiated',
        'transaction.legSettled',
        'transaction.legFailed',
        'transaction.reviewStarted',
        'transaction.reviewCleared',
        'transaction.completed',
        'transaction.failed',
        'transaction.refundInitiated',
        'transaction.refunded',
        'transaction.payoutUnconfirmed',
        'transaction.payoutRetried',
        'transaction.cashPickupReady',
      ] as const
    ).map((type) => [type, ['transaction.statusChanged']]),
  ),
};

/** The compliance review event of a corridor (spec: Events / Catalog). */
export function underReviewEvent(sourceToDestination: string): string {
  if (sourceToDestination === 'cryptoToCrypto') return 'transaction.cryptoToCrypto.underReview';
  if (sourceToDestination === 'cryptoToFiatAccount' || sourceToDestination === 'cryptoToCash') return 'transaction.cryptoToFiat.underReview';
  return 'transaction.fiatToCrypto.underReview';
}

/** The partner event names of a domain event; none for internal events. */
export function partnerEventsFor(type: string): readonly string[] {
  return PARTNER_EVENTS[type as EventType] ?? [];
}

/**
 * Every partner-visible event of the spec's catalogue (spec: Events / Catalog). Subscriptions name
 * these or `*`; events of resources not built yet are still valid subscriptions.
 */
export const PARTNER_EVENT_CATALOGUE: readonly string[] = [
  'transaction.statusChanged',
  'cashIn.created',
  'cashIn.completed',
  'cashIn.expired',
  'cashIn.updated',
  ...['created', 'provisioned', 'active', 'frozen', 'closed', 'deleted', 'failed', 'statusChanged', 'updated'].map((e) => `virtualAccount.${e}`),
  ...['pending', 'settled', 'failed', 'returned'].map((e) => `virtualAccount.deposit.${e}`),
  ...['initiated', 'pending', 'settled', 'failed'].map((e) => `virtualAccount.cryptoTransfer.${e}`),
  ...['initiated', 'pending', 'settled', 'failed'].map((e) => `virtualAccount.fiatTransfer.${e}`),
  ...['created', 'active', 'frozen', 'closed', 'failed', 'statusChanged', 'updated'].map((e) => `depositAddress.${e}`),
  ...['pending', 'settled', 'failed', 'needs_attribution'].map((e) => `deposit_address.crypto_deposit.${e}`),
  ...['ach_payout', 'wire_payout', 'intl_wire_payout'].flatMap((leg) => ['initiated', 'pending', 'settled', 'failed', 'returned'].map((e) => `deposit_address.${leg}.${e}`)),
  ...['initiated', 'pending', 'settled', 'failed'].map((e) => `deposit_address.crypto_payout.${e}`),
  ...['created', 'verified', 'declined', 'deleted', 'statusChanged', 'updated'].map((e) => `externalAccount.${e}`),
  'counterparty.statusChanged',
  'endorsement.updated',
  'endorsement.active',
  'wallet.provisioned',
  'transaction.fiatToCrypto.underReview',
  'transaction.cryptoToFiat.underReview',
  'transaction.cryptoToCrypto.underReview',
  'webhook.test',
];

/** Compliance review events: partner-visible, but only to endpoints that name them (not `*`). */
export const COMPLIANCE_REVIEW_EVENTS: readonly string[] = ['transaction.fiatToCrypto.underReview', 'transaction.cryptoToFiat.underReview', 'transaction.cryptoToCrypto.underReview'];

/** The five events that carry `eventType`, `eventId` and `previousStatus` instead of `event` (spec: Events / Envelope). */
export const STATUS_CHANGED_EVENTS: readonly string[] = [
  'transaction.statusChanged',
  'virtualAccount.statusChanged',
  'depositAddress.statusChanged',
  'externalAccount.statusChanged',
  'counterparty.statusChanged',
];

/** What a webhook delivery posts (spec: Events / Envelope). A handler reads `event ?? eventType`. */
export interface WebhookEnvelope<Data = Record<string, unknown>> {
  /** whd_: one per event and endpoint, stable across retries; the deduplication key. */
  id: string;
  event?: string;
  eventType?: string;
  /** evt_: shared across the fan-out to all endpoints (statusChanged events only). */
  eventId?: string;
  previousStatus?: string | null;
  /** Per-resource and monotonic: apply an event only when it is newer than the last one seen. */
  sequence?: number;
  createdAt: string;
  occurredAt?: string;
  data: Data;
}

export interface EnvelopeInput {
  deliveryId: string;
  event: string;
  eventId: string;
  sequence?: number;
  previousStatus?: string | null;
  createdAt: string;
  occurredAt?: string;
  data: Record<string, unknown>;
}

/** The envelope of one delivery, in the order its fields are documented. */
export function webhookEnvelope(input: EnvelopeInput): WebhookEnvelope {
  const statusChanged = STATUS_CHANGED_EVENTS.includes(input.event);
  return {
    id: input.deliveryId,
    ...(statusChanged ? { eventType: input.event, eventId: input.eventId, previousStatus: input.previousStatus ?? null } : { event: input.event }),
    ...(input.sequence !== undefined ? { sequence: input.sequence } : {}),
    createdAt: input.createdAt,
    ...(input.occurredAt !== undefined ? { occurredAt: input.occurredAt } : {}),
    data: input.data,
  };
}
