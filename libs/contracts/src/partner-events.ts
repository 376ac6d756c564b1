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
  // Deposit addresses (spec: Events, tie 3): every change of status is a statusChanged, beside the event
  // that names the new status where the catalogue has one; a PATCH is an update. A lost destination
  // announces itself only when the status moved (the service then names the events itself).
  'depositAddress.created': ['depositAddress.created'],
  'depositAddress.provisioned': ['depositAddress.statusChanged', 'depositAddress.active'],
  'depositAddress.provisioningFailed': ['depositAddress.statusChanged', 'depositAddress.failed'],
  'depositAddress.frozen': ['depositAddress.statusChanged', 'depositAddress.frozen'],
  'depositAddress.unfrozen': ['depositAddress.statusChanged'],
  'depositAddress.closed': ['depositAddress.statusChanged', 'depositAddress.closed'],
  'depositAddress.destinationLost': ['depositAddress.statusChanged'],
  'depositAddress.updated': ['depositAddress.updated'],
  'depositAddress.reactivated': ['depositAddress.statusChanged'],
  // Virtual accounts (spec: Events, tie 3): every change of status is a statusChanged, beside the event
  // that names the new status where the catalogue has one (provisioned also announces its bank details);
  // a PATCH is an update. A delete is announced by status: to deleting, then to deleted (with
  // virtualAccount.deleted), back to the status before, or to failed.
  'virtualAccount.created': ['virtualAccount.created'],
  'virtualAccount.provisioned': ['virtualAccount.provisioned', 'virtualAccount.statusChanged', 'virtualAccount.active'],
  'virtualAccount.provisioningFailed': ['virtualAccount.statusChanged', 'virtualAccount.failed'],
  'virtualAccount.frozen': ['virtualAccount.statusChanged', 'virtualAccount.frozen'],
  'virtualAccount.unfrozen': ['virtualAccount.statusChanged', 'virtualAccount.active'],
  'virtualAccount.closed': ['virtualAccount.statusChanged', 'virtualAccount.closed'],
  'virtualAccount.updated': ['virtualAccount.updated'],
  'virtualAccount.deletionRequested': ['virtualAccount.statusChanged'],
  'virtualAccount.deletionRestored': ['virtualAccount.statusChanged'],
  'virtualAccount.deleted': ['virtualAccount.statusChanged', 'virtualAccount.deleted'],
  'virtualAccount.closeRefused': ['virtualAccount.statusChanged'],
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
        'transaction.refundAccepted',
        'transaction.refundUnconfirmed',
        'transaction.payoutUnconfirmed',
        'transaction.payoutRetried',
        'transaction.cashPickupReady',
        'transaction.held',
        'transaction.holdReleased',
        'transaction.refundRefused',
      ] as const
    ).map((type) => [type, ['transaction.statusChanged']]),
  ),
};

/** The compliance review event of a corridor (spec: Events / Catalog). */
export function underReviewEvent(sourceToDestination: string): string {
  if (sourceToDestination === 'cryptoToCrypto') return 'transaction.cryptoToCrypto.underReview';
  if (sourceToDestination === 'cryptoToFiatAccount' || sourceToDestination === 'cryptoToCash')
    return 'transaction.cryptoToFiat.underReview';
  return 'transaction.fiatToCrypto.underReview';
}

/** The partner event names of a domain event; none for internal events. */
export function partnerEventsFor(type: string): readonly string[] {
  return PARTNER_EVENTS[type as EventType] ?? [];
}

/** A resource partner events carry in `data` (spec: Events / Catalog). */
export interface PartnerEventResource {
  /** Its `data.object`, and what the documentation calls it. */
  object: string;
  title: string;
  /** The OpenAPI component schema of `data`: the resource as its GET answers it. */
  schema: string;
  /** The route that answers the resource as `data` shows it. */
  read: string;
  /** Whether this version offers the resource: only then can its events be subscribed to. */
  available: boolean;
}

export const PARTNER_EVENT_RESOURCES = {
  transaction: {
    object: 'transaction',
    title: 'Transactions',
    schema: 'TransactionResponse',
    read: 'GET /transactions/{transactionId}',
    available: true,
  },
  cashIn: {
    object: 'cashIn',
    title: 'Cash-ins',
    schema: 'CashInResponse',
    read: 'GET /cash-ins/{cashInId}',
    available: true,
  },
  externalAccount: {
    object: 'externalAccount',
    title: 'External accounts',
    schema: 'ExternalAccountResponse',
    read: 'GET /external-accounts/{externalAccountId}',
    available: true,
  },
  counterparty: {
    object: 'counterparty',
    title: 'Counterparties',
    schema: 'CounterpartyResponse',
    read: 'GET /counterparties/{counterpartyId}',
    available: true,
  },
  customer: {
    object: 'customer',
    title: 'Endorsements (the customer)',
    schema: 'CustomerResponse',
    read: 'GET /customers/{customerId}',
    available: true,
  },
  wallet: {
    object: 'wallet',
    title: 'Wallets',
    schema: 'WalletResponse',
    read: 'GET /wallets/{walletId}',
    available: true,
  },
  webhookEndpoint: {
    object: 'webhookEndpoint',
    title: 'Test',
    schema: 'WebhookResponse',
    read: 'GET /webhooks/{webhookId}',
    available: true,
  },
  depositAddress: {
    object: 'depositAddress',
    title: 'Deposit addresses',
    schema: 'DepositAddressResponse',
    read: 'GET /deposit-addresses/{depositAddressId}',
    available: true,
  },
  virtualAccount: {
    object: 'virtualAccount',
    title: 'Virtual accounts',
    schema: 'VirtualAccountResponse',
    read: 'GET /virtual-accounts/{virtualAccountId}',
    available: true,
  },
} as const satisfies Record<string, PartnerEventResource>;

export type PartnerEventResourceName = keyof typeof PARTNER_EVENT_RESOURCES;

/** One event of the catalogue: its name, the resource in its `data`, and when it fires. */
export interface PartnerEventDefinition {
  name: string;
  resource: PartnerEventResourceName;
  /** When it fires, in words, for partners. */
  when: string;
  /** Excluded from `*`: delivered only to endpoints that name it (the compliance review events). */
  namedOnly?: boolean;
  /** The envelope's `changedFields` names which of these changed; every `*.updated` event lists them. */
  changedFields?: readonly string[];
  /** The sandbox never produces it (it simulates no such failure); partners may still subscribe to it. */
  notInSandbox?: boolean;
  /** Not sent by this version although its resource is offered: not in the catalogue, not subscribable. */
  planned?: boolean;
}

const UNDER_REVIEW_WHEN = (corridors: string) =>
  `a transaction ${corridors} is held for compliance review: it stays \`processing\` with subStatus \`processing.underReview\`, announced by a \`transaction.statusChanged\` with the same \`sequence\`. Not covered by \`*\`: only endpoints that name this event receive it`;

const DEPOSIT_ADDRESS_STATUS_CHANGED_WHEN =
  "the address's `status` changed; `previousStatus` is the status before. From `pending` to `active` when the custodian provisioned it (or to `failed` when it could not); from `active` to `inactiveActionRequired` when its destination bank account was deleted or turned `invalid`, and back to `active` when a PATCH points it at an active bank account; to `frozen` when the custodian locks it and back when it unlocks it; to `closed` when the custodian closes it";

/** The payout families of a deposit address's bank payouts, by the rail of the payout (docs/events.md). */
export const DEPOSIT_ADDRESS_PAYOUT_FAMILIES: Record<string, string> = {
  ach: 'deposit_address.ach_payout',
  achSameDay: 'deposit_address.ach_payout',
  local: 'deposit_address.ach_payout',
  wire: 'deposit_address.wire_payout',
  swift: 'deposit_address.intl_wire_payout',
};

const LEG_DATA =
  "Its `data` is the deposit's transaction (precursor `depositAddress`) as it is after this step, with its `sequence`";

const VA_LEG_DATA =
  "Its `data` is the deposit's transaction (precursor `virtualAccount`, `sourceToDestination` `fiatAccountToCrypto`) as it is after this step, with its `sequence`";

/**
 * The legs of a virtual account deposit's transaction (spec: Events / Catalog, virtual account legs; ties 4
 * and 5): each is announced with the transaction as `data`, in the same database transaction as its leg write,
 * before the `transaction.statusChanged` the same write causes.
 */
const VIRTUAL_ACCOUNT_LEG_DEFINITIONS: PartnerEventDefinition[] = [
  {
    name: 'virtualAccount.deposit.pending',
    resource: 'transaction',
    when: `an inbound bank transfer reached a virtual account and its transaction was created: the bank deposit leg is \`pending\` until the bank settles it. ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.deposit.settled',
    resource: 'transaction',
    when: `the bank settled the inbound transfer: the dollars are held for the delivery (the deposit leg is \`settled\`). ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.deposit.failed',
    resource: 'transaction',
    when: `the bank refused the inbound transfer before crediting it: nothing arrived and the transaction is \`failed\` (\`failed.providerDeclined\`). ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.deposit.returned',
    resource: 'transaction',
    when: `the bank sent the inbound transfer back to the sender: the account was frozen, closed or deleted (\`failed.returnedToSender\`), or the transfer was returned after it arrived (\`failed.inboundFailed\`). Nothing was credited. ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.cryptoTransfer.initiated',
    resource: 'transaction',
    when: `the USDC for a deposit is sent to the account's wallet destination, or an operator sends it again (a new payout leg). ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.cryptoTransfer.pending',
    resource: 'transaction',
    when: `the USDC transfer is in flight on chain; sent with \`.initiated\`, same \`sequence\`. ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.cryptoTransfer.settled',
    resource: 'transaction',
    when: `the USDC reached the destination wallet: the transaction is \`completed\`. ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.cryptoTransfer.failed',
    resource: 'transaction',
    when: `the USDC transfer was refused, reverted, or never confirmed by the provider: the money is held for an operator (\`processing.underReview\`), who retries, refunds or marks it failed. Refused because the destination external wallet was invalidated or deleted (\`failure.code\` \`externalAccountInvalid\` or \`externalAccountDeleted\`): the deposit waits for a new destination instead (\`awaitingAction.payoutDestinationMissing\`). ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.fiatTransfer.initiated',
    resource: 'transaction',
    when: `a bank transfer leaves for the account's bank destination (a payout, or an operator's retry), or a refund of the deposit is initiated to the return destination or the sender; \`error.refund.amount\` is the refund's amount, partial or zero when the operator gave one. ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.fiatTransfer.pending',
    resource: 'transaction',
    when: `the bank has the transfer in flight: sent with \`.initiated\` for a payout; for a refund, once the bank accepted it (a refund the bank reported only as initiated never sends this). ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.fiatTransfer.settled',
    resource: 'transaction',
    when: `the bank transfer arrived: a payout completes the transaction; a refund ends it \`failed.returnedToSender\` (also when an operator completes a refund with complete-refund). ${VA_LEG_DATA}`,
  },
  {
    name: 'virtualAccount.fiatTransfer.failed',
    resource: 'transaction',
    when: `the bank payout was refused, returned, or never confirmed: the money is held for an operator (\`processing.underReview\`); refused because the destination bank account was invalidated or deleted, the deposit waits for a new destination instead (\`awaitingAction.payoutDestinationMissing\`). Also a refund that could not start because its return destination was invalidated or deleted: nothing was sent, the money is held for an operator (\`processing.underReview\`). ${VA_LEG_DATA}`,
  },
];

/**
 * The legs of a deposit address deposit's transaction (spec: Events / Catalog, deposit address legs; tie 5):
 * each is announced with the transaction as `data`, in the same database transaction as its leg write.
 */
const DEPOSIT_ADDRESS_LEG_DEFINITIONS: PartnerEventDefinition[] = [
  {
    name: 'deposit_address.crypto_deposit.pending',
    resource: 'transaction',
    when: `an on-chain deposit reached a deposit address and its transaction was created (the crypto deposit leg is recorded). ${LEG_DATA}`,
  },
  {
    name: 'deposit_address.crypto_deposit.settled',
    resource: 'transaction',
    when: `the on-chain deposit is final: the crypto is held for the payout (the deposit leg is \`settled\`). ${LEG_DATA}`,
  },
  {
    name: 'deposit_address.crypto_deposit.failed',
    resource: 'transaction',
    notInSandbox: true,
    when: 'an on-chain deposit failed after it was seen (reverted on chain). The sandbox does not simulate this: its deposits are final when recorded',
  },
  {
    name: 'deposit_address.crypto_deposit.needs_attribution',
    resource: 'transaction',
    when: `the deposit's sender is not registered for the customer on an address that requires it: the transaction is \`awaitingAction\` (\`awaitingAction.awaitingSenderAttribution\`) with \`hold.match\` naming the wallet to register before \`hold.deadline\`. ${LEG_DATA}`,
  },
  ...['ach_payout', 'wire_payout', 'intl_wire_payout'].flatMap((family): PartnerEventDefinition[] => {
    const rails = Object.entries(DEPOSIT_ADDRESS_PAYOUT_FAMILIES)
      .filter(([, f]) => f === `deposit_address.${family}`)
      .map(([rail]) => `\`${rail}\``)
      .join(', ');
    const payout = `the bank payout of a deposit (payout rail ${rails})`;
    return [
      {
        name: `deposit_address.${family}.initiated`,
        resource: 'transaction',
        when: `${payout} is initiated, or an operator sends it again (a new payout leg). ${LEG_DATA}`,
      },
      {
        name: `deposit_address.${family}.pending`,
        resource: 'transaction',
        when: `${payout} was handed to the bank and is in flight; sent with \`.initiated\`, same \`sequence\`. ${LEG_DATA}`,
      },
      {
        name: `deposit_address.${family}.settled`,
        resource: 'transaction',
        when: `${payout} settled: the money reached the bank account and the transaction is \`completed\`. ${LEG_DATA}`,
      },
      {
        name: `deposit_address.${family}.failed`,
        resource: 'transaction',
        when: `${payout} was refused before anything was sent: by the provider, when the money stays held, \`processing.underReview\`, for an operator's retry or refund; or because the destination account was invalidated or deleted, when the deposit waits for a new destination (\`awaitingAction.payoutDestinationMissing\`). ${LEG_DATA}`,
      },
      {
        name: `deposit_address.${family}.returned`,
        resource: 'transaction',
        when: `${payout} was sent and came back (returned by the receiving bank, or the provider had no record of it): the money stays held, \`processing.underReview\`, for an operator's retry or refund. ${LEG_DATA}`,
      },
    ];
  }),
  {
    name: 'deposit_address.crypto_payout.initiated',
    resource: 'transaction',
    when: `the deposit's crypto is being returned on chain (to the address's \`returnDestination\`, else the sender): the address was frozen or closed, the sender was never attributed, a review rejected it, or an operator refunded it. ${LEG_DATA}`,
  },
  {
    name: 'deposit_address.crypto_payout.pending',
    resource: 'transaction',
    when: `the return is in flight on chain; sent with \`.initiated\`, same \`sequence\`. ${LEG_DATA}`,
  },
  {
    name: 'deposit_address.crypto_payout.settled',
    resource: 'transaction',
    when: `the return reached the sending wallet: the transaction is \`failed\` (\`failed.returnedToSender\`, or \`failed.attributionTimeout\`). ${LEG_DATA}`,
  },
  {
    name: 'deposit_address.crypto_payout.failed',
    resource: 'transaction',
    when: `a return could not start because the address's return wallet was invalidated or deleted: nothing was sent, and the crypto is held for an operator (\`processing.underReview\`), who sends it back to the sender. (A return failing on chain after it was sent is not simulated by the sandbox.) ${LEG_DATA}`,
  },
];

const VIRTUAL_ACCOUNT_STATUS_CHANGED_WHEN =
  "the account's `status` changed; `previousStatus` is the status before. From `pending` to `active` when the bank provisioned it (or to `failed` when it could not); " +
  'to `frozen` when the bank freezes it and back to `active` when it unfreezes it; to `closed` when the bank closes it; to `deleting` when a DELETE is accepted, then to `deleted` ' +
  'when the bank closed the account, to `failed` when the bank refused to close it, or back to the status it had when the bank could not close it then (the DELETE answered 503)';

/** The lifecycle of a virtual account (spec: Events / Catalog, virtual account lifecycle; tie 3): `data` is the account. */
const VIRTUAL_ACCOUNT_LIFECYCLE_DEFINITIONS: PartnerEventDefinition[] = [
  {
    name: 'virtualAccount.created',
    resource: 'virtualAccount',
    when: 'a virtual account is created (`POST /virtual-accounts`): it is `pending` and `bankDetails` is null until the bank provisions it',
  },
  {
    name: 'virtualAccount.provisioned',
    resource: 'virtualAccount',
    when: 'the bank opened the account: `bankDetails` holds its bank name, holder name, account and routing numbers and `bic` (followed by its `virtualAccount.statusChanged` and `virtualAccount.active`, with the same `sequence`)',
  },
  {
    name: 'virtualAccount.active',
    resource: 'virtualAccount',
    when: 'the account is `active` and takes deposits: once provisioned, and again when the bank unfreezes it (right after its `virtualAccount.statusChanged`, with the same `sequence`)',
  },
  {
    name: 'virtualAccount.frozen',
    resource: 'virtualAccount',
    when: 'the bank froze the account: it is `frozen` and deposits are suspended: a transfer to it goes back to the sender (right after its `virtualAccount.statusChanged`)',
  },
  {
    name: 'virtualAccount.closed',
    resource: 'virtualAccount',
    when: 'the bank closed the account: it is `closed`, and a transfer to it goes back to the sender (right after its `virtualAccount.statusChanged`)',
  },
  {
    name: 'virtualAccount.deleted',
    resource: 'virtualAccount',
    when: 'a delete is finalised: the bank closed the account and it is `deleted`; a transfer to it goes back to the sender (right after its `virtualAccount.statusChanged` from `deleting`)',
  },
  {
    name: 'virtualAccount.failed',
    resource: 'virtualAccount',
    when: 'the bank could not provision the account: it is `failed`, `bankDetails` is null and it never takes deposits (right after its `virtualAccount.statusChanged`)',
  },
  { name: 'virtualAccount.statusChanged', resource: 'virtualAccount', when: VIRTUAL_ACCOUNT_STATUS_CHANGED_WHEN },
  {
    name: 'virtualAccount.updated',
    resource: 'virtualAccount',
    changedFields: ['destination', 'returnDestination', 'returnPayout', 'label', 'metadata'],
    when: 'a PATCH changed the account (`PATCH /virtual-accounts/{virtualAccountId}`); `changedFields` names which of its destination, return destination, return payout, label and metadata changed (a PATCH that changes nothing sends nothing)',
  },
];

/**
 * Every partner-visible event of the spec's catalogue (spec: Events / Catalog), in its order, with
 * when it fires here. docs/events.md and the OpenAPI document's `webhooks` are generated from it.
 */
export const PARTNER_EVENT_DEFINITIONS: readonly PartnerEventDefinition[] = [
  {
    name: 'transaction.statusChanged',
    resource: 'transaction',
    when:
      'a transaction is created (`previousStatus` null) and whenever its `status` or `subStatus` changes afterwards, in any corridor or rail, refunds and cash pickups included; `previousStatus` is the status before (equal to `data.status` when only the subStatus moved). ' +
      '`data` is the transaction with everything done at that step: the first one shows a new transaction as the response to `POST /transactions` does, its first leg included',
  },
  {
    name: 'cashIn.created',
    resource: 'cashIn',
    when: 'a cash-in is created (`POST /cash-ins`) with its deposit code: it is `pending`, the code in `depositInstructions`',
  },
  {
    name: 'cashIn.completed',
    resource: 'cashIn',
    when: "the cash was deposited and converted: the cash-in is `completed` and `transactionId` names the transaction it created, which already answers `GET /transactions/{transactionId}`. Emitted before that transaction's first `transaction.statusChanged`",
  },
  {
    name: 'cashIn.expired',
    resource: 'cashIn',
    when: 'the deposit code lapsed (an hour after issue or refresh) with no deposit: the cash-in is `expired`',
  },
  {
    name: 'cashIn.updated',
    resource: 'cashIn',
    changedFields: ['depositInstructions'],
    when: 'the deposit code is refreshed (`POST /cash-ins/{cashInId}/refresh`): new `depositInstructions`, valid an hour; the previous code is void; `changedFields` is `["depositInstructions"]`',
  },
  ...VIRTUAL_ACCOUNT_LIFECYCLE_DEFINITIONS,
  ...VIRTUAL_ACCOUNT_LEG_DEFINITIONS,
  {
    name: 'depositAddress.created',
    resource: 'depositAddress',
    when: 'a deposit address is created (`POST /deposit-addresses`): it is `pending` and `depositInstructions` is null until the custodian provisions it',
  },
  {
    name: 'depositAddress.active',
    resource: 'depositAddress',
    when: 'the custodian provisioned the address: it is `active` and `depositInstructions` holds the on-chain address to send to (right after its `depositAddress.statusChanged`, with the same `sequence`)',
  },
  {
    name: 'depositAddress.frozen',
    resource: 'depositAddress',
    when: 'the custodian locked the address: it is `frozen`, and what is sent to it goes back to the sender (right after its `depositAddress.statusChanged`)',
  },
  {
    name: 'depositAddress.closed',
    resource: 'depositAddress',
    when: 'the custodian closed the address for good: it is `closed`, and what is sent to it goes back to the sender (right after its `depositAddress.statusChanged`)',
  },
  {
    name: 'depositAddress.failed',
    resource: 'depositAddress',
    when: 'the custodian could not provision the address: it is `failed`, has no `depositInstructions` and never takes deposits (right after its `depositAddress.statusChanged`)',
  },
  { name: 'depositAddress.statusChanged', resource: 'depositAddress', when: DEPOSIT_ADDRESS_STATUS_CHANGED_WHEN },
  {
    name: 'depositAddress.updated',
    resource: 'depositAddress',
    changedFields: ['destination', 'payout', 'returnDestination', 'label', 'metadata'],
    when: 'a PATCH changed the address (`PATCH /deposit-addresses/{depositAddressId}`); `changedFields` names which of its destination, payout, return destination, label and metadata changed (a PATCH that changes nothing sends nothing)',
  },
  ...DEPOSIT_ADDRESS_LEG_DEFINITIONS,
  {
    name: 'externalAccount.created',
    resource: 'externalAccount',
    when: 'an account is registered (`POST /external-accounts`, `POST /external-accounts/cards`): it is `pending` while it is validated',
  },
  {
    name: 'externalAccount.verified',
    resource: 'externalAccount',
    when: 'validation succeeded: the account is `active` and usable on quotes (right after its `externalAccount.statusChanged` to `active`)',
  },
  {
    name: 'externalAccount.declined',
    resource: 'externalAccount',
    when: 'validation failed: the account is `failed`, the reason in `failure` (right after its `externalAccount.statusChanged` to `failed`, and followed by an `externalAccount.updated`)',
  },
  {
    name: 'externalAccount.deleted',
    resource: 'externalAccount',
    when: 'the account is deleted (`DELETE /external-accounts/{externalAccountId}`): `data` is the account as it was then; it answers 404 from then on',
  },
  {
    name: 'externalAccount.statusChanged',
    resource: 'externalAccount',
    when: "the account's `status` changed: from `pending` to `active` or `failed` when validation ends, or to `invalid` when the bank or network reports it unusable or when a card's expiry month ends on the project's clock (`failure.code` `card_expired`); `previousStatus` is the status before",
  },
  {
    name: 'externalAccount.updated',
    resource: 'externalAccount',
    changedFields: ['label', 'metadata', 'failure'],
    when: 'its `label` or `metadata` changed (`PATCH /external-accounts/{externalAccountId}`), or its `failure` did (a failed validation, an invalidation for a new reason, a card that expired); `changedFields` names which',
  },
  {
    name: 'counterparty.statusChanged',
    resource: 'counterparty',
    when: 'a counterparty is created (`POST /counterparties`: `previousStatus` null, `data.status` `active`) or deleted (`DELETE /counterparties/{counterpartyId}`: `previousStatus` `active`, `data.status` `deleted`; it answers 404 from then on)',
  },
  {
    name: 'endorsement.updated',
    resource: 'customer',
    changedFields: ['endorsements'],
    when: 'an endorsement of the customer is requested (at `POST /customers` or `POST /customers/{customerId}/endorsements`), approved or rejected: `data` is the customer, every endorsement with its status; `changedFields` is `["endorsements"]`',
  },
  {
    name: 'endorsement.active',
    resource: 'customer',
    when: "an endorsement is approved and becomes `active` (right after that approval's `endorsement.updated`, with the same `sequence`)",
  },
  {
    name: 'wallet.provisioned',
    resource: 'wallet',
    when: 'a custodial wallet is created (`POST /customers/{customerId}/wallets`), with its on-chain `address`',
  },
  {
    name: 'transaction.fiatToCrypto.underReview',
    resource: 'transaction',
    namedOnly: true,
    when: UNDER_REVIEW_WHEN('into crypto (`cashToCrypto`, `fiatAccountToCrypto`: card buys)'),
  },
  {
    name: 'transaction.cryptoToFiat.underReview',
    resource: 'transaction',
    namedOnly: true,
    when: UNDER_REVIEW_WHEN('out of crypto into fiat (`cryptoToFiatAccount`, `cryptoToCash`)'),
  },
  {
    name: 'transaction.cryptoToCrypto.underReview',
    resource: 'transaction',
    namedOnly: true,
    when: UNDER_REVIEW_WHEN('between crypto wallets (`cryptoToCrypto`)'),
  },
  {
    name: 'webhook.test',
    resource: 'webhookEndpoint',
    when: 'a test is asked for (`POST /webhooks/{webhookId}/test`): sent to that endpoint only, whatever it subscribes to; `data` is the endpoint as `GET /webhooks/{webhookId}` shows it, and there is no `sequence`',
  },
];

/** The events of this version: subscriptions name these or `*` (events of resources not offered yet are refused). */
export const PARTNER_EVENT_CATALOGUE: readonly string[] = PARTNER_EVENT_DEFINITIONS.filter((e) => isOffered(e)).map(
  (e) => e.name,
);

/** The events of this version the sandbox produces: every one but the failures it does not simulate. */
export const SANDBOX_PARTNER_EVENTS: readonly string[] = PARTNER_EVENT_DEFINITIONS.filter(
  (e) => isOffered(e) && !e.notInSandbox,
).map((e) => e.name);

/** Events of the spec's catalogue this version does not send yet (their resource is not offered, or they are planned). */
export const PLANNED_PARTNER_EVENTS: readonly string[] = PARTNER_EVENT_DEFINITIONS.filter((e) => !isOffered(e)).map(
  (e) => e.name,
);

/** Whether this version sends the event: its resource is offered and the event is not planned. */
export function isOffered(definition: PartnerEventDefinition): boolean {
  return PARTNER_EVENT_RESOURCES[definition.resource].available && definition.planned !== true;
}

/** The definition of a catalogue event, planned ones included. */
export function partnerEventDefinition(name: string): PartnerEventDefinition | undefined {
  return PARTNER_EVENT_DEFINITIONS.find((e) => e.name === name);
}

/** Compliance review events: partner-visible, but only to endpoints that name them (not `*`). */
export const COMPLIANCE_REVIEW_EVENTS: readonly string[] = PARTNER_EVENT_DEFINITIONS.filter((e) => e.namedOnly).map(
  (e) => e.name,
);

/** The five events that carry `eventType`, `eventId` and `previousStatus` instead of `event` (spec: Events / Envelope). */
export const STATUS_CHANGED_EVENTS: readonly string[] = [
  'transaction.statusChanged',
  'virtualAccount.statusChanged',
  'depositAddress.statusChanged',
  'externalAccount.statusChanged',
  'counterparty.statusChanged',
];

/**
 * What `sequence` means (spec: Events / Envelope, Delivery and verification 1), in the words the
 * documentation and the OpenAPI document use.
 */
export const SEQUENCE_MEANING =
  'The version of the resource in `data` (its `data.id`) after the change this event announces. It increases with every change of that resource and has gaps: ' +
  'not every version is announced, so the next event of a resource may skip numbers. Events that announce the same change carry the same `sequence` and the same `data` ' +
  '(`endorsement.updated` and `endorsement.active`; a `transaction.statusChanged` and its `underReview` event). Deliveries can arrive out of order and more than once: ' +
  "keep a resource's `data` only when its `sequence` is greater than that of the copy you hold. `webhook.test` has no `sequence`.";

/** What a webhook delivery posts (spec: Events / Envelope). A handler reads `event ?? eventType`. */
export interface WebhookEnvelope<Data = Record<string, unknown>> {
  /** whd_: one per event and endpoint, stable across retries; the deduplication key. */
  id: string;
  event?: string;
  eventType?: string;
  /** evt_: shared across the fan-out to all endpoints (statusChanged events only). */
  eventId?: string;
  previousStatus?: string | null;
  /** The resource's version after the change (SEQUENCE_MEANING): increasing, with gaps. */
  sequence?: number;
  createdAt: string;
  occurredAt?: string;
  /** `*.updated` events that name their change: the fields that changed. */
  changedFields?: string[];
  data: Data;
}

export interface EnvelopeInput {
  deliveryId: string;
  event: string;
  eventId: string;
  sequence?: number;
  previousStatus?: string | null;
  changedFields?: string[];
  createdAt: string;
  occurredAt?: string;
  data: Record<string, unknown>;
}

/** The envelope of one delivery, in the order its fields are documented. */
export function webhookEnvelope(input: EnvelopeInput): WebhookEnvelope {
  const statusChanged = STATUS_CHANGED_EVENTS.includes(input.event);
  return {
    id: input.deliveryId,
    ...(statusChanged
      ? { eventType: input.event, eventId: input.eventId, previousStatus: input.previousStatus ?? null }
      : { event: input.event }),
    ...(input.sequence !== undefined ? { sequence: input.sequence } : {}),
    createdAt: input.createdAt,
    ...(input.occurredAt !== undefined ? { occurredAt: input.occurredAt } : {}),
    ...(input.changedFields !== undefined ? { changedFields: input.changedFields } : {}),
    data: input.data,
  };
}
