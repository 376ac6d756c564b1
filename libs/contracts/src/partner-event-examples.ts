// An example delivery of every event of this version (spec: Events / Envelope,
// Catalog), for docs/events.md and the OpenAPI document's `webhooks`. Each `data`
// is the resource in the shape its GET answers (ids with the spec's prefixes);
// the e2e conformance test validates every example against the component schema
// the document generates from the response DTOs, so an example cannot drift
// from what is delivered.
import {
  isOffered,
  PARTNER_EVENT_DEFINITIONS,
  PARTNER_EVENT_RESOURCES,
  webhookEnvelope,
  type PartnerEventResourceName,
  type WebhookEnvelope,
} from './partner-events';

type Data = Record<string, unknown>;

const ID = {
  customer: 'cst_01m87bvej7fvptagdz8mbmk0hq',
  wallet: 'wlt_01m87bvejefvptage182s8me01',
  bank: 'ext_01m87bvejefvptagedyyfkvtc2',
  counterparty: 'cpty_01m87bvejefvptageh9mtnr1nv',
  cashIn: 'ci_01m87bvejefvptagetfzjztj0j',
  cashInTransaction: 'txn_01m87bvejefvptagetfzjztj0j',
  payoutTransaction: 'txn_01m87bvejefvptagf4chphn1n5',
  quote: 'qt_01m87bvejefvptagf4chphn1n5',
  cardBuy: 'txn_01m87cbt0xfvptagkq2b3h7d5w',
  cardBuyQuote: 'qt_01m87cbt0xfvptagkq2b3h7d5w',
  card: 'ext_01m87cbr1bfvptagm4v9x8e6ra',
  webhook: 'wh_01m87bvejhfvptagfjksv1pw27',
  delivery: 'whd_01m87bvejhfvptagftmmfq3bsy',
  event: 'evt_01m87bvejhfvptagg0v52webye',
  location: 'loc_01m846c3h7e06945mv76kz01kg',
  depositAddress: 'da_01m87d2b4afvptagq1x5w8kc3m',
  secondBank: 'ext_01m87d6f9kfvptagrc3n0yt7hd',
  depositTransaction: 'txn_01m87d9q2cfvptags0b8e4ww6z',
  virtualAccount: 'va_01m87f3k8dfvptagv2n4p6r8ts',
  inboundTransaction: 'txn_01m87f7w3bfvptagx5c7e9g1jk',
};
const DEPOSIT_ADDRESS = '0x3f5ce5fbfe3e9af3971dd833d26ba9b5c936f0be';
const WALLET_ADDRESS = '0xb98a27f6f3fb176614929cac1fb8161bd2f35ba9';
const ZERO_FEES = { total: '0.00', developer: '0.00', gas: '0.00', meridian: '0.00' };
const PARTY = { relationship: 'customer', customerId: ID.customer, entityType: 'individual' };
const LOCATION_ADDRESS = {
  line1: '611 W 6th St',
  city: 'Los Angeles',
  state: 'CA',
  postalCode: '90017',
  country: 'US',
};

const customer = (endorsements: Array<[string, string]>, updatedAt: string): Data => ({
  id: ID.customer,
  object: 'customer',
  type: 'individual',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  endorsements: endorsements.map(([name, status]) => ({ name, status })),
  createdAt: '2026-03-02T15:04:05.120Z',
  updatedAt,
});

const wallet: Data = {
  id: ID.wallet,
  object: 'wallet',
  customerId: ID.customer,
  asset: 'usdc',
  network: 'meridianchain',
  address: WALLET_ADDRESS,
  createdAt: '2026-03-02T15:04:09.310Z',
};

const bankAccount = (status: string, changes: Data = {}): Data => ({
  id: ID.bank,
  object: 'externalAccount',
  type: 'bankUs',
  status,
  customer: { id: ID.customer, name: 'Ada Lovelace' },
  details: {
    holderName: 'Ada Lovelace',
    bankName: 'Chase',
    routingNumber: '021000021',
    accountNumberLast4: '9012',
    accountType: 'checking',
  },
  supportedDestinations: [
    { asset: 'usd', network: 'ach' },
    { asset: 'usd', network: 'achSameDay' },
    { asset: 'usd', network: 'wire' },
  ],
  failure: null,
  label: 'Payroll',
  metadata: {},
  createdAt: '2026-03-02T15:05:00.400Z',
  updatedAt: status === 'pending' ? '2026-03-02T15:05:00.400Z' : '2026-03-02T15:05:00.620Z',
  ...changes,
});

type DepositAddressState =
  'pending' | 'active' | 'frozen' | 'closed' | 'failed' | 'inactiveActionRequired' | 'repointed';

/** A deposit address through its life: created 16:00, provisioned 2 s later, then changed. */
const depositAddress = (state: DepositAddressState): Data => {
  const status = state === 'repointed' ? 'active' : state;
  const updatedAt: Record<DepositAddressState, string> = {
    pending: '2026-03-02T16:00:00.000Z',
    active: '2026-03-02T16:00:02.110Z',
    failed: '2026-03-02T16:00:02.110Z',
    frozen: '2026-03-03T09:00:00.000Z',
    closed: '2026-03-04T09:00:00.000Z',
    inactiveActionRequired: '2026-03-05T11:20:00.000Z',
    repointed: '2026-03-05T11:45:00.000Z',
  };
  const repointed = state === 'repointed';
  return {
    id: ID.depositAddress,
    object: 'depositAddress',
    customerId: ID.customer,
    expectedSourceAsset: 'usdc',
    expectedSourceNetwork: 'meridianchain',
    destination: {
      type: 'bankUs',
      id: repointed ? ID.secondBank : ID.bank,
      asset: 'usd',
      network: 'ach',
      owner: { kind: 'customer', id: ID.customer, name: 'Ada Lovelace' },
      details: {
        holderName: 'Ada Lovelace',
        bankName: 'Chase',
        routingNumber: '021000021',
        accountNumberLast4: repointed ? '4410' : '9012',
        accountType: 'checking',
      },
    },
    payout: { rail: 'ach', secCode: 'PPD' },
    requiresCounterpartyWalletRegistration: true,
    ...(status === 'inactiveActionRequired'
      ? {
          hold: {
            code: 'payoutDestinationMissing',
            message:
              'The payout destination was deleted or is no longer valid: point the address at an active bank account to resume payouts.',
          },
        }
      : {}),
    status,
    depositInstructions:
      state === 'pending' || state === 'failed'
        ? null
        : { address: DEPOSIT_ADDRESS, asset: 'usdc', network: 'meridianchain' },
    payoutOrigin: {
      type: 'depositAddress',
      id: ID.depositAddress,
      accountHolder: 'customer',
      accountHolderName: 'Ada Lovelace',
    },
    label: 'Payroll inlet',
    metadata: { account: 'A-1001' },
    createdAt: '2026-03-02T16:00:00.000Z',
    updatedAt: updatedAt[state],
  };
};

type VirtualAccountState =
  'pending' | 'provisioned' | 'frozen' | 'closed' | 'failed' | 'relabelled' | 'deleting' | 'deleted';

/** A virtual account through its life: created 17:00, provisioned 2 s later, then changed and deleted. */
const virtualAccount = (state: VirtualAccountState): Data => {
  const status = state === 'provisioned' || state === 'relabelled' ? 'active' : state;
  const updatedAt: Record<VirtualAccountState, string> = {
    pending: '2026-03-02T17:00:00.000Z',
    provisioned: '2026-03-02T17:00:02.040Z',
    failed: '2026-03-02T17:00:02.040Z',
    frozen: '2026-03-03T09:00:00.000Z',
    closed: '2026-03-04T09:00:00.000Z',
    relabelled: '2026-03-05T10:00:00.000Z',
    deleting: '2026-03-06T10:00:00.000Z',
    deleted: '2026-03-06T10:00:03.120Z',
  };
  const provisioned = state !== 'pending' && state !== 'failed';
  return {
    id: ID.virtualAccount,
    object: 'virtualAccount',
    customerId: ID.customer,
    destination: {
      type: 'walletOms',
      id: ID.wallet,
      asset: 'usdc',
      network: 'meridianchain',
      owner: { kind: 'customer', id: ID.customer, name: 'Ada Lovelace' },
      details: { address: WALLET_ADDRESS },
    },
    returnDestination: {
      type: 'bankUs',
      id: ID.bank,
      asset: 'usd',
      network: 'ach',
      owner: { kind: 'customer', id: ID.customer, name: 'Ada Lovelace' },
      details: {
        holderName: 'Ada Lovelace',
        bankName: 'Chase',
        routingNumber: '021000021',
        accountNumberLast4: '9012',
        accountType: 'checking',
      },
    },
    returnPayout: { rail: 'ach' },
    accountHolder: 'customer',
    type: 'bankUs',
    status,
    bankDetails: provisioned
      ? {
          bankName: 'Meridian Sandbox Bank',
          accountHolderName: 'Ada Lovelace',
          accountNumber: '4815162342',
          routingNumber: '026009593',
          bic: 'MRDNUS33XXX',
        }
      : null,
    supportedSources: [
      { asset: 'usd', rail: 'ach' },
      { asset: 'usd', rail: 'wire' },
      { asset: 'usd', rail: 'internationalWire' },
    ],
    ...(state === 'deleting' || state === 'deleted' ? { deletionRequestedAt: updatedAt.deleting } : {}),
    label: state === 'relabelled' || state === 'deleting' || state === 'deleted' ? 'Payroll (main)' : 'Payroll',
    metadata: { account: 'A-1001' },
    createdAt: '2026-03-02T17:00:00.000Z',
    updatedAt: updatedAt[state],
  };
};

const counterparty = (status: string, updatedAt: string): Data => ({
  id: ID.counterparty,
  object: 'counterparty',
  customerId: ID.customer,
  entityType: 'business',
  name: 'Acme Ltd',
  firstName: null,
  lastName: null,
  businessName: 'Acme Ltd',
  email: 'ap@acme.example',
  phone: null,
  taxIdProvided: false,
  address: null,
  status,
  createdAt: '2026-03-02T15:06:00.000Z',
  updatedAt,
});

const cashIn = (state: 'pending' | 'refreshed' | 'completed' | 'expired'): Data => {
  const deposited = state === 'completed';
  const amounts = { amountGross: '100.00', amountNet: '100.00', feesDeducted: ZERO_FEES };
  const updatedAt = {
    pending: '2026-03-02T15:10:00.000Z',
    refreshed: '2026-03-02T15:40:00.000Z',
    completed: '2026-03-02T15:52:31.000Z',
    expired: '2026-03-02T16:40:00.000Z',
  }[state];
  return {
    id: ID.cashIn,
    object: 'cashIn',
    type: 'fiatToCrypto',
    status: state === 'refreshed' ? 'pending' : state,
    subStatus: deposited ? 'settled' : null,
    customerId: ID.customer,
    source: { asset: 'usd', indicatedAmount: '100.00', ...amounts },
    destination: {
      asset: 'usdc',
      network: 'meridianchain',
      ...amounts,
      wallet: { id: ID.wallet, blockchainAddress: WALLET_ADDRESS, externalAccount: null },
    },
    cash: { locationId: ID.location, locationReference: 'QUICKSTOP-2002' },
    location: { name: 'QuickStop Market #2002', locationProvider: 'quickstop', locationAddress: LOCATION_ADDRESS },
    rates: { pair: 'usd/usdc', exchangeRate: '1.00', effectiveRate: '1.00' },
    fixedAmountSide: 'source',
    sponsorGas: true,
    sponsorGasCost: '0.00',
    depositInstructions: {
      code: state === 'pending' ? '947 181' : '312 164',
      expiresAt: state === 'pending' ? '2026-03-02T16:10:00.000Z' : '2026-03-02T16:40:00.000Z',
      locationName: 'QuickStop Market #2002',
      locationAddress: LOCATION_ADDRESS,
    },
    transactionId: deposited ? ID.cashInTransaction : null,
    metadata: { order: '7731' },
    createdAt: '2026-03-02T15:10:00.000Z',
    updatedAt,
    completedAt: deposited ? updatedAt : null,
  };
};

const pricing = (from: string, to: string, amount: string): Data => ({
  source: { asset: from, amountGross: amount, amountNet: amount, feesDeducted: ZERO_FEES },
  destination: { asset: to, amountGross: amount, amountNet: amount, feesDeducted: ZERO_FEES },
  pair: `${from}/${to}`,
  exchangeRate: '1.00',
  effectiveRate: '1.00',
  fixedAmountSide: 'source',
  sponsorGas: true,
  sponsorGasCost: '0.00',
});

const leg = (transaction: string, n: number, fields: Data): Data => ({
  id: `${transaction}.${n}`,
  txHash: null,
  imad: null,
  uetr: null,
  endToEndId: null,
  failure: null,
  settledAt: null,
  ...fields,
});

/** The transaction a completed cash-in created (cashToCrypto), at its status then. */
const cashInTransaction = (status: string, subStatus: string | null, updatedAt: string): Data => ({
  id: ID.cashInTransaction,
  object: 'transaction',
  sourceToDestination: 'cashToCrypto',
  status,
  subStatus,
  customerId: ID.customer,
  precursor: { type: 'cashIn', id: ID.cashIn },
  source: {
    party: PARTY,
    type: 'cash',
    category: 'cash',
    details: {
      asset: 'usd',
      network: 'cash',
      locationId: ID.location,
      locationReference: 'QUICKSTOP-2002',
      locationProvider: 'quickstop',
    },
  },
  destination: {
    party: PARTY,
    type: 'walletOms',
    category: 'crypto',
    details: { id: ID.wallet, asset: 'usdc', network: 'meridianchain', address: WALLET_ADDRESS },
  },
  pricing: pricing('usd', 'usdc', '100.00'),
  legs: [
    leg(ID.cashInTransaction, 1, {
      kind: 'deposit',
      rail: 'cash',
      asset: 'usd',
      network: 'cash',
      amount: '100.00',
      status: 'settled',
      endToEndId: 'E2E0947627519A7B069',
      initiatedAt: '2026-03-02T15:52:31.000Z',
      settledAt: '2026-03-02T15:52:31.400Z',
    }),
    leg(ID.cashInTransaction, 2, {
      kind: 'payout',
      rail: 'crypto',
      asset: 'usdc',
      network: 'meridianchain',
      amount: '100.00',
      ...(status === 'completed'
        ? {
            status: 'settled',
            txHash: '0x7ac4443165777c549f542f5a6ebad38e9c66e1d00aaceb53cdc2ddc9bf962687',
            settledAt: updatedAt,
          }
        : { status: 'pending' }),
      initiatedAt: '2026-03-02T15:52:31.400Z',
    }),
  ],
  metadata: {},
  createdAt: '2026-03-02T15:52:31.000Z',
  updatedAt,
});

/** A card buy whose crypto failed on chain after the charge settled: the money is held for review (fiatAccountToCrypto). */
const cardBuyTransaction: Data = {
  id: ID.cardBuy,
  object: 'transaction',
  sourceToDestination: 'fiatAccountToCrypto',
  status: 'processing',
  subStatus: 'processing.underReview',
  customerId: ID.customer,
  precursor: { type: 'quote', id: ID.cardBuyQuote },
  source: {
    party: PARTY,
    type: 'card',
    category: 'fiat',
    details: { externalAccountId: ID.card, asset: 'usd', network: 'card', brand: 'visa', last4: '4242' },
  },
  destination: {
    party: PARTY,
    type: 'walletOms',
    category: 'crypto',
    details: { id: ID.wallet, asset: 'usdc', network: 'meridianchain', address: WALLET_ADDRESS },
  },
  pricing: pricing('usd', 'usdc', '40.00'),
  legs: [
    leg(ID.cardBuy, 1, {
      kind: 'deposit',
      rail: 'card',
      asset: 'usd',
      network: 'card',
      amount: '40.00',
      status: 'settled',
      endToEndId: 'E2E54B625B1A342CB87',
      initiatedAt: '2026-03-02T17:00:00.000Z',
      settledAt: '2026-03-02T17:00:05.000Z',
    }),
    leg(ID.cardBuy, 2, {
      kind: 'payout',
      rail: 'crypto',
      asset: 'usdc',
      network: 'meridianchain',
      amount: '40.00',
      status: 'failed',
      failure: { code: 'providerError', message: 'The transfer was reverted on chain.' },
      initiatedAt: '2026-03-02T17:00:05.000Z',
    }),
  ],
  metadata: {},
  createdAt: '2026-03-02T17:00:00.000Z',
  updatedAt: '2026-03-02T17:00:10.000Z',
};

/** A wire payout from the customer's wallet held for review before anything moved (cryptoToFiatAccount). */
const payoutTransaction: Data = {
  id: ID.payoutTransaction,
  object: 'transaction',
  sourceToDestination: 'cryptoToFiatAccount',
  status: 'processing',
  subStatus: 'processing.underReview',
  customerId: ID.customer,
  precursor: { type: 'quote', id: ID.quote },
  source: {
    party: PARTY,
    type: 'walletOms',
    category: 'crypto',
    details: { id: ID.wallet, asset: 'usdc', network: 'meridianchain', address: WALLET_ADDRESS },
  },
  destination: {
    party: PARTY,
    type: 'bankUs',
    category: 'fiat',
    details: { id: ID.bank, asset: 'usd', network: 'wire', accountHolder: 'customer', last4: '9012' },
  },
  pricing: pricing('usdc', 'usd', '10000.00'),
  legs: [],
  payoutOrigin: { type: 'quote', id: ID.quote, accountHolder: 'customer', accountHolderName: 'Ada Lovelace' },
  metadata: {},
  createdAt: '2026-03-02T16:00:00.000Z',
  updatedAt: '2026-03-02T16:00:00.000Z',
};

/** A transfer to the customer's own external wallet, held for review (cryptoToCrypto): no payoutOrigin, which fiat payouts carry. */
const { payoutOrigin: _fiatOnly, ...cryptoBase } = payoutTransaction;
const cryptoTransaction: Data = {
  ...cryptoBase,
  sourceToDestination: 'cryptoToCrypto',
  destination: {
    party: PARTY,
    type: 'walletExternal',
    category: 'crypto',
    details: {
      id: 'ext_01m87bvejhfvptagg0v52webye',
      asset: 'usdc',
      network: 'ethereum',
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
    },
  },
  pricing: pricing('usdc', 'usdc', '10000.00'),
};

/** The steps of a deposit address deposit's transaction that its deposit_address.* events announce. */
type DepositStep =
  | 'depositPending'
  | 'depositSettled'
  | 'needsAttribution'
  | 'payoutPending'
  | 'payoutSettled'
  | 'payoutFailed'
  | 'payoutReturned'
  | 'returnPending'
  | 'returnSettled'
  | 'depositFailed'
  | 'returnFailed';

const SENDER = '0x52908400098527886e0f7030069857d2e4169ee7';
const DEPOSIT_AT = '2026-03-03T09:00:00.000Z';
const DEPOSIT_SETTLED_AT = '2026-03-03T09:00:00.000Z';
const PAYOUT_AT = '2026-03-03T09:01:00.000Z';

/** A deposit of 250.00 usdc to a deposit address paying out over ACH (cryptoToFiatAccount, precursor depositAddress), at one step. */
function depositTransaction(step: DepositStep): Data {
  const t = ID.depositTransaction;
  const depositFailed = step === 'depositFailed';
  const deposit = leg(t, 1, {
    kind: 'deposit',
    rail: 'crypto',
    asset: 'usdc',
    network: 'ethereum',
    amount: '250.00',
    txHash: '0x9f2c1e7d4b3a5968c7e1d2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3',
    initiatedAt: DEPOSIT_AT,
    ...(step === 'depositPending'
      ? { status: 'pending' }
      : depositFailed
        ? { status: 'failed', failure: { code: 'providerError', message: 'The deposit was reverted on chain.' } }
        : { status: 'settled', settledAt: DEPOSIT_SETTLED_AT }),
  });
  const paid = ['payoutPending', 'payoutSettled', 'payoutFailed', 'payoutReturned'].includes(step);
  const payoutStatus: Data =
    step === 'payoutSettled'
      ? { status: 'settled', endToEndId: 'E2E7B1C94D20A6F35E8', settledAt: PAYOUT_AT }
      : step === 'payoutFailed'
        ? { status: 'failed', failure: { code: 'providerError', message: 'The payout provider refused the transfer.' } }
        : step === 'payoutReturned'
          ? {
              status: 'failed',
              failure: { code: 'providerError', message: 'The receiving institution returned the payment.' },
            }
          : { status: 'pending' };
  const payout = leg(t, 2, {
    kind: 'payout',
    rail: 'ach',
    asset: 'usd',
    network: 'ach',
    amount: '250.00',
    initiatedAt: DEPOSIT_SETTLED_AT,
    ...payoutStatus,
  });
  const returning = ['returnPending', 'returnSettled', 'returnFailed'].includes(step);
  const refund = leg(t, 2, {
    kind: 'refund',
    rail: 'crypto',
    asset: 'usdc',
    network: 'ethereum',
    amount: '250.00',
    initiatedAt: PAYOUT_AT,
    ...(step === 'returnSettled'
      ? { status: 'settled', settledAt: PAYOUT_AT }
      : step === 'returnFailed'
        ? { status: 'failed', failure: { code: 'providerError', message: 'The return was reverted on chain.' } }
        : { status: 'pending' }),
  });
  const [status, subStatus]: [string, string | null] =
    step === 'needsAttribution'
      ? ['awaitingAction', 'awaitingAction.awaitingSenderAttribution']
      : step === 'payoutSettled'
        ? ['completed', null]
        : step === 'payoutFailed' || step === 'payoutReturned'
          ? ['processing', 'processing.underReview']
          : step === 'returnPending' || step === 'returnFailed'
            ? ['processing', 'processing.returningToSender']
            : step === 'returnSettled'
              ? ['failed', 'failed.attributionTimeout']
              : depositFailed
                ? ['failed', 'failed.inboundFailed']
                : ['processing', null];
  const updatedAt = paid || returning ? PAYOUT_AT : DEPOSIT_AT;
  return {
    id: t,
    object: 'transaction',
    sourceToDestination: 'cryptoToFiatAccount',
    status,
    subStatus,
    customerId: ID.customer,
    precursor: { type: 'depositAddress', id: ID.depositAddress },
    source: {
      party: { relationship: 'externalUnregistered' },
      type: 'walletExternal',
      category: 'crypto',
      details: { asset: 'usdc', network: 'ethereum', address: SENDER },
    },
    destination: {
      party: PARTY,
      type: 'bankUs',
      category: 'fiat',
      details: { id: ID.bank, asset: 'usd', network: 'ach', accountHolder: 'customer', last4: '9012' },
    },
    pricing: pricing('usdc', 'usd', '250.00'),
    legs: [deposit, ...(paid ? [payout] : []), ...(returning ? [refund] : [])],
    payoutOrigin: {
      type: 'depositAddress',
      id: ID.depositAddress,
      accountHolder: 'customer',
      accountHolderName: 'Ada Lovelace',
    },
    ...(step === 'needsAttribution'
      ? {
          hold: {
            code: 'senderAttribution',
            message:
              'The sender of this deposit is not registered for the customer. Register the sending wallet as an external account of the customer or one of its counterparties to release it.',
            deadline: '2026-03-06T09:00:00.000Z',
            match: { address: SENDER, network: 'ethereum' },
          },
        }
      : {}),
    ...(step === 'returnSettled'
      ? {
          error: {
            code: 'attributionTimeout',
            message:
              'The sender was not registered before the attribution deadline; the crypto goes back to the sender.',
            occurredAt: PAYOUT_AT,
            recoverable: false,
            refund: { status: 'completed', amount: '250.00', asset: 'usdc' },
          },
        }
      : {}),
    ...(depositFailed
      ? {
          error: {
            code: 'providerError',
            message: 'The deposit was reverted on chain.',
            occurredAt: DEPOSIT_AT,
            recoverable: false,
          },
        }
      : {}),
    metadata: {},
    createdAt: DEPOSIT_AT,
    updatedAt,
  };
}

const DEPOSIT_LEG_EXAMPLES: Record<string, Example> = {
  'deposit_address.crypto_deposit.pending': { data: depositTransaction('depositPending'), sequence: 2 },
  'deposit_address.crypto_deposit.settled': { data: depositTransaction('depositSettled'), sequence: 3 },
  'deposit_address.crypto_deposit.failed': { data: depositTransaction('depositFailed'), sequence: 3 },
  'deposit_address.crypto_deposit.needs_attribution': { data: depositTransaction('needsAttribution'), sequence: 4 },
  ...Object.fromEntries(
    ['ach_payout', 'wire_payout', 'intl_wire_payout'].flatMap((family) => {
      const [rail, network] =
        family === 'ach_payout' ? ['ach', 'ach'] : family === 'wire_payout' ? ['wire', 'wire'] : ['swift', 'swift'];
      const on = (step: DepositStep, sequence: number): Example => {
        const data = depositTransaction(step);
        const legs = (data.legs as Data[]).map((l) => (l.kind === 'payout' ? { ...l, rail, network } : l));
        return {
          data: {
            ...data,
            legs,
            destination: {
              ...(data.destination as Data),
              details: { ...((data.destination as Data).details as Data), network },
            },
          },
          sequence,
        };
      };
      return [
        [`deposit_address.${family}.initiated`, on('payoutPending', 4)],
        [`deposit_address.${family}.pending`, on('payoutPending', 4)],
        [`deposit_address.${family}.settled`, on('payoutSettled', 5)],
        [`deposit_address.${family}.failed`, on('payoutFailed', 5)],
        [`deposit_address.${family}.returned`, on('payoutReturned', 5)],
      ];
    }),
  ),
  'deposit_address.crypto_payout.initiated': { data: depositTransaction('returnPending'), sequence: 5 },
  'deposit_address.crypto_payout.pending': { data: depositTransaction('returnPending'), sequence: 5 },
  'deposit_address.crypto_payout.settled': { data: depositTransaction('returnSettled'), sequence: 6 },
  'deposit_address.crypto_payout.failed': { data: depositTransaction('returnFailed'), sequence: 6 },
};

/** The steps of a virtual account deposit's transaction that its virtualAccount.* leg events announce. */
type InboundStep =
  | 'depositPending'
  | 'depositSettled'
  | 'depositFailed'
  | 'depositReturned'
  | 'cryptoPending'
  | 'cryptoSettled'
  | 'cryptoFailed'
  | 'bankPayoutPending'
  | 'bankPayoutSettled'
  | 'bankPayoutFailed'
  | 'refundInitiated'
  | 'refundPending'
  | 'refundSettled';

const INBOUND_AT = '2026-03-03T10:00:00.000Z';
const INBOUND_SETTLED_AT = '2026-03-03T10:01:00.000Z';
const DELIVERY_AT = '2026-03-03T10:01:05.000Z';

/** An ACH transfer of 500.00 usd to a virtual account delivering USDC to the customer's wallet (or, for the fiat transfer steps, paying a bank account over wire) (fiatAccountToCrypto, precursor virtualAccount), at one step. */
function inboundTransaction(step: InboundStep): Data {
  const t = ID.inboundTransaction;
  const bankDestination = step.startsWith('bankPayout');
  const deposit = leg(t, 1, {
    kind: 'deposit',
    rail: 'ach',
    asset: 'usd',
    network: 'ach',
    amount: '500.00',
    initiatedAt: INBOUND_AT,
    ...(step === 'depositPending'
      ? { status: 'pending' }
      : step === 'depositFailed'
        ? {
            status: 'failed',
            failure: { code: 'providerDeclined', message: 'The bank declined the inbound transfer.' },
          }
        : step === 'depositReturned'
          ? {
              status: 'failed',
              failure: {
                code: 'virtualAccountInactive',
                message:
                  'The virtual account is frozen, closed or deleted: the bank returned the transfer to the sender.',
              },
            }
          : { status: 'settled', settledAt: INBOUND_SETTLED_AT, endToEndId: '656919975076510' }),
  });
  const outcome = (settled: boolean, failed: boolean, failure: string, reference: Data): Data =>
    settled
      ? { status: 'settled', settledAt: DELIVERY_AT, ...reference }
      : failed
        ? { status: 'failed', failure: { code: 'providerError', message: failure } }
        : { status: 'pending' };
  const crypto = leg(t, 2, {
    kind: 'payout',
    rail: 'crypto',
    asset: 'usdc',
    network: 'meridianchain',
    amount: '500.00',
    initiatedAt: INBOUND_SETTLED_AT,
    ...outcome(step === 'cryptoSettled', step === 'cryptoFailed', 'The transfer was reverted on chain.', {
      txHash: '0x2b7d4e9a1c3f5e7a9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a3c5e',
    }),
  });
  const payout = leg(t, 2, {
    kind: 'payout',
    rail: 'wire',
    asset: 'usd',
    network: 'wire',
    amount: '500.00',
    initiatedAt: INBOUND_SETTLED_AT,
    ...outcome(step === 'bankPayoutSettled', step === 'bankPayoutFailed', 'The payout provider refused the transfer.', {
      imad: '20260303MMQFMP9C000042',
    }),
  });
  const refunding = step.startsWith('refund');
  const refund = leg(t, 3, {
    kind: 'refund',
    rail: 'ach',
    asset: 'usd',
    network: 'ach',
    amount: '500.00',
    initiatedAt: DELIVERY_AT,
    ...(step === 'refundSettled'
      ? { status: 'settled', settledAt: DELIVERY_AT, endToEndId: '656919975076511' }
      : { status: 'pending' }),
  });
  const legs = [
    deposit,
    ...(step.startsWith('crypto') || refunding
      ? [
          refunding
            ? {
                ...crypto,
                status: 'failed',
                failure: { code: 'providerError', message: 'The transfer was reverted on chain.' },
              }
            : crypto,
        ]
      : []),
    ...(bankDestination ? [payout] : []),
    ...(refunding ? [refund] : []),
  ];
  const [status, subStatus]: [string, string | null] =
    step === 'cryptoSettled' || step === 'bankPayoutSettled'
      ? ['completed', null]
      : step === 'cryptoFailed' || step === 'bankPayoutFailed' || step === 'refundInitiated' || step === 'refundPending'
        ? ['processing', 'processing.underReview']
        : step === 'refundSettled'
          ? ['failed', 'failed.returnedToSender']
          : step === 'depositFailed'
            ? ['failed', 'failed.providerDeclined']
            : step === 'depositReturned'
              ? ['failed', 'failed.returnedToSender']
              : ['processing', null];
  const destination = bankDestination
    ? {
        party: PARTY,
        type: 'bankUs',
        category: 'fiat',
        details: { id: ID.bank, asset: 'usd', network: 'wire', accountHolder: 'customer', last4: '9012' },
      }
    : {
        party: PARTY,
        type: 'walletOms',
        category: 'crypto',
        details: { id: ID.wallet, asset: 'usdc', network: 'meridianchain', address: WALLET_ADDRESS },
      };
  const updatedAt =
    step === 'depositPending' || step === 'depositFailed' || step === 'depositReturned'
      ? INBOUND_AT
      : step === 'depositSettled'
        ? INBOUND_SETTLED_AT
        : DELIVERY_AT;
  return {
    id: t,
    object: 'transaction',
    sourceToDestination: 'fiatAccountToCrypto',
    status,
    subStatus,
    customerId: ID.customer,
    precursor: { type: 'virtualAccount', id: ID.virtualAccount },
    source: {
      party: { relationship: 'externalUnregistered' },
      type: 'virtualAccount',
      category: 'fiat',
      details: {
        id: ID.virtualAccount,
        asset: 'usd',
        network: 'ach',
        senderName: 'ACME PAYROLL',
        reference: '656919975076510',
      },
    },
    destination,
    pricing: pricing('usd', bankDestination ? 'usd' : 'usdc', '500.00'),
    legs,
    ...(step === 'refundSettled'
      ? {
          error: {
            code: 'providerError',
            message: 'The transfer was reverted on chain.',
            occurredAt: DELIVERY_AT,
            recoverable: false,
            refund: { status: 'completed', amount: '500.00', asset: 'usd' },
          },
        }
      : {}),
    metadata: {},
    createdAt: INBOUND_AT,
    updatedAt,
  };
}

const INBOUND_LEG_EXAMPLES: Record<string, Example> = {
  'virtualAccount.deposit.pending': { data: inboundTransaction('depositPending'), sequence: 2 },
  'virtualAccount.deposit.settled': { data: inboundTransaction('depositSettled'), sequence: 3 },
  'virtualAccount.deposit.failed': { data: inboundTransaction('depositFailed'), sequence: 3 },
  'virtualAccount.deposit.returned': { data: inboundTransaction('depositReturned'), sequence: 2 },
  'virtualAccount.cryptoTransfer.initiated': { data: inboundTransaction('cryptoPending'), sequence: 4 },
  'virtualAccount.cryptoTransfer.pending': { data: inboundTransaction('cryptoPending'), sequence: 4 },
  'virtualAccount.cryptoTransfer.settled': { data: inboundTransaction('cryptoSettled'), sequence: 5 },
  'virtualAccount.cryptoTransfer.failed': { data: inboundTransaction('cryptoFailed'), sequence: 5 },
  'virtualAccount.fiatTransfer.initiated': { data: inboundTransaction('refundInitiated'), sequence: 6 },
  'virtualAccount.fiatTransfer.pending': { data: inboundTransaction('refundPending'), sequence: 7 },
  'virtualAccount.fiatTransfer.settled': { data: inboundTransaction('bankPayoutSettled'), sequence: 5 },
  'virtualAccount.fiatTransfer.failed': { data: inboundTransaction('bankPayoutFailed'), sequence: 5 },
};

const webhookEndpoint: Data = {
  id: ID.webhook,
  object: 'webhookEndpoint',
  url: 'https://example.com/webhooks',
  subscriptions: ['*'],
  timeoutMs: 5000,
  notifyThresholdSecs: 3600,
  description: 'Ops',
  status: 'enabled',
  createdAt: '2026-03-02T15:00:00.000Z',
  updatedAt: '2026-03-02T15:00:00.000Z',
};

interface Example {
  data: Data;
  /** The resource's version after the change; none for webhook.test. */
  sequence?: number;
  previousStatus?: string | null;
  changedFields?: string[];
}

const EXAMPLES: Record<string, Example> = {
  'transaction.statusChanged': {
    data: cashInTransaction('completed', null, '2026-03-02T15:52:36.900Z'),
    sequence: 6,
    previousStatus: 'processing',
  },
  'cashIn.created': { data: cashIn('pending'), sequence: 1 },
  'cashIn.completed': { data: cashIn('completed'), sequence: 3 },
  'cashIn.expired': { data: cashIn('expired'), sequence: 3 },
  'cashIn.updated': { data: cashIn('refreshed'), sequence: 2, changedFields: ['depositInstructions'] },
  'depositAddress.created': { data: depositAddress('pending'), sequence: 1 },
  'depositAddress.active': { data: depositAddress('active'), sequence: 2 },
  'depositAddress.frozen': { data: depositAddress('frozen'), sequence: 3 },
  'depositAddress.closed': { data: depositAddress('closed'), sequence: 4 },
  'depositAddress.failed': { data: depositAddress('failed'), sequence: 2 },
  'depositAddress.statusChanged': {
    data: depositAddress('inactiveActionRequired'),
    sequence: 3,
    previousStatus: 'active',
  },
  'depositAddress.updated': { data: depositAddress('repointed'), sequence: 4, changedFields: ['destination'] },
  'virtualAccount.created': { data: virtualAccount('pending'), sequence: 1 },
  'virtualAccount.provisioned': { data: virtualAccount('provisioned'), sequence: 2 },
  'virtualAccount.active': { data: virtualAccount('provisioned'), sequence: 2 },
  'virtualAccount.frozen': { data: virtualAccount('frozen'), sequence: 3 },
  'virtualAccount.closed': { data: virtualAccount('closed'), sequence: 4 },
  'virtualAccount.deleted': { data: virtualAccount('deleted'), sequence: 7 },
  'virtualAccount.failed': { data: virtualAccount('failed'), sequence: 2 },
  'virtualAccount.statusChanged': { data: virtualAccount('deleting'), sequence: 6, previousStatus: 'active' },
  'virtualAccount.updated': { data: virtualAccount('relabelled'), sequence: 5, changedFields: ['label'] },
  'externalAccount.created': { data: bankAccount('pending'), sequence: 1 },
  'externalAccount.verified': { data: bankAccount('active'), sequence: 3 },
  'externalAccount.declined': {
    data: bankAccount('failed', {
      failure: {
        code: 'provider_rejected',
        message: 'the bank rejected the account: it could not be found or cannot receive payments',
      },
    }),
    sequence: 3,
  },
  'externalAccount.deleted': { data: bankAccount('active', { updatedAt: '2026-03-09T10:00:00.000Z' }), sequence: 5 },
  'externalAccount.statusChanged': { data: bankAccount('active'), sequence: 2, previousStatus: 'pending' },
  'externalAccount.updated': {
    data: bankAccount('active', { label: 'Main account', updatedAt: '2026-03-05T09:30:00.000Z' }),
    sequence: 4,
    changedFields: ['label'],
  },
  'counterparty.statusChanged': {
    data: counterparty('active', '2026-03-02T15:06:00.000Z'),
    sequence: 1,
    previousStatus: null,
  },
  'endorsement.updated': {
    data: customer(
      [
        ['basic', 'active'],
        ['usd', 'pending'],
      ],
      '2026-03-02T15:04:06.300Z',
    ),
    sequence: 4,
    changedFields: ['endorsements'],
  },
  'endorsement.active': {
    data: customer(
      [
        ['basic', 'active'],
        ['usd', 'active'],
      ],
      '2026-03-02T15:04:06.700Z',
    ),
    sequence: 5,
  },
  'wallet.provisioned': { data: wallet, sequence: 1 },
  'transaction.fiatToCrypto.underReview': { data: cardBuyTransaction, sequence: 6 },
  'transaction.cryptoToFiat.underReview': { data: payoutTransaction, sequence: 1 },
  'transaction.cryptoToCrypto.underReview': { data: cryptoTransaction, sequence: 1 },
  'webhook.test': { data: webhookEndpoint },
  ...DEPOSIT_LEG_EXAMPLES,
  ...INBOUND_LEG_EXAMPLES,
};

/** The example delivery of an event of this version, as posted. */
export function partnerEventExample(name: string): WebhookEnvelope {
  const example = EXAMPLES[name];
  if (!example) throw new Error(`no example for partner event ${name}`);
  const occurredAt = String(example.data.updatedAt ?? example.data.createdAt);
  return webhookEnvelope({
    deliveryId: ID.delivery,
    event: name,
    eventId: ID.event,
    sequence: example.sequence,
    previousStatus: example.previousStatus,
    changedFields: example.changedFields,
    createdAt: new Date(Date.parse(occurredAt) + 180).toISOString(),
    occurredAt,
    data: example.data,
  });
}

/** Every event of this version has an example whose data is its resource. */
export function partnerEventExampleProblems(): string[] {
  const problems: string[] = [];
  for (const definition of PARTNER_EVENT_DEFINITIONS) {
    const resource = PARTNER_EVENT_RESOURCES[definition.resource as PartnerEventResourceName];
    if (!isOffered(definition)) continue;
    const example = EXAMPLES[definition.name];
    if (!example) problems.push(`${definition.name}: no example`);
    else if (example.data.object !== resource.object)
      problems.push(`${definition.name}: data.object is ${String(example.data.object)}, not ${resource.object}`);
    // Every `*.updated` envelope names what changed: its catalogue entry says which fields can, its example some.
    if (definition.name.endsWith('.updated') && !definition.changedFields?.length)
      problems.push(`${definition.name}: an update that lists no changedFields`);
    if (example && (example.changedFields !== undefined) !== definition.name.endsWith('.updated'))
      problems.push(`${definition.name}: changedFields belong to *.updated events, and every one has them`);
    for (const field of example?.changedFields ?? []) {
      if (!definition.changedFields?.includes(field))
        problems.push(`${definition.name}: its example names ${field}, which its catalogue entry does not list`);
    }
  }
  return problems;
}
