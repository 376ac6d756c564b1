// Spec: Quote (card buys and sells); Errors, the card validation row: a card quote's
// source is a custodial wallet named by id, or the card; never a raw address.
import { ApiError } from '@mm/contracts';
import { planQuote, type QuoteInput } from './instruments';

const errorOf = (run: () => unknown): string | undefined => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return (error as ApiError).errorName;
  }
  return undefined;
};

const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const card = { type: 'card', details: { externalAccountId: 'ext_card' } };
const sell = (source: QuoteInput['source']['details']): QuoteInput => ({
  customerId: 'cst_1',
  source: { type: 'walletOms', details: source, amount: '10.00' },
  destination: card,
});
const buy = (source: QuoteInput['source']['details']): QuoteInput => ({
  customerId: 'cst_1',
  source: { type: 'card', details: source, amount: '10.00' },
  destination: { type: 'walletOms', details: { id: 'wlt_1' } },
});

describe('the card rules of a quote', () => {
  it('refuses a card sell whose source names a raw address, with or without the wallet id', () => {
    expect(errorOf(() => planQuote(sell({ address: ADDRESS })))).toBe('source_wallet_address_not_allowed');
    expect(errorOf(() => planQuote(sell({ id: 'wlt_1', address: ADDRESS })))).toBe('source_wallet_address_not_allowed');
    expect(
      errorOf(() =>
        planQuote({
          ...sell({ address: ADDRESS }),
          source: { type: 'walletCrypto', details: { address: ADDRESS }, amount: '1' },
        }),
      ),
    ).toBe('source_wallet_address_not_allowed');
  });

  it('refuses a card buy whose source names a raw address', () => {
    expect(errorOf(() => planQuote(buy({ externalAccountId: 'ext_card', address: ADDRESS })))).toBe(
      'source_wallet_address_not_allowed',
    );
  });

  it('still plans a card sell from a wallet named by id, and still asks for that id', () => {
    expect(planQuote(sell({ id: 'wlt_1' }))).toEqual({
      kind: 'cardSell',
      sourceWalletId: 'wlt_1',
      destinationAccountId: 'ext_card',
      settlementType: 'internal',
    });
    expect(errorOf(() => planQuote(sell({})))).toBe('InvalidRequest');
  });

  it('keeps a raw source address an ordinary bad request outside card quotes', () => {
    const toWallet: QuoteInput = {
      customerId: 'cst_1',
      source: { type: 'walletOms', details: { address: ADDRESS }, amount: '1' },
      destination: { type: 'walletOms', details: { id: 'wlt_2' } },
    };
    expect(errorOf(() => planQuote(toWallet))).toBe('InvalidRequest');
  });
});
