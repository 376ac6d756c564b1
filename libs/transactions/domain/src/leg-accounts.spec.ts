// Issue 17: which external accounts a leg needs usable when its rail answers, and the failure of a
// leg whose account was invalidated or deleted after its quote was accepted.
import type { QuoteSideRecord, TransactionCreated } from '@mm/contracts';
import { legAccounts, unusableAccountFailure } from './leg-accounts';

const customer = { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' } as const;
const side = (type: string, details: Record<string, unknown>): QuoteSideRecord => ({ type, category: type === 'walletOms' || type === 'walletExternal' ? 'crypto' : 'fiat', details, party: customer });
const wallet = side('walletOms', { id: 'wlt_1', asset: 'usdc', network: 'meridianchain' });
const bank = side('bankUs', { id: 'ext_bank', asset: 'usd', network: 'ach' });
const card = side('card', { externalAccountId: 'ext_card', asset: 'usd', network: 'card' });
const external = side('walletExternal', { id: 'ext_wallet', asset: 'usdc', network: 'ethereum' });

function record(source: QuoteSideRecord, destination: QuoteSideRecord, precursor: TransactionCreated['precursor'] = { type: 'quote', id: 'qt_1' }): TransactionCreated {
  return { source, destination, precursor } as TransactionCreated;
}

describe('legAccounts', () => {
  it('a payout needs its destination account: a bank account, an external wallet, a card', () => {
    expect(legAccounts(record(wallet, bank), { kind: 'payout' })).toEqual([{ side: 'destination', id: 'ext_bank' }]);
    expect(legAccounts(record(wallet, external), { kind: 'payout' })).toEqual([{ side: 'destination', id: 'ext_wallet' }]);
    expect(legAccounts(record(wallet, card), { kind: 'payout' })).toEqual([{ side: 'destination', id: 'ext_card' }]);
  });

  it('a custodial wallet destination needs none', () => {
    expect(legAccounts(record(wallet, wallet), { kind: 'payout' })).toEqual([]);
  });

  it('a card buy\'s charge needs the card and an external wallet it delivers to', () => {
    expect(legAccounts(record(card, wallet), { kind: 'deposit' })).toEqual([{ side: 'source', id: 'ext_card' }]);
    expect(legAccounts(record(card, external), { kind: 'deposit' })).toEqual([
      { side: 'source', id: 'ext_card' },
      { side: 'destination', id: 'ext_wallet' },
    ]);
  });

  it('a refund needs nothing, and only a quote\'s transactions are checked', () => {
    expect(legAccounts(record(wallet, bank), { kind: 'refund' })).toEqual([]);
    expect(legAccounts(record(side('cash', { asset: 'usd', network: 'cash' }), external, { type: 'cashIn', id: 'ci_1' }), { kind: 'payout' })).toEqual([]);
  });
});

describe('unusableAccountFailure', () => {
  const destination = { side: 'destination', id: 'ext_bank' } as const;

  it('none while the account is active', () => {
    expect(unusableAccountFailure({ kind: 'payout' }, destination, { status: 'active', failure: null })).toBeUndefined();
  });

  it('an invalidated account: externalAccountInvalid, naming the provider\'s code', () => {
    expect(unusableAccountFailure({ kind: 'payout' }, destination, { status: 'invalid', failure: { code: 'account_closed', message: 'closed' } })).toEqual({
      code: 'externalAccountInvalid',
      message: 'The destination external account ext_bank became invalid (account_closed) before the payout settled; nothing was paid to it.',
    });
  });

  it('a deleted account: externalAccountDeleted; a card buy\'s card is not charged', () => {
    expect(unusableAccountFailure({ kind: 'payout' }, destination, 'deleted')).toEqual({
      code: 'externalAccountDeleted',
      message: 'The destination external account ext_bank was deleted before the payout settled; nothing was paid to it.',
    });
    expect(unusableAccountFailure({ kind: 'deposit' }, { side: 'source', id: 'ext_card' }, 'deleted')).toEqual({
      code: 'externalAccountDeleted',
      message: 'The card ext_card was deleted before the card was charged; nothing was charged.',
    });
  });
});
