// Spec: States / Virtual account (and the transitions the spec leaves open, ADR 0032), row by row,
// as given(events) / when(command) / then(events or error); the view of each state (the v1 shape);
// what becomes of an inbound transfer in each status.
import {
  ApiError,
  type ExternalAccountView,
  type VirtualAccountCreated,
  type VirtualAccountStatus,
  type VirtualAccountStatusChange,
} from '@mm/contracts';
import { fold, specFor } from '@mm/platform/decider';
import { receiveTransfer, type ReceiveTransfer } from './deposits';
import {
  bankDestination,
  payoutInstruction,
  returnBank,
  walletExternalDestination,
  walletOmsDestination,
} from './virtual-account-request';
import { virtualAccountView } from './virtual-account-view';
import {
  virtualAccountDecider,
  type ExistingVirtualAccount,
  type VirtualAccountEvent,
} from './virtual-account.decider';

const given = specFor(virtualAccountDecider);
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

const ID = 'va_01h455vb4pex5vsknk084sn02q';
const CUSTOMER = 'cst_01h455vb4pex5vsknk084sn02r';
const AT = '2030-01-07T10:00:00.000Z';
const later = (seconds: number) => new Date(Date.parse(AT) + seconds * 1000).toISOString();
const BANK = 'ext_01h455vb4pex5vsknk084sn0aa';
const WALLET = 'ext_01h455vb4pex5vsknk084sn0cc';

function account(id: string, changes: Partial<ExternalAccountView> = {}): ExternalAccountView {
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

const externalWallet = account(WALLET, {
  type: 'walletExternal',
  details: { address: '0x52908400098527886E0F7030069857D2E4169EE7', network: 'meridianchain', asset: 'usdc' },
  supportedDestinations: [{ asset: 'usdc', network: 'meridianchain' }],
});
const walletDestination = walletExternalDestination(CUSTOMER, externalWallet);

const record: VirtualAccountCreated = {
  virtualAccountId: ID,
  projectId: 'prj_1',
  customerId: CUSTOMER,
  customerName: 'Ada Lovelace',
  sourceNetwork: 'ach',
  destination: walletDestination,
  returnDestination: null,
  sponsorGas: null,
  label: null,
  metadata: {},
  createdAt: AT,
};
const BANK_DETAILS = {
  bankName: 'Meridian Sandbox Bank',
  accountHolderName: 'Ada Lovelace',
  accountNumber: '4815162342',
  routingNumber: '026009593',
  bic: 'MRDNUS33XXX',
};

const change = (
  previousStatus: VirtualAccountStatus,
  status: VirtualAccountStatus,
  at: string,
): VirtualAccountStatusChange => ({ virtualAccountId: ID, projectId: 'prj_1', previousStatus, status, at });
const created: VirtualAccountEvent = { type: 'virtualAccount.created', data: record };
const provisioned: VirtualAccountEvent = {
  type: 'virtualAccount.provisioned',
  data: { ...change('pending', 'active', later(2)), bankDetails: BANK_DETAILS },
};
const frozen: VirtualAccountEvent = { type: 'virtualAccount.frozen', data: change('active', 'frozen', later(10)) };
const closed: VirtualAccountEvent = { type: 'virtualAccount.closed', data: change('active', 'closed', later(10)) };
const deleting = (from: VirtualAccountStatus = 'active'): VirtualAccountEvent => ({
  type: 'virtualAccount.deletionRequested',
  data: { ...change(from, 'deleting', later(20)), deletionRequestedAt: later(20) },
});
const deleted: VirtualAccountEvent = {
  type: 'virtualAccount.deleted',
  data: { ...change('deleting', 'deleted', later(23)), by: 'bank' },
};
const failed: VirtualAccountEvent = {
  type: 'virtualAccount.provisioningFailed',
  data: { ...change('pending', 'failed', later(2)), failure: { code: 'bank_rejected', message: 'no' } },
};
const active = [created, provisioned];
const cmd = { projectId: 'prj_1' };

describe('virtual account decider (spec: States / Virtual account)', () => {
  it('(none) -> POST -> pending, virtualAccount.created; a repeat changes nothing', () => {
    given([]).when({ type: 'CreateVirtualAccount', record }).then([created]);
    given([created]).when({ type: 'CreateVirtualAccount', record }).then([]);
  });

  it('pending -> the bank opens it -> active with its bank details; the bank refuses -> failed; a late repeat changes nothing', () => {
    given([created])
      .when({ type: 'CompleteProvisioning', ...cmd, outcome: { bankDetails: BANK_DETAILS }, at: later(2) })
      .then([provisioned]);
    given([created])
      .when({
        type: 'CompleteProvisioning',
        ...cmd,
        outcome: { failure: { code: 'bank_rejected', message: 'no' } },
        at: later(2),
      })
      .then([failed]);
    given(active)
      .when({ type: 'CompleteProvisioning', ...cmd, outcome: { bankDetails: BANK_DETAILS }, at: later(3) })
      .then([]);
  });

  it('active -> freeze -> frozen -> unfreeze -> active; active or frozen -> close -> closed; other statuses refuse (422)', () => {
    given(active)
      .when({ type: 'FreezeVirtualAccount', ...cmd, at: later(10) })
      .then([frozen]);
    given([...active, frozen])
      .when({ type: 'UnfreezeVirtualAccount', ...cmd, at: later(11) })
      .then([{ type: 'virtualAccount.unfrozen', data: change('frozen', 'active', later(11)) }]);
    given(active)
      .when({ type: 'CloseVirtualAccount', ...cmd, at: later(10) })
      .then([closed]);
    given([...active, frozen])
      .when({ type: 'CloseVirtualAccount', ...cmd, at: later(11) })
      .then([{ type: 'virtualAccount.closed', data: change('frozen', 'closed', later(11)) }]);
    given([created])
      .when({ type: 'FreezeVirtualAccount', ...cmd, at: later(1) })
      .thenThrows(isError('VirtualAccountTransitionNotAllowed'));
    given(active)
      .when({ type: 'UnfreezeVirtualAccount', ...cmd, at: later(1) })
      .thenThrows(isError('VirtualAccountTransitionNotAllowed'));
    given([...active, closed])
      .when({ type: 'CloseVirtualAccount', ...cmd, at: later(11) })
      .thenThrows(isError('VirtualAccountTransitionNotAllowed'));
    given([...active, deleting()])
      .when({ type: 'FreezeVirtualAccount', ...cmd, at: later(21) })
      .thenThrows(isError('VirtualAccountTransitionNotAllowed'));
  });

  it('live status -> DELETE -> deleting with deletionRequestedAt; from active, frozen and closed', () => {
    given(active)
      .when({ type: 'RequestDeletion', ...cmd, at: later(20) })
      .then([deleting('active')]);
    given([...active, frozen])
      .when({ type: 'RequestDeletion', ...cmd, at: later(20) })
      .then([deleting('frozen')]);
    given([...active, closed])
      .when({ type: 'RequestDeletion', ...cmd, at: later(20) })
      .then([deleting('closed')]);
  });

  it('a DELETE of a pending or failed account is refused; one of a deleting or deleted account changes nothing', () => {
    given([created])
      .when({ type: 'RequestDeletion', ...cmd, at: later(1) })
      .thenThrows(isError('VirtualAccountTransitionNotAllowed'));
    given([created, failed])
      .when({ type: 'RequestDeletion', ...cmd, at: later(3) })
      .thenThrows(isError('VirtualAccountTransitionNotAllowed'));
    given([...active, deleting()])
      .when({ type: 'RequestDeletion', ...cmd, at: later(21) })
      .then([]);
    given([...active, deleting(), deleted])
      .when({ type: 'RequestDeletion', ...cmd, at: later(30) })
      .then([]);
  });

  it('deleting -> the bank closes it -> deleted (by its answer, or by the sweeper)', () => {
    given([...active, deleting()])
      .when({ type: 'CompleteDeletion', ...cmd, by: 'bank', at: later(23) })
      .then([deleted]);
    given([...active, deleting()])
      .when({ type: 'CompleteDeletion', ...cmd, by: 'sweeper', at: later(620) })
      .then([
        { type: 'virtualAccount.deleted', data: { ...change('deleting', 'deleted', later(620)), by: 'sweeper' } },
      ]);
  });

  it('deleting -> the bank cannot close it now -> the status before restored, deletionRequestedAt cleared', () => {
    const restored: VirtualAccountEvent = {
      type: 'virtualAccount.deletionRestored',
      data: { ...change('deleting', 'frozen', later(21)), reason: 'not now' },
    };
    given([...active, frozen, deleting('frozen')])
      .when({ type: 'RestoreAfterDeletion', ...cmd, reason: 'not now', at: later(21) })
      .then([restored]);
    const state = fold(virtualAccountDecider, [
      ...active,
      frozen,
      deleting('frozen'),
      restored,
    ]) as ExistingVirtualAccount;
    expect(state.status).toBe('frozen');
    expect(virtualAccountView(state)).not.toHaveProperty('deletionRequestedAt');
  });

  it('deleting -> the bank refuses the close -> failed, deletionRequestedAt kept', () => {
    const refused: VirtualAccountEvent = {
      type: 'virtualAccount.closeRefused',
      data: { ...change('deleting', 'failed', later(23)), failure: { code: 'bank_refused', message: 'no' } },
    };
    given([...active, deleting()])
      .when({ type: 'RefuseClose', ...cmd, failure: { code: 'bank_refused', message: 'no' }, at: later(23) })
      .then([refused]);
    expect(
      virtualAccountView(fold(virtualAccountDecider, [...active, deleting(), refused]) as ExistingVirtualAccount),
    ).toMatchObject({ status: 'failed', deletionRequestedAt: later(20) });
  });

  it("the bank's answers and the sweeper change nothing once the delete ended (or when none is in flight)", () => {
    for (const command of [
      { type: 'CompleteDeletion', ...cmd, by: 'sweeper', at: later(700) },
      { type: 'RefuseClose', ...cmd, failure: { code: 'x', message: 'y' }, at: later(700) },
      { type: 'RestoreAfterDeletion', ...cmd, reason: 'r', at: later(700) },
    ] as const) {
      given([...active, deleting(), deleted])
        .when(command)
        .then([]);
      given(active).when(command).then([]);
      given([]).when(command).then([]);
    }
  });

  it("another project's account is not found", () => {
    given(active)
      .when({ type: 'FreezeVirtualAccount', projectId: 'prj_2', at: later(10) })
      .thenThrows(isError('VirtualAccountNotFound'));
    given(active)
      .when({ type: 'RequestDeletion', projectId: 'prj_2', at: later(10) })
      .thenThrows(isError('VirtualAccountNotFound'));
  });

  it('PATCH: names the changed fields; a PATCH that changes nothing emits nothing; deleting, deleted and failed refuse', () => {
    const bank = bankDestination(CUSTOMER, account(BANK), payoutInstruction({ rail: 'wire' }));
    given(active)
      .when({
        type: 'UpdateVirtualAccount',
        ...cmd,
        changes: { destination: bank, label: 'Payroll', metadata: { a: '1' } },
        at: later(5),
      })
      .then([
        {
          type: 'virtualAccount.updated',
          data: {
            virtualAccountId: ID,
            projectId: 'prj_1',
            changedFields: ['destination', 'label', 'metadata'],
            destination: bank,
            label: 'Payroll',
            metadata: { a: '1' },
            at: later(5),
          },
        },
      ]);
    given(active)
      .when({
        type: 'UpdateVirtualAccount',
        ...cmd,
        changes: { destination: walletDestination, label: null, metadata: {} },
        at: later(5),
      })
      .then([]);
    // metadata null removes every key, as Stripe's empty metadata does (issue 42, item 5).
    const tagged = {
      type: 'virtualAccount.updated' as const,
      data: {
        virtualAccountId: ID,
        projectId: 'prj_1',
        changedFields: ['metadata' as const],
        metadata: { a: '1', b: '2' },
        at: later(4),
      },
    };
    given([...active, tagged])
      .when({ type: 'UpdateVirtualAccount', ...cmd, changes: { metadata: null }, at: later(5) })
      .then([
        {
          type: 'virtualAccount.updated',
          data: { virtualAccountId: ID, projectId: 'prj_1', changedFields: ['metadata'], metadata: {}, at: later(5) },
        },
      ]);
    given(active)
      .when({ type: 'UpdateVirtualAccount', ...cmd, changes: { metadata: null }, at: later(5) })
      .then([]);
    const back = returnBank(CUSTOMER, account(BANK), 'ach');
    given(active)
      .when({ type: 'UpdateVirtualAccount', ...cmd, changes: { returnDestination: back }, at: later(5) })
      .then([
        {
          type: 'virtualAccount.updated',
          data: {
            virtualAccountId: ID,
            projectId: 'prj_1',
            changedFields: ['returnDestination', 'returnPayout'],
            returnDestination: back,
            at: later(5),
          },
        },
      ]);
    for (const history of [
      [...active, deleting()],
      [...active, deleting(), deleted],
      [created, failed],
    ]) {
      given(history)
        .when({ type: 'UpdateVirtualAccount', ...cmd, changes: { label: 'x' }, at: later(40) })
        .thenThrows(isError('VirtualAccountTransitionNotAllowed'));
    }
  });

  // Issue 42 (spec: States / Transaction, "hold cleared (for example a new payout destination is set)"; ADR 0056).
  it('a PATCH giving a new destination releases the deposits waiting for one, each priced to it; one that keeps it releases none', () => {
    const bank = bankDestination(CUSTOMER, account(BANK), payoutInstruction({ rail: 'wire' }));
    const releases = [
      {
        transactionId: 'txn_01h455vb4pex5vsknk084sn0dd',
        target: {
          destination: { type: 'bankUs', category: 'fiat', details: { id: BANK }, party: { relationship: 'customer' } },
          payout: { rail: 'wire' },
          pricing: {},
        },
      },
    ] as never;
    given(active)
      .when({ type: 'UpdateVirtualAccount', ...cmd, changes: { destination: bank }, releases, at: later(5) })
      .then([
        {
          type: 'virtualAccount.updated',
          data: {
            virtualAccountId: ID,
            projectId: 'prj_1',
            changedFields: ['destination'],
            destination: bank,
            at: later(5),
          },
        },
        {
          type: 'virtualAccount.destinationRestored',
          data: { virtualAccountId: ID, projectId: 'prj_1', releases, at: later(5) },
        },
      ]);
    given(active)
      .when({
        type: 'UpdateVirtualAccount',
        ...cmd,
        changes: { destination: walletDestination, label: 'Payroll' },
        releases,
        at: later(5),
      })
      .then([
        {
          type: 'virtualAccount.updated',
          data: { virtualAccountId: ID, projectId: 'prj_1', changedFields: ['label'], label: 'Payroll', at: later(5) },
        },
      ]);
    // The account itself is as it was: no status of its own says a destination went away (spec: the statuses seen).
    const [updated, restoredEvent] = virtualAccountDecider.decide(
      { type: 'UpdateVirtualAccount', ...cmd, changes: { destination: bank }, releases, at: later(5) },
      fold(virtualAccountDecider, active),
    );
    expect(fold(virtualAccountDecider, [...active, updated, restoredEvent])).toEqual(
      fold(virtualAccountDecider, [...active, updated]),
    );
  });

  it('a deposit held for a destination the account has replaced since is released to the one it has', () => {
    const releases = [{ transactionId: 'txn_01h455vb4pex5vsknk084sn0dd', target: {} }] as never;
    given(active)
      .when({ type: 'ReleaseDeposits', ...cmd, releases, at: later(5) })
      .then([
        {
          type: 'virtualAccount.destinationRestored',
          data: { virtualAccountId: ID, projectId: 'prj_1', releases, at: later(5) },
        },
      ]);
    given(active)
      .when({ type: 'ReleaseDeposits', ...cmd, releases: [], at: later(5) })
      .then([]);
  });
});

describe('virtual account requests (the payout flow, 10240)', () => {
  it('refuses a payout rail the bank account does not take, ACH fields on a wire, with VirtualAccountPayoutUnsupported', () => {
    const wireOnly = account(BANK, { supportedDestinations: [{ asset: 'usd', network: 'wire' }] });
    expect(() => bankDestination(CUSTOMER, wireOnly, payoutInstruction({ rail: 'ach' }))).toThrow(
      expect.objectContaining({ errorName: 'VirtualAccountPayoutUnsupported' }),
    );
    expect(() => payoutInstruction({ rail: 'wire', secCode: 'PPD' })).toThrow(
      expect.objectContaining({ errorName: 'VirtualAccountPayoutUnsupported' }),
    );
    expect(() => payoutInstruction({ rail: 'ach', secCode: 'XXX' })).toThrow(
      expect.objectContaining({ errorName: 'InvalidRequest' }),
    );
    expect(() => returnBank(CUSTOMER, wireOnly, 'achSameDay')).toThrow(
      expect.objectContaining({ errorName: 'VirtualAccountPayoutUnsupported' }),
    );
  });

  it("refuses another customer's account, an inactive one, a card as a destination, a custodial wallet of another customer", () => {
    expect(() => walletExternalDestination(CUSTOMER, { ...externalWallet, customerId: 'cst_other' })).toThrow(
      expect.objectContaining({ errorName: 'ExternalAccountHolderMismatch' }),
    );
    expect(() => walletExternalDestination(CUSTOMER, { ...externalWallet, status: 'pending' })).toThrow(
      expect.objectContaining({ errorName: 'ExternalAccountNotActive' }),
    );
    expect(() => walletExternalDestination(CUSTOMER, account(BANK, { type: 'card' }))).toThrow(
      expect.objectContaining({ errorName: 'external_account_rail_mismatch' }),
    );
    expect(() =>
      bankDestination(CUSTOMER, account(BANK, { type: 'card' }), payoutInstruction({ rail: 'ach' })),
    ).toThrow(expect.objectContaining({ errorName: 'external_account_rail_mismatch' }));
    const wallet = { id: 'wlt_1', customerId: 'cst_other', asset: 'usdc', network: 'meridianchain', address: '0x1' };
    expect(() => walletOmsDestination({ id: CUSTOMER, name: 'Ada' }, wallet)).toThrow(
      expect.objectContaining({ errorName: 'WalletNotOwned' }),
    );
  });
});

describe('the v1 shape', () => {
  it('pending: bankDetails null, supportedSources naming each rail, no optional field', () => {
    const view = virtualAccountView(fold(virtualAccountDecider, [created]) as ExistingVirtualAccount);
    expect(view).toEqual({
      id: ID,
      object: 'virtualAccount',
      customerId: CUSTOMER,
      destination: {
        type: 'walletExternal',
        id: WALLET,
        asset: 'usdc',
        network: 'meridianchain',
        owner: { kind: 'customer', id: CUSTOMER, name: 'Ada Lovelace' },
        details: externalWallet.details,
      },
      accountHolder: 'customer',
      type: 'bankUs',
      status: 'pending',
      bankDetails: null,
      supportedSources: [
        { asset: 'usd', rail: 'ach' },
        { asset: 'usd', rail: 'wire' },
        { asset: 'usd', rail: 'internationalWire' },
      ],
      metadata: {},
      createdAt: AT,
      updatedAt: AT,
    });
  });

  it('a bank destination carries its payout; returnPayout with the return destination; sponsorGas only when true; empty bank fields left out', () => {
    const bank = bankDestination(CUSTOMER, account(BANK), payoutInstruction({ rail: 'ach', secCode: 'CCD' }));
    const history: VirtualAccountEvent[] = [
      {
        type: 'virtualAccount.created',
        data: {
          ...record,
          destination: bank,
          returnDestination: returnBank(CUSTOMER, account(BANK), 'wire'),
          sponsorGas: true,
          label: 'L',
        },
      },
      {
        type: 'virtualAccount.provisioned',
        data: { ...change('pending', 'active', later(2)), bankDetails: { ...BANK_DETAILS, bic: '' } },
      },
    ];
    const view = virtualAccountView(fold(virtualAccountDecider, history) as ExistingVirtualAccount);
    expect(view.destination).toMatchObject({
      type: 'bankUs',
      asset: 'usd',
      network: 'ach',
      payout: { rail: 'ach', secCode: 'CCD' },
    });
    expect(view.returnDestination).toMatchObject({ type: 'bankUs', id: BANK, network: 'wire' });
    expect(view.returnPayout).toEqual({ rail: 'wire' });
    expect(view.sponsorGas).toBe(true);
    expect(view.bankDetails).toEqual({
      bankName: 'Meridian Sandbox Bank',
      accountHolderName: 'Ada Lovelace',
      accountNumber: '4815162342',
      routingNumber: '026009593',
    });
    expect(virtualAccountView(fold(virtualAccountDecider, active) as ExistingVirtualAccount)).not.toHaveProperty(
      'sponsorGas',
    );
  });
});

describe('inbound transfers', () => {
  const transfer: ReceiveTransfer = {
    projectId: 'prj_1',
    transactionId: 'txn_01h455vb4pex5vsknk084sn0tt',
    amount: '250.50',
    rail: 'wire',
    senderName: 'ACME PAYROLL',
    reference: '20300107MRDNQF01000123',
    rate: '1.00',
    at: later(60),
  };

  it('pending or failed: refused (VirtualAccountNotProvisioned)', () => {
    expect(() => receiveTransfer(fold(virtualAccountDecider, [created]), transfer)).toThrow(
      expect.objectContaining({ errorName: 'VirtualAccountNotProvisioned' }),
    );
    expect(() => receiveTransfer(fold(virtualAccountDecider, [created, failed]), transfer)).toThrow(
      expect.objectContaining({ errorName: 'VirtualAccountNotProvisioned' }),
    );
  });

  it('active: delivered to the wallet in usdc at the rate, refunds back to the sender on the inbound rail', () => {
    expect(receiveTransfer(fold(virtualAccountDecider, active), transfer)).toEqual({
      virtualAccountId: ID,
      projectId: 'prj_1',
      customerId: CUSTOMER,
      customerName: 'Ada Lovelace',
      transactionId: transfer.transactionId,
      deposit: {
        asset: 'usd',
        rail: 'wire',
        amount: '250.50',
        senderName: 'ACME PAYROLL',
        reference: transfer.reference,
      },
      disposition: 'deliver',
      target: {
        destination: {
          type: 'walletExternal',
          category: 'crypto',
          details: {
            id: WALLET,
            asset: 'usdc',
            network: 'meridianchain',
            address: '0x52908400098527886E0F7030069857D2E4169EE7',
          },
          party: { relationship: 'customer', customerId: CUSTOMER, entityType: 'individual' },
        },
        payout: null,
        pricing: expect.objectContaining({
          source: expect.objectContaining({ asset: 'usd', amountGross: '250.50' }),
          destination: expect.objectContaining({ asset: 'usdc', amountGross: '250.50' }),
          fixedAmountSide: 'source',
        }),
      },
      returnTo: { externalAccountId: null, rail: 'wire' },
      metadata: {},
      at: later(60),
    });
  });

  it('frozen, closed, deleting, deleted: returned to the sender', () => {
    for (const history of [
      [...active, frozen],
      [...active, closed],
      [...active, deleting()],
      [...active, deleting(), deleted],
    ]) {
      expect(receiveTransfer(fold(virtualAccountDecider, history), transfer).disposition).toBe('returnToSender');
    }
  });

  it('a bank destination: its payout and usd; refunds to the return destination on its rail; bad amounts refused', () => {
    const bank = bankDestination(CUSTOMER, account(BANK), payoutInstruction({ rail: 'ach' }));
    const history: VirtualAccountEvent[] = [
      {
        type: 'virtualAccount.created',
        data: { ...record, destination: bank, returnDestination: returnBank(CUSTOMER, account(BANK), 'achSameDay') },
      },
      provisioned,
    ];
    const received = receiveTransfer(fold(virtualAccountDecider, history), { ...transfer, rate: '1' });
    expect(received.target.payout).toEqual({ rail: 'ach' });
    expect(received.target.destination).toMatchObject({
      type: 'bankUs',
      category: 'fiat',
      details: { id: BANK, asset: 'usd', network: 'ach', accountHolder: 'customer', last4: '9012' },
    });
    expect(received.target.pricing.destination).toMatchObject({ asset: 'usd', amountGross: '250.50' });
    expect(received.returnTo).toEqual({ externalAccountId: BANK, rail: 'achSameDay' });
    for (const amount of ['0', '1.001', '-5', 'ten'])
      expect(() => receiveTransfer(fold(virtualAccountDecider, history), { ...transfer, amount })).toThrow(
        expect.objectContaining({ errorName: 'InvalidAmount' }),
      );
  });
});
