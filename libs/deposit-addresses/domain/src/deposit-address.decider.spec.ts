// Spec: States / Deposit address (and the transitions the spec leaves open, ADR 0030), row by row,
// as given(events) / when(command) / then(events or error); the view of each state (the v1 shape).
import {
  ApiError,
  type DepositAddressCreated,
  type DepositAddressDestination,
  type DepositAddressInstrument,
  type DepositAddressStatus,
  type DepositAddressStatusChange,
  type ExternalAccountView,
} from '@mm/contracts';
import { fold, specFor } from '@mm/platform/decider';
import { bankDestination, payoutInstruction, returnWallet } from './deposit-address-request';
import { depositAddressView } from './deposit-address-view';
import {
  depositAddressDecider,
  type DepositAddressEvent,
  type ExistingDepositAddress,
} from './deposit-address.decider';
import { attributeSender, dispositionOf, receiveDeposit, type ReceiveDeposit } from './deposits';

const given = specFor(depositAddressDecider);
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

const ID = 'da_01h455vb4pex5vsknk084sn02q';
const CUSTOMER = 'cst_01h455vb4pex5vsknk084sn02r';
const AT = '2030-01-07T10:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(AT) + seconds * 1000).toISOString();

function bankAccount(id: string, changes: Partial<ExternalAccountView> = {}): ExternalAccountView {
  return {
    id,
    customerId: CUSTOMER,
    customerName: 'Ada Lovelace',
    counterpartyId: null,
    counterpartyEntityType: null,
    counterpartyName: null,
    type: 'bankUs',
    status: 'active',
    failure: null,
    details: {
      holderName: 'Ada Lovelace',
      bankName: null,
      routingNumber: '021000021',
      accountNumberLast4: '9012',
      accountType: 'checking',
    },
    supportedDestinations: [
      { asset: 'usd', network: 'ach' },
      { asset: 'usd', network: 'achSameDay' },
      { asset: 'usd', network: 'wire' },
    ],
    ...changes,
  };
}

const BANK = 'ext_01h455vb4pex5vsknk084sn0aa';
const OTHER_BANK = 'ext_01h455vb4pex5vsknk084sn0bb';
const WALLET = 'ext_01h455vb4pex5vsknk084sn0cc';
const payout = payoutInstruction({ rail: 'ach', secCode: 'PPD' });
const destination: DepositAddressDestination = bankDestination(CUSTOMER, bankAccount(BANK), payout);
const wallet: DepositAddressInstrument = returnWallet(
  CUSTOMER,
  bankAccount(WALLET, {
    type: 'walletExternal',
    details: { address: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'meridianchain', asset: 'usdc' },
    supportedDestinations: [{ asset: 'usdc', network: 'meridianchain' }],
  }),
  'usdc',
  'meridianchain',
);

const record: DepositAddressCreated = {
  depositAddressId: ID,
  projectId: 'prj_1',
  customerId: CUSTOMER,
  customerName: 'Ada Lovelace',
  expectedSourceAsset: 'usdc',
  expectedSourceNetwork: 'meridianchain',
  destination,
  payout,
  returnDestination: null,
  requiresCounterpartyWalletRegistration: null,
  sponsorGas: null,
  label: null,
  metadata: { ref: '7' },
  createdAt: AT,
};
const created: DepositAddressEvent = { type: 'depositAddress.created', data: record };
const change = (
  previousStatus: DepositAddressStatus,
  status: DepositAddressStatus,
  at: string,
): DepositAddressStatusChange => ({ depositAddressId: ID, projectId: 'prj_1', previousStatus, status, at });
const INSTRUCTIONS = { address: '0x1111111111111111111111111111111111111111', asset: 'usdc', network: 'meridianchain' };
const provisioned: DepositAddressEvent = {
  type: 'depositAddress.provisioned',
  data: { ...change('pending', 'active', later(2)), depositInstructions: INSTRUCTIONS },
};
const lost: DepositAddressEvent = {
  type: 'depositAddress.destinationLost',
  data: { ...change('active', 'inactiveActionRequired', later(60)), externalAccountId: BANK, reason: 'deleted' },
};
const frozen: DepositAddressEvent = { type: 'depositAddress.frozen', data: change('active', 'frozen', later(30)) };
const state = (events: DepositAddressEvent[]) => fold(depositAddressDecider, events) as ExistingDepositAddress;

describe('deposit address decider (spec: States / Deposit address)', () => {
  it('(none) -> pending: POST /deposit-addresses', () =>
    given([]).when({ type: 'CreateDepositAddress', record }).then([created]));

  it('pending -> active: the custodian provisions it, with its on-chain address', () =>
    given([created])
      .when({
        type: 'CompleteProvisioning',
        projectId: 'prj_1',
        outcome: { address: INSTRUCTIONS.address },
        at: later(2),
      })
      .then([provisioned]));

  it('pending -> failed: the custodian cannot provision it', () =>
    given([created])
      .when({
        type: 'CompleteProvisioning',
        projectId: 'prj_1',
        outcome: { failure: { code: 'custodian_rejected', message: 'no' } },
        at: later(2),
      })
      .then([
        {
          type: 'depositAddress.provisioningFailed',
          data: { ...change('pending', 'failed', later(2)), failure: { code: 'custodian_rejected', message: 'no' } },
        },
      ]));

  it('a repeated provisioning answer changes nothing', () =>
    given([created, provisioned])
      .when({
        type: 'CompleteProvisioning',
        projectId: 'prj_1',
        outcome: { address: '0x2222222222222222222222222222222222222222' },
        at: later(3),
      })
      .then([]));

  it('active -> frozen -> active: the custodian locks and unlocks it', () => {
    given([created, provisioned])
      .when({ type: 'FreezeDepositAddress', projectId: 'prj_1', at: later(30) })
      .then([frozen]);
    given([created, provisioned, frozen])
      .when({ type: 'UnfreezeDepositAddress', projectId: 'prj_1', at: later(40) })
      .then([{ type: 'depositAddress.unfrozen', data: change('frozen', 'active', later(40)) }]);
  });

  it('active, inactiveActionRequired or frozen -> closed; closed is final', () => {
    given([created, provisioned, frozen])
      .when({ type: 'CloseDepositAddress', projectId: 'prj_1', at: later(50) })
      .then([{ type: 'depositAddress.closed', data: change('frozen', 'closed', later(50)) }]);
    const closed: DepositAddressEvent = { type: 'depositAddress.closed', data: change('active', 'closed', later(50)) };
    given([created, provisioned, closed])
      .when({ type: 'CloseDepositAddress', projectId: 'prj_1', at: later(51) })
      .thenThrows(isError('DepositAddressTransitionNotAllowed'));
    given([created, provisioned, closed])
      .when({ type: 'UnfreezeDepositAddress', projectId: 'prj_1', at: later(51) })
      .thenThrows(isError('DepositAddressTransitionNotAllowed'));
    given([created, provisioned, closed])
      .when({ type: 'FreezeDepositAddress', projectId: 'prj_1', at: later(51) })
      .thenThrows(isError('DepositAddressTransitionNotAllowed'));
  });

  it('refuses simulations that do not apply: a pending address cannot be frozen or closed, an active one not unfrozen', () => {
    given([created])
      .when({ type: 'FreezeDepositAddress', projectId: 'prj_1', at: later(1) })
      .thenThrows(isError('DepositAddressTransitionNotAllowed'));
    given([created])
      .when({ type: 'CloseDepositAddress', projectId: 'prj_1', at: later(1) })
      .thenThrows(isError('DepositAddressTransitionNotAllowed'));
    given([created, provisioned])
      .when({ type: 'UnfreezeDepositAddress', projectId: 'prj_1', at: later(1) })
      .thenThrows(isError('DepositAddressTransitionNotAllowed'));
  });

  it("another project's address is not found", () =>
    given([created, provisioned])
      .when({ type: 'FreezeDepositAddress', projectId: 'prj_2', at: later(30) })
      .thenThrows(isError('DepositAddressNotFound')));

  it('active -> inactiveActionRequired: its destination is deleted or turns invalid; once only, and never for another account', () => {
    given([created, provisioned])
      .when({ type: 'LoseDestination', projectId: 'prj_1', externalAccountId: BANK, reason: 'deleted', at: later(60) })
      .then([lost]);
    given([created, provisioned, lost])
      .when({ type: 'LoseDestination', projectId: 'prj_1', externalAccountId: BANK, reason: 'invalid', at: later(61) })
      .then([]);
    given([created, provisioned])
      .when({
        type: 'LoseDestination',
        projectId: 'prj_1',
        externalAccountId: OTHER_BANK,
        reason: 'invalid',
        at: later(61),
      })
      .then([]);
  });

  it('a frozen or pending address keeps its status when its destination is lost, and takes up inactiveActionRequired when unfrozen or provisioned', () => {
    const lostWhileFrozen: DepositAddressEvent = {
      type: 'depositAddress.destinationLost',
      data: { ...change('frozen', 'frozen', later(35)), externalAccountId: BANK, reason: 'invalid' },
    };
    given([created, provisioned, frozen])
      .when({ type: 'LoseDestination', projectId: 'prj_1', externalAccountId: BANK, reason: 'invalid', at: later(35) })
      .then([lostWhileFrozen]);
    given([created, provisioned, frozen, lostWhileFrozen])
      .when({ type: 'UnfreezeDepositAddress', projectId: 'prj_1', at: later(40) })
      .then([{ type: 'depositAddress.unfrozen', data: change('frozen', 'inactiveActionRequired', later(40)) }]);
    const lostWhilePending: DepositAddressEvent = {
      type: 'depositAddress.destinationLost',
      data: { ...change('pending', 'pending', later(1)), externalAccountId: BANK, reason: 'deleted' },
    };
    given([created])
      .when({ type: 'LoseDestination', projectId: 'prj_1', externalAccountId: BANK, reason: 'deleted', at: later(1) })
      .then([lostWhilePending]);
    given([created, lostWhilePending])
      .when({
        type: 'CompleteProvisioning',
        projectId: 'prj_1',
        outcome: { address: INSTRUCTIONS.address },
        at: later(2),
      })
      .then([
        {
          type: 'depositAddress.provisioned',
          data: { ...change('pending', 'inactiveActionRequired', later(2)), depositInstructions: INSTRUCTIONS },
        },
      ]);
  });

  it('inactiveActionRequired -> active: a PATCH re-pointing the destination to an active account, releasing the held deposits', () => {
    const next = bankDestination(CUSTOMER, bankAccount(OTHER_BANK), payout);
    const releases = [
      {
        transactionId: 'txn_01h455vb4pex5vsknk084sn0dd',
        target: {
          destination: {
            type: 'bankUs',
            category: 'fiat',
            details: {},
            party: { relationship: 'externalUnregistered' },
          },
          payout,
          pricing: {},
        },
      },
    ] as never;
    given([created, provisioned, lost])
      .when({
        type: 'UpdateDepositAddress',
        projectId: 'prj_1',
        changes: { destination: next },
        releases,
        at: later(90),
      })
      .then([
        {
          type: 'depositAddress.updated',
          data: {
            depositAddressId: ID,
            projectId: 'prj_1',
            changedFields: ['destination'],
            destination: next,
            at: later(90),
          },
        },
        { type: 'depositAddress.reactivated', data: change('inactiveActionRequired', 'active', later(90)) },
        {
          type: 'depositAddress.destinationRestored',
          data: { depositAddressId: ID, projectId: 'prj_1', releases, at: later(90) },
        },
      ]);
  });

  it('a deposit the transactions service held for a destination the address has replaced since is released to the one it has (ADR 0056)', () => {
    const next = bankDestination(CUSTOMER, bankAccount(OTHER_BANK), payout);
    const repointed: DepositAddressEvent = {
      type: 'depositAddress.updated',
      data: {
        depositAddressId: ID,
        projectId: 'prj_1',
        changedFields: ['destination'],
        destination: next,
        at: later(90),
      },
    };
    const releases = [
      {
        transactionId: 'txn_01h455vb4pex5vsknk084sn0dd',
        target: {
          destination: {
            type: 'bankUs',
            category: 'fiat',
            details: {},
            party: { relationship: 'externalUnregistered' },
          },
          payout,
          pricing: {},
        },
      },
    ] as never;
    given([created, provisioned, repointed])
      .when({ type: 'ReleaseDeposits', projectId: 'prj_1', releases, at: later(95) })
      .then([
        {
          type: 'depositAddress.destinationRestored',
          data: { depositAddressId: ID, projectId: 'prj_1', releases, at: later(95) },
        },
      ]);
    // Its destination lost too: nothing to release to; nothing to release: nothing to say.
    given([created, provisioned, lost])
      .when({ type: 'ReleaseDeposits', projectId: 'prj_1', releases, at: later(95) })
      .then([]);
    given([created, provisioned, repointed])
      .when({ type: 'ReleaseDeposits', projectId: 'prj_1', releases: [], at: later(95) })
      .then([]);
  });

  it('a PATCH that leaves the status alone is only an update, naming what changed; one that changes nothing appends nothing', () => {
    given([created, provisioned])
      .when({
        type: 'UpdateDepositAddress',
        projectId: 'prj_1',
        changes: { label: 'Payroll', metadata: { ref: null, team: 'ops' }, returnDestination: wallet },
        releases: [],
        at: later(90),
      })
      .then([
        {
          type: 'depositAddress.updated',
          data: {
            depositAddressId: ID,
            projectId: 'prj_1',
            changedFields: ['returnDestination', 'label', 'metadata'],
            returnDestination: wallet,
            label: 'Payroll',
            metadata: { team: 'ops' },
            at: later(90),
          },
        },
      ]);
    given([created, provisioned])
      .when({
        type: 'UpdateDepositAddress',
        projectId: 'prj_1',
        changes: { destination, payout, label: null, metadata: { ref: '7' } },
        releases: [],
        at: later(90),
      })
      .then([]);
  });

  it("a PATCH of metadata null removes every key, as Stripe's empty metadata does (issue 42, item 5)", () => {
    given([created, provisioned])
      .when({
        type: 'UpdateDepositAddress',
        projectId: 'prj_1',
        changes: { metadata: null },
        releases: [],
        at: later(90),
      })
      .then([
        {
          type: 'depositAddress.updated',
          data: { depositAddressId: ID, projectId: 'prj_1', changedFields: ['metadata'], metadata: {}, at: later(90) },
        },
      ]);
  });

  it('a new rail changes the payout and the rail the destination shows', () => {
    const wire = payoutInstruction({ rail: 'wire' });
    const [updated] = depositAddressDecider.decide(
      { type: 'UpdateDepositAddress', projectId: 'prj_1', changes: { payout: wire }, releases: [], at: later(90) },
      state([created, provisioned]),
    );
    expect(updated.data).toMatchObject({ changedFields: ['payout'], payout: { rail: 'wire' } });
    expect(depositAddressView(state([created, provisioned, updated])).destination).toMatchObject({
      id: BANK,
      asset: 'usd',
      network: 'wire',
    });
  });

  it('a failed address cannot be changed', () =>
    given([
      created,
      {
        type: 'depositAddress.provisioningFailed',
        data: { ...change('pending', 'failed', later(2)), failure: { code: 'x', message: 'y' } },
      },
    ])
      .when({ type: 'UpdateDepositAddress', projectId: 'prj_1', changes: { label: 'x' }, releases: [], at: later(90) })
      .thenThrows(isError('DepositAddressTransitionNotAllowed')));
});

describe('deposit address view (spec: Deposit address, the v1 shape)', () => {
  it('pending: depositInstructions null, the optional fields absent when not set, payoutOrigin the customer', () => {
    expect(depositAddressView(state([created]))).toEqual({
      id: ID,
      object: 'depositAddress',
      customerId: CUSTOMER,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: {
        type: 'bankUs',
        id: BANK,
        asset: 'usd',
        network: 'ach',
        owner: { kind: 'customer', id: CUSTOMER, name: 'Ada Lovelace' },
        details: {
          holderName: 'Ada Lovelace',
          bankName: null,
          routingNumber: '021000021',
          accountNumberLast4: '9012',
          accountType: 'checking',
        },
      },
      payout: { rail: 'ach', secCode: 'PPD' },
      status: 'pending',
      depositInstructions: null,
      payoutOrigin: { type: 'depositAddress', id: ID, accountHolder: 'customer', accountHolderName: 'Ada Lovelace' },
      metadata: { ref: '7' },
      createdAt: AT,
      updatedAt: AT,
    });
  });

  it('shows the optional fields when set, and the hold while inactiveActionRequired', () => {
    const full = {
      ...created,
      data: {
        ...record,
        returnDestination: wallet,
        requiresCounterpartyWalletRegistration: false,
        sponsorGas: true,
        label: 'Inlet',
      },
    } as DepositAddressEvent;
    const view = depositAddressView(state([full, provisioned, lost]));
    expect(view).toMatchObject({
      returnDestination: {
        type: 'walletExternal',
        id: WALLET,
        asset: 'usdc',
        network: 'meridianchain',
        owner: { kind: 'customer', id: CUSTOMER },
      },
      returnDestinationTypes: ['walletExternal'],
      requiresCounterpartyWalletRegistration: false,
      sponsorGas: true,
      label: 'Inlet',
      status: 'inactiveActionRequired',
      hold: { code: 'payoutDestinationMissing', message: expect.any(String) },
      depositInstructions: INSTRUCTIONS,
    });
    for (const removed of ['sourceToDestination']) expect(view).not.toHaveProperty(removed);
    expect(view.destination).not.toHaveProperty('payoutOrigin');
    expect(view.depositInstructions).not.toHaveProperty('expiresAt');
  });
});

describe('deposits (ADR 0030: what becomes of a deposit)', () => {
  const SENDER = '0x8617e340b3d01fa5f11f306f4090fd50e238070d';
  const TXN = 'txn_01h455vb4pex5vsknk084sn0ee';
  const arrive = (events: DepositAddressEvent[], changes: Partial<ReceiveDeposit> = {}) =>
    receiveDeposit(fold(depositAddressDecider, events), {
      projectId: 'prj_1',
      transactionId: TXN,
      amount: '125.50',
      senderAddress: SENDER,
      txHash: '0xabc',
      registeredSender: null,
      attributionTimeoutHours: 72,
      rate: '1.00',
      at: later(100),
      ...changes,
    });
  const counterpartyWallet = bankAccount(WALLET, {
    type: 'walletExternal',
    counterpartyId: 'cpty_01h455vb4pex5vsknk084sn0ff',
    counterpartyEntityType: 'business',
    counterpartyName: 'Acme Ltd',
    details: { address: '0x8617E340B3D01FA5F11F306F4090FD50E238070D', network: 'meridianchain', asset: 'usdc' },
  });
  const registering = {
    ...created,
    data: { ...record, requiresCounterpartyWalletRegistration: true },
  } as DepositAddressEvent;

  it('an active address pays out, priced as a quote: usdc fixed on the source side, usd on the rail', () => {
    const received = arrive([created, provisioned]);
    expect(received).toEqual({
      depositAddressId: ID,
      projectId: 'prj_1',
      customerId: CUSTOMER,
      customerName: 'Ada Lovelace',
      transactionId: TXN,
      deposit: {
        asset: 'usdc',
        network: 'meridianchain',
        amount: '125.50',
        address: INSTRUCTIONS.address,
        senderAddress: SENDER,
        txHash: '0xabc',
      },
      sender: { relationship: 'externalUnregistered' },
      senderExternalAccountId: null,
      disposition: 'payout',
      target: {
        destination: {
          type: 'bankUs',
          category: 'fiat',
          details: { id: BANK, asset: 'usd', network: 'ach', accountHolder: 'customer', last4: '9012' },
          party: { relationship: 'customer', customerId: CUSTOMER, entityType: 'individual' },
        },
        payout: { rail: 'ach', secCode: 'PPD' },
        pricing: expect.objectContaining({
          pair: 'usdc/usd',
          exchangeRate: '1.00',
          fixedAmountSide: 'source',
          sponsorGas: true,
        }),
      },
      returnTo: { address: SENDER, network: 'meridianchain', externalAccountId: null, kind: 'sender' },
      attributionDeadline: null,
      metadata: { ref: '7' },
      at: later(100),
    });
    expect(received.target.pricing.source).toMatchObject({ asset: 'usdc', amountGross: '125.50', amountNet: '125.50' });
    expect(received.target.pricing.destination).toMatchObject({
      asset: 'usd',
      amountGross: '125.50',
      amountNet: '125.50',
    });
  });

  it('a frozen or closed address returns it to the sender, or to the return wallet when one is set', () => {
    expect(arrive([created, provisioned, frozen]).disposition).toBe('returnToSender');
    const closed: DepositAddressEvent = { type: 'depositAddress.closed', data: change('active', 'closed', later(50)) };
    expect(arrive([created, provisioned, closed])).toMatchObject({
      disposition: 'returnToSender',
      returnTo: { address: SENDER, externalAccountId: null, kind: 'sender' },
    });
    const withWallet = { ...created, data: { ...record, returnDestination: wallet } } as DepositAddressEvent;
    // (The return says where it goes: the transactions service checks a return destination's account before it starts.)
    expect(arrive([withWallet, provisioned, frozen]).returnTo).toEqual({
      address: '0x52908400098527886E0F7030069857D2E4169EE7',
      network: 'meridianchain',
      externalAccountId: WALLET,
      kind: 'returnDestination',
    });
  });

  it('an inactiveActionRequired address holds it for a destination, targeting the last one it had', () => {
    expect(arrive([created, provisioned, lost])).toMatchObject({
      disposition: 'payoutDestinationMissing',
      target: { destination: { details: { id: BANK } } },
    });
  });

  it("an unregistered sender on an address that requires registration is held until the project's attribution timeout; a registered one is paid", () => {
    expect(arrive([registering, provisioned])).toMatchObject({
      disposition: 'awaitingSenderAttribution',
      attributionDeadline: later(100 + 72 * 3600),
    });
    expect(arrive([registering, provisioned], { registeredSender: counterpartyWallet })).toMatchObject({
      disposition: 'payout',
      sender: {
        relationship: 'externalRegistered',
        counterpartyId: 'cpty_01h455vb4pex5vsknk084sn0ff',
        entityType: 'business',
        name: 'Acme Ltd',
      },
      senderExternalAccountId: WALLET,
      attributionDeadline: null,
    });
    // Attribution comes first: a destination restored later never pays an unattributed deposit.
    expect(arrive([registering, provisioned, lost]).disposition).toBe('awaitingSenderAttribution');
    // Without the requirement, an unregistered sender is paid.
    expect(arrive([created, provisioned]).disposition).toBe('payout');
  });

  it('the attribution pays to the destination as it is now, or holds on for one while it is lost', () => {
    const attributed = attributeSender(
      state([registering, provisioned, lost]),
      { transactionId: TXN, amount: '125.5' },
      counterpartyWallet,
      '1.00',
      later(200),
    );
    expect(attributed).toMatchObject({
      transactionId: TXN,
      externalAccountId: WALLET,
      sender: { relationship: 'externalRegistered' },
      destinationMissing: true,
    });
    expect(
      attributeSender(
        state([registering, provisioned]),
        { transactionId: TXN, amount: '125.5' },
        counterpartyWallet,
        '1.00',
        later(200),
      ).destinationMissing,
    ).toBe(false);
  });

  it('refuses a deposit to a pending or failed address, and an amount that does not pay out in whole cents', () => {
    const refused = (events: DepositAddressEvent[], changes: Partial<ReceiveDeposit> = {}) => {
      try {
        arrive(events, changes);
      } catch (error) {
        return error instanceof ApiError ? error.errorName : error;
      }
      return undefined;
    };
    expect(refused([created])).toBe('DepositAddressNotProvisioned');
    expect(
      refused([
        created,
        {
          type: 'depositAddress.provisioningFailed',
          data: { ...change('pending', 'failed', later(2)), failure: { code: 'x', message: 'y' } },
        },
      ]),
    ).toBe('DepositAddressNotProvisioned');
    expect(refused([created, provisioned], { amount: '10.005' })).toBe('InexactConversion');
    expect(refused([created, provisioned], { amount: '10.0000001' })).toBe('InvalidAmount');
    expect(refused([created, provisioned], { projectId: 'prj_2' })).toBe('DepositAddressNotFound');
    // CAD at 1.25: 10.01 usdc would be 12.5125 cad; 10.00 is 12.50.
    const cad = {
      ...created,
      data: {
        ...record,
        destination: bankDestination(
          CUSTOMER,
          bankAccount(OTHER_BANK, {
            type: 'bankCanada',
            supportedDestinations: [
              { asset: 'usd', network: 'swift' },
              { asset: 'cad', network: 'local' },
            ],
          }),
          { rail: 'local' },
        ),
        payout: { rail: 'local' },
      },
    } as DepositAddressEvent;
    expect(refused([cad, provisioned], { amount: '10.01', rate: '1.25' })).toBe('InexactConversion');
    expect(arrive([cad, provisioned], { amount: '10.00', rate: '1.25' }).target.pricing.destination).toMatchObject({
      asset: 'cad',
      amountGross: '12.50',
    });
  });

  it('orders the dispositions: returned, then held for the sender, then for a destination, then paid', () => {
    const s = state([registering, provisioned, frozen]);
    expect(dispositionOf(s, false)).toBe('returnToSender');
    expect(dispositionOf(state([registering, provisioned, lost]), false)).toBe('awaitingSenderAttribution');
    expect(dispositionOf(state([registering, provisioned, lost]), true)).toBe('payoutDestinationMissing');
    expect(dispositionOf(state([registering, provisioned]), true)).toBe('payout');
  });
});

describe('what a deposit address may name (API-CONTRACT: Deposit addresses)', () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error instanceof ApiError ? [error.errorName, error.causeText] : error;
    }
    return undefined;
  };

  it('a destination: an active bank account of the customer or its counterparty, on a rail it takes', () => {
    expect(refusal(() => bankDestination(CUSTOMER, bankAccount(BANK, { customerId: 'cst_other' }), payout))).toEqual([
      'ExternalAccountHolderMismatch',
      expect.any(String),
    ]);
    expect(
      refusal(() =>
        bankDestination(
          CUSTOMER,
          bankAccount(BANK, { status: 'invalid', failure: { code: 'account_closed', message: 'x' } }),
          payout,
        ),
      ),
    ).toEqual(['ExternalAccountNotActive', expect.stringContaining('(account_closed)')]);
    expect(refusal(() => bankDestination(CUSTOMER, bankAccount(BANK, { type: 'walletExternal' }), payout))).toEqual([
      'external_account_rail_mismatch',
      expect.any(String),
    ]);
    expect(refusal(() => bankDestination(CUSTOMER, bankAccount(BANK, { type: 'card' }), payout))).toEqual([
      'external_account_rail_mismatch',
      expect.any(String),
    ]);
    expect(refusal(() => bankDestination(CUSTOMER, bankAccount(BANK), { rail: 'swift' }))).toEqual([
      'external_account_rail_mismatch',
      expect.stringContaining('does not take swift payouts'),
    ]);
    const owned = bankDestination(
      CUSTOMER,
      bankAccount(BANK, {
        counterpartyId: 'cpty_1',
        counterpartyEntityType: 'individual',
        counterpartyName: 'Grace Hopper',
      }),
      payout,
    );
    expect(owned.instrument.owner).toEqual({ kind: 'counterparty', id: 'cpty_1', name: 'Grace Hopper' });
    expect(owned.party).toEqual({
      relationship: 'externalRegistered',
      counterpartyId: 'cpty_1',
      entityType: 'individual',
      name: 'Grace Hopper',
    });
  });

  it("ACH's optional fields on ACH rails only, in their formats", () => {
    expect(payoutInstruction({ rail: 'achSameDay', secCode: 'CCD', companyDiscretionaryData: 'INV 2030-01' })).toEqual({
      rail: 'achSameDay',
      secCode: 'CCD',
      companyDiscretionaryData: 'INV 2030-01',
    });
    expect(refusal(() => payoutInstruction({ rail: 'wire', secCode: 'PPD' }))).toEqual([
      'InvalidRequest',
      'payout.secCode applies to ACH payouts only (rail ach or achSameDay), not to wire',
    ]);
    expect(refusal(() => payoutInstruction({ rail: 'ach', secCode: 'XYZ' }))).toEqual([
      'InvalidRequest',
      expect.stringContaining('payout.secCode must be one of'),
    ]);
    expect(refusal(() => payoutInstruction({ rail: 'ach', companyDiscretionaryData: 'x'.repeat(21) }))).toEqual([
      'InvalidRequest',
      expect.stringContaining('1 to 20'),
    ]);
  });

  it('a return destination: an active walletExternal on the expected asset and network', () => {
    const ethereum = bankAccount(WALLET, {
      type: 'walletExternal',
      details: { address: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'ethereum', asset: 'usdc' },
    });
    expect(refusal(() => returnWallet(CUSTOMER, ethereum, 'usdc', 'meridianchain'))).toEqual([
      'AssetNetworkMismatch',
      expect.any(String),
    ]);
    expect(refusal(() => returnWallet(CUSTOMER, bankAccount(BANK), 'usdc', 'meridianchain'))).toEqual([
      'external_account_rail_mismatch',
      expect.any(String),
    ]);
  });
});
