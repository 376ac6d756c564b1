// The endorsement a quote needs (docs/endorsements.md): by its corridor and the currency of its fiat side.
import type { QuoteSideRecord } from '@mm/contracts';
import { quoteEndorsement } from './instruments';

const side = (type: string) => ({ type }) as QuoteSideRecord;

describe('the endorsement a quote needs', () => {
  it.each([
    ['a cash pickup', 'cryptoToCash', 'cash', 'usd', { name: 'usd', operation: 'a cash pickup' }],
    ['a card buy', 'fiatAccountToCrypto', 'walletOms', 'usdc', { name: 'usd', operation: 'a card buy' }],
    ['a card sell', 'cryptoToFiatAccount', 'card', 'usd', { name: 'usd', operation: 'a card sell' }],
    ['a USD bank payout', 'cryptoToFiatAccount', 'bankUs', 'usd', { name: 'usd', operation: 'a USD bank payout' }],
    [
      'a USD payout over SWIFT to a Canadian account',
      'cryptoToFiatAccount',
      'bankCanada',
      'usd',
      { name: 'usd', operation: 'a USD bank payout' },
    ],
    [
      'a CAD payout on the Canadian local rail',
      'cryptoToFiatAccount',
      'bankCanada',
      'cad',
      { name: 'basic', operation: 'a CAD bank payout' },
    ],
    ['crypto to a wallet', 'cryptoToCrypto', 'walletOms', 'usdc', undefined],
    ['crypto to an external wallet', 'cryptoToCrypto', 'walletExternal', 'usdc', undefined],
  ] as const)('%s', (_, sourceToDestination, destination, destinationAsset, expected) => {
    expect(quoteEndorsement({ sourceToDestination, destination: side(destination), destinationAsset })).toEqual(
      expected,
    );
  });
});
