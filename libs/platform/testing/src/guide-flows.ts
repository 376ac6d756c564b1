// What each partner guide's flow produces, as the e2e tests of that flow see it: the statuses, transaction
// sub-statuses and events a guide must name (tools/docs/guide-names.spec.ts holds each guide's text to its row),
// so that a partner who follows it meets nothing it left out (spec: States and transitions; Events). The guides'
// own run (test-e2e/guides.e2e-spec.ts) checks that every transaction status and sub-status, and every event,
// it observes while running a guide is in that guide's row, so a row cannot fall behind what the guide's
// requests meet; the rows' other names come from the e2e file cited beside them.

export interface GuideFlow {
  statuses: readonly string[];
  /** `'all'`: the guide is the reference of every sub-status the platform produces. */
  subStatuses: readonly string[] | 'all';
  events: readonly string[];
}

const TRANSACTION_STATUSES = ['processing', 'awaitingAction', 'completed', 'failed'];

export const GUIDE_FLOWS: Record<string, GuideFlow> = {
  // test-e2e/client-flows.e2e-spec.ts, transactions.e2e-spec.ts: the external account is verified, the wallet
  // debited (fundsPulled), the payout settles and the transaction completes, each change a statusChanged.
  'pay-out-to-a-bank-account.md': {
    statuses: ['pending', 'active', 'open', 'processing', 'completed', 'settled'],
    subStatuses: ['processing.fundsPulled'],
    events: ['externalAccount.verified', 'transaction.statusChanged'],
  },
  // test-e2e/card-transactions.e2e-spec.ts: a charge settles (fundsPulled) and the USDC arrives; a declined card
  // ends failed.providerDeclined.
  'card-buy-and-sell.md': {
    statuses: ['open', 'processing', 'completed', 'failed', 'settled'],
    subStatuses: ['processing.fundsPulled', 'failed.providerDeclined'],
    events: ['transaction.statusChanged'],
  },
  // test-e2e/cash-ins.e2e-spec.ts and cash-in-transactions.e2e-spec.ts: the cash-in is created, completed by the
  // store's deposit or expired; its transaction takes the cash (fundsPulled) and delivers the USDC.
  'cash-in.md': {
    statuses: ['pending', 'completed', 'processing', 'settled', 'failed'],
    subStatuses: ['processing.fundsPulled'],
    events: ['cashIn.created', 'cashIn.completed', 'cashIn.expired', 'transaction.statusChanged'],
  },
  // test-e2e/cash-pickup.e2e-spec.ts: out of the wallet, ready at the store, then collected, or expired and
  // returned to the wallet.
  'cash-pickup.md': {
    statuses: ['open', 'processing', 'completed'],
    subStatuses: [
      'processing.fundsPulled',
      'processing.cashPickupReady',
      'completed.cashPickupCollected',
      'processing.returningToSender',
      'completed.cashPickupExpired',
    ],
    events: ['transaction.statusChanged'],
  },
  // test-e2e/deposit-address-transactions.e2e-spec.ts: a deposit pays out; one from an unregistered sender waits
  // for its attribution and goes back at the deadline; one whose destination went away waits for a new one; a
  // failed payout is held for review.
  'deposit-address.md': {
    statuses: ['pending', 'active', 'inactiveActionRequired', ...TRANSACTION_STATUSES],
    subStatuses: [
      'awaitingAction.awaitingSenderAttribution',
      'failed.attributionTimeout',
      'awaitingAction.payoutDestinationMissing',
      'processing.underReview',
    ],
    events: [
      'depositAddress.active',
      'transaction.statusChanged',
      'deposit_address.crypto_deposit.pending',
      'deposit_address.crypto_deposit.settled',
      'deposit_address.crypto_deposit.needs_attribution',
      'deposit_address.ach_payout.initiated',
      'deposit_address.ach_payout.pending',
      'deposit_address.ach_payout.settled',
    ],
  },
  // The reference of every state a transaction can be in (the e2e files above, with
  // test-e2e/held-queue.e2e-spec.ts for the holds and refunds its walk-through shows).
  'failures-and-refunds.md': {
    statuses: TRANSACTION_STATUSES,
    subStatuses: 'all',
    events: ['transaction.statusChanged'],
  },
  // test-e2e/sandbox-and-operator.e2e-spec.ts: moving the clock expires a quote and a cash-in's code.
  'sandbox-clock.md': {
    statuses: ['open', 'expired', 'pending'],
    subStatuses: [],
    events: ['cashIn.expired'],
  },
  // test-e2e/webhooks.e2e-spec.ts and webhook-deliveries.e2e-spec.ts: a test delivery, retried until the receiver
  // answers; a wallet's provisioning; the endorsement events an endpoint subscribed to `*` would get.
  'webhooks.md': {
    statuses: ['enabled', 'queued', 'delivered'],
    subStatuses: [],
    events: [
      'webhook.test',
      'wallet.provisioned',
      'transaction.statusChanged',
      'endorsement.updated',
      'endorsement.active',
    ],
  },
};
