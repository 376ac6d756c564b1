// Issues 17 and 42: which external accounts a leg needs usable when it starts or its rail answers, and the
// failure of a leg whose account was invalidated or deleted after its quote was accepted or its deposit made.
import type { QuoteSideRecord, TransactionCreated } from '@mm/contracts';
import {
  isUnusableAccountFailure,
  legAccounts,
  returnDestinationId,
  sentBackToSender,
  unusableAccountFailure,
} from './leg-accounts';

const customer = { relationship: 'customer', customerId: 'cst_1', entityType: 'individual' } as const;
const side = (type: string, details: Record<string, unknown>): QuoteSideRecord => ({
  type,
  category: type === 'walletOms' || type === 'walletExternal' ? 'crypto' : 'fiat',
  details,
  party: customer,
});
const wallet = side('walletOms', { id: 'wlt_1', asset: 'usdc', network: 'meridianchain' });
const bank = side('bankUs', { id: 'ext_bank', asset: 'usd', network: 'ach' });
const card = side('card', { externalAccountId: 'ext_card', asset: 'usd', network: 'card' });
const external = side('walletExternal', { id: 'ext_wallet', asset: 'usdc', network: 'ethereum' });

function record(
  source: QuoteSideRecord,
  destination: QuoteSideRecord,
  precursor: TransactionCreated['precursor'] = { type: 'quote', id: 'qt_1' },
  returnTo?: TransactionCreated['returnTo'],
): TransactionCreated {
  return { source, destination, precursor, ...(returnTo ? { returnTo } : {}) } as TransactionCreated;
}
const inbound = side('virtualAccount', { id: 'va_1', asset: 'usd', network: 'wire', reference: 'IMAD1' });
const sender = side('walletExternal', { id: 'ext_sender', asset: 'usdc', network: 'ethereum', address: '0xsender' });
const toReturnBank = {
  address: null,
  network: 'ach',
  externalAccountId: 'ext_ret',
  kind: 'returnDestination',
} as const;

describe('legAccounts', () => {
  it('a payout needs its destination account: a bank account, an external wallet, a card', () => {
    expect(legAccounts(record(wallet, bank), { kind: 'payout' })).toEqual([{ side: 'destination', id: 'ext_bank' }]);
    expect(legAccounts(record(wallet, external), { kind: 'payout' })).toEqual([
      { side: 'destination', id: 'ext_wallet' },
    ]);
    expect(legAccounts(record(wallet, card), { kind: 'payout' })).toEqual([{ side: 'destination', id: 'ext_card' }]);
  });

  it('a custodial wallet destination needs none', () => {
    expect(legAccounts(record(wallet, wallet), { kind: 'payout' })).toEqual([]);
  });

  it("a card buy's charge needs the card and an external wallet it delivers to", () => {
    expect(legAccounts(record(card, wallet), { kind: 'deposit' })).toEqual([{ side: 'source', id: 'ext_card' }]);
    expect(legAccounts(record(card, external), { kind: 'deposit' })).toEqual([
      { side: 'source', id: 'ext_card' },
      { side: 'destination', id: 'ext_wallet' },
    ]);
  });

  it("a refund needs nothing, and only a quote's transactions are checked", () => {
    expect(legAccounts(record(wallet, bank), { kind: 'refund' })).toEqual([]);
    expect(
      legAccounts(record(side('cash', { asset: 'usd', network: 'cash' }), external, { type: 'cashIn', id: 'ci_1' }), {
        kind: 'payout',
      }),
    ).toEqual([]);
  });
});

describe('legAccounts of a deposit (issue 42)', () => {
  const va = (returnTo?: TransactionCreated['returnTo']) =>
    record(inbound, bank, { type: 'virtualAccount', id: 'va_1' }, returnTo);
  const da = (returnTo: TransactionCreated['returnTo']) =>
    record(sender, bank, { type: 'depositAddress', id: 'da_1' }, returnTo);

  it("a virtual account's delivery needs its destination: a bank account, an external wallet; a custodial wallet none", () => {
    expect(legAccounts(va(), { kind: 'payout' })).toEqual([{ side: 'destination', id: 'ext_bank' }]);
    expect(legAccounts(record(inbound, external, { type: 'virtualAccount', id: 'va_1' }), { kind: 'payout' })).toEqual([
      { side: 'destination', id: 'ext_wallet' },
    ]);
    expect(legAccounts(record(inbound, wallet, { type: 'virtualAccount', id: 'va_1' }), { kind: 'payout' })).toEqual(
      [],
    );
    expect(legAccounts(va(), { kind: 'deposit' })).toEqual([]);
  });

  it("a deposit's refund needs its return destination; one going back to the sender needs none", () => {
    expect(legAccounts(va(toReturnBank), { kind: 'refund' })).toEqual([{ side: 'returnDestination', id: 'ext_ret' }]);
    expect(
      legAccounts(va({ address: null, network: 'wire', externalAccountId: null, kind: 'sender' }), { kind: 'refund' }),
    ).toEqual([]);
    expect(
      legAccounts(
        da({ address: '0xret', network: 'ethereum', externalAccountId: 'ext_ret', kind: 'returnDestination' }),
        { kind: 'refund' },
      ),
    ).toEqual([{ side: 'returnDestination', id: 'ext_ret' }]);
    // A registered sender's own wallet is where the money came from, not a return destination.
    expect(
      legAccounts(da({ address: '0xsender', network: 'ethereum', externalAccountId: 'ext_sender', kind: 'sender' }), {
        kind: 'refund',
      }),
    ).toEqual([]);
  });

  it("a return recorded before it said where it goes: an account other than the sender's own is a return destination", () => {
    expect(returnDestinationId(da({ address: '0xret', network: 'ethereum', externalAccountId: 'ext_ret' }))).toBe(
      'ext_ret',
    );
    expect(
      returnDestinationId(da({ address: '0xsender', network: 'ethereum', externalAccountId: 'ext_sender' })),
    ).toBeUndefined();
    expect(returnDestinationId(va({ address: null, network: 'ach', externalAccountId: 'ext_ret' }))).toBe('ext_ret');
    expect(returnDestinationId(va({ address: null, network: 'ach', externalAccountId: null }))).toBeUndefined();
  });

  it('an operator sends a refund back to the sender: on the rail a transfer came by, or to the sending address', () => {
    expect(sentBackToSender(va(toReturnBank)).returnTo).toEqual({
      address: null,
      network: 'wire',
      externalAccountId: null,
      kind: 'sender',
    });
    expect(
      sentBackToSender(
        da({ address: '0xret', network: 'ethereum', externalAccountId: 'ext_ret', kind: 'returnDestination' }),
      ).returnTo,
    ).toEqual({
      address: '0xsender',
      network: 'ethereum',
      externalAccountId: 'ext_sender',
      kind: 'sender',
    });
  });
});

describe('unusableAccountFailure', () => {
  const destination = { side: 'destination', id: 'ext_bank' } as const;

  it('none while the account is active', () => {
    expect(
      unusableAccountFailure({ kind: 'payout' }, destination, { status: 'active', failure: null }),
    ).toBeUndefined();
  });

  it("an invalidated account: externalAccountInvalid, naming the provider's code", () => {
    expect(
      unusableAccountFailure({ kind: 'payout' }, destination, {
        status: 'invalid',
        failure: { code: 'account_closed', message: 'closed' },
      }),
    ).toEqual({
      code: 'externalAccountInvalid',
      message:
        'The destination external account ext_bank became invalid (account_closed) before the payout settled; nothing was paid to it.',
    });
  });

  it("a deleted account: externalAccountDeleted; a card buy's card is not charged", () => {
    expect(unusableAccountFailure({ kind: 'payout' }, destination, 'deleted')).toEqual({
      code: 'externalAccountDeleted',
      message:
        'The destination external account ext_bank was deleted before the payout settled; nothing was paid to it.',
    });
    expect(unusableAccountFailure({ kind: 'deposit' }, { side: 'source', id: 'ext_card' }, 'deleted')).toEqual({
      code: 'externalAccountDeleted',
      message: 'The card ext_card was deleted before the card was charged; nothing was charged.',
    });
  });

  it('a payout about to start, and a refund, say so; both are failures of an unusable account', () => {
    const payout = unusableAccountFailure({ kind: 'payout' }, destination, 'deleted', 'start');
    expect(payout?.message).toBe(
      'The destination external account ext_bank was deleted before the payout started; nothing was paid to it.',
    );
    const refund = unusableAccountFailure(
      { kind: 'refund' },
      { side: 'returnDestination', id: 'ext_ret' },
      { status: 'invalid', failure: { code: 'account_closed', message: 'closed' } },
      'start',
    );
    expect(refund).toEqual({
      code: 'externalAccountInvalid',
      message:
        'The return destination external account ext_ret became invalid (account_closed) before the refund started; nothing was sent to it.',
    });
    expect([payout, refund].every(isUnusableAccountFailure)).toBe(true);
    expect(isUnusableAccountFailure({ code: 'providerError' })).toBe(false);
  });
});
