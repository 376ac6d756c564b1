import { ApiError } from '@mm/contracts';
import { specFor } from '@mm/platform/decider';
import { dec, sum } from '@mm/platform/money';
import { walletDecider, type WalletEvent } from './wallet.decider';

const given = specFor(walletDecider);
const at = '2026-01-01T00:00:00.000Z';
const provisioned: WalletEvent = {
  type: 'wallet.provisioned',
  data: {
    walletId: 'wlt_1',
    projectId: 'prj_1',
    customerId: 'cst_1',
    asset: 'usdc',
    network: 'meridianchain',
    address: '0xabc',
    createdAt: at,
  },
};
const credit = {
  type: 'CreditWallet' as const,
  postingId: 'pst_1',
  amount: '25.50',
  counterAccount: 'sandbox-funding:usdc:meridianchain',
  reason: 'sandbox funding',
  at,
};
const credited: WalletEvent = {
  type: 'wallet.credited',
  data: {
    walletId: 'wlt_1',
    projectId: 'prj_1',
    postingId: 'pst_1',
    amount: '25.5',
    balance: '25.5',
    entries: [
      { account: 'wallet:wlt_1', amount: '25.5' },
      { account: 'sandbox-funding:usdc:meridianchain', amount: '-25.5' },
    ],
    reason: 'sandbox funding',
    at,
  },
};
const isError = (name: string) => (e: unknown) => e instanceof ApiError && e.errorName === name;

describe('wallet decider', () => {
  it('credits with a balanced double-entry posting', () => {
    given([provisioned]).when(credit).then([credited]);
    const entries = (credited.data as { entries: Array<{ amount: string }> }).entries;
    expect(sum(entries.map((e) => e.amount)).isZero()).toBe(true);
  });

  it('applies a posting once', () => given([provisioned, credited]).when(credit).then([]));

  it('refuses a debit below zero', () =>
    given([provisioned, credited])
      .when({ type: 'DebitWallet', postingId: 'pst_2', amount: '25.51', counterAccount: 'x', reason: 'payout', at })
      .thenThrows(isError('InsufficientFunds')));

  it('debits down to exactly zero', () =>
    given([provisioned, credited])
      .when({ type: 'DebitWallet', postingId: 'pst_2', amount: '25.5', counterAccount: 'x', reason: 'payout', at })
      .then([
        {
          type: 'wallet.debited',
          data: {
            walletId: 'wlt_1',
            projectId: 'prj_1',
            postingId: 'pst_2',
            amount: '25.5',
            balance: '0',
            entries: [
              { account: 'wallet:wlt_1', amount: '-25.5' },
              { account: 'x', amount: '25.5' },
            ],
            reason: 'payout',
            at,
          },
        },
      ]));

  it('refuses a zero amount', () =>
    given([provisioned])
      .when({ ...credit, amount: '0' })
      .thenThrows(isError('InvalidAmount')));

  it('refuses to move money on a wallet that does not exist', () =>
    given([]).when(credit).thenThrows(isError('WalletNotFound')));

  it('keeps decimal precision across many small credits', () => {
    const events: WalletEvent[] = [provisioned];
    let balance = '0';
    for (let i = 0; i < 10; i++) {
      const [e] = walletDecider.decide(
        { ...credit, postingId: `pst_${i}`, amount: '0.1' },
        events.reduce(walletDecider.evolve, walletDecider.initialState()),
      );
      events.push(e);
      balance = (e.data as { balance: string }).balance;
    }
    expect(dec(balance).eq(1)).toBe(true);
  });
});
