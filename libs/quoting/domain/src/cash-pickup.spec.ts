// Spec: Limits / Cash pickup (cash-out); Resources / Quote (cash destination details).
import { ApiError } from '@mm/contracts';
import {
  cashPickupWindows,
  checkCashPickupAmount,
  checkCashPickupUsage,
  checkPickupLocation,
  dailyCashPickupCap,
  type CashPickupLocation,
} from './cash-pickup';
import { buildSides, planQuote, type QuoteInput } from './instruments';

const refusedWith = (name: string, run: () => void) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).errorName).toBe(name);
    return;
  }
  throw new Error(`expected ${name}, nothing was thrown`);
};
const none = { day: '0', month: '0' };

describe('cash pickup limits', () => {
  it('takes multiples of $20.00 from $20.00 to $400.00', () => {
    for (const ok of ['20', '20.00', '40.00', '380.00', '400.00', '400'])
      expect(() => checkCashPickupAmount(ok)).not.toThrow();
  });

  it('names the first rule an amount breaks: minimum, then maximum, then the increment', () => {
    refusedWith('CashPickupBelowMinimum', () => checkCashPickupAmount('19.99'));
    refusedWith('CashPickupBelowMinimum', () => checkCashPickupAmount('0.01'));
    refusedWith('CashPickupAboveMaximum', () => checkCashPickupAmount('400.01'));
    refusedWith('CashPickupAboveMaximum', () => checkCashPickupAmount('420.00'));
    refusedWith('CashPickupIncrement', () => checkCashPickupAmount('20.01'));
    refusedWith('CashPickupIncrement', () => checkCashPickupAmount('30.00'));
    refusedWith('CashPickupIncrement', () => checkCashPickupAmount('399.99'));
  });

  it('caps the day at $1,000.00 in California and New Mexico, $2,000.00 in every other state', () => {
    expect(dailyCashPickupCap('CA')).toBe('1000.00');
    expect(dailyCashPickupCap('NM')).toBe('1000.00');
    expect(dailyCashPickupCap('TX')).toBe('2000.00');
    expect(dailyCashPickupCap('NY')).toBe('2000.00');
  });

  it('lets a day reach its cap exactly, and not one $20 more', () => {
    expect(() => checkCashPickupUsage('200.00', 'CA', { day: '800.00', month: '800.00' })).not.toThrow();
    refusedWith('CashPickupDailyLimitExceeded', () =>
      checkCashPickupUsage('20.00', 'CA', { day: '1000.00', month: '1000.00' }),
    );
    refusedWith('CashPickupDailyLimitExceeded', () =>
      checkCashPickupUsage('220.00', 'NM', { day: '800.00', month: '800.00' }),
    );
    expect(() => checkCashPickupUsage('400.00', 'TX', { day: '1600.00', month: '1600.00' })).not.toThrow();
    refusedWith('CashPickupDailyLimitExceeded', () =>
      checkCashPickupUsage('20.00', 'TX', { day: '2000.00', month: '2000.00' }),
    );
  });

  it("counts the whole day against this pickup's location: $1,500 in Texas leaves nothing for California", () => {
    expect(() => checkCashPickupUsage('400.00', 'TX', { day: '1500.00', month: '1500.00' })).not.toThrow();
    refusedWith('CashPickupDailyLimitExceeded', () =>
      checkCashPickupUsage('20.00', 'CA', { day: '1500.00', month: '1500.00' }),
    );
  });

  it('lets a month reach $60,000.00 exactly, and not one $20 more', () => {
    expect(() => checkCashPickupUsage('400.00', 'TX', { day: '0', month: '59600.00' })).not.toThrow();
    refusedWith('CashPickupMonthlyLimitExceeded', () =>
      checkCashPickupUsage('20.00', 'TX', { day: '0', month: '60000.00' }),
    );
    expect(() => checkCashPickupUsage('20.00', 'TX', none)).not.toThrow();
  });

  it('windows are the UTC day and the UTC calendar month', () => {
    expect(cashPickupWindows('2026-12-31T23:59:59.999Z')).toEqual({
      dayStart: '2026-12-31T00:00:00.000Z',
      dayEnd: '2027-01-01T00:00:00.000Z',
      monthStart: '2026-12-01T00:00:00.000Z',
      monthEnd: '2027-01-01T00:00:00.000Z',
    });
    expect(cashPickupWindows('2028-02-29T00:00:00.000Z')).toMatchObject({
      dayEnd: '2028-03-01T00:00:00.000Z',
      monthStart: '2028-02-01T00:00:00.000Z',
    });
  });
});

describe('a cash destination', () => {
  const houston: CashPickupLocation = {
    locId: 'loc_01m846c3h5e06945kk49eh66ba',
    cashLocationReference: 'BIGMART-1006',
    name: 'BigMart Supercenter #1006',
    provider: 'bigmart',
    state: 'TX',
    flows: ['cash_in', 'cash_out'],
  };
  const cashInOnly: CashPickupLocation = {
    ...houston,
    locId: 'loc_2',
    cashLocationReference: 'BIGMART-1003',
    flows: ['cash_in'],
  };
  const input = (details: Record<string, string>, extra: Partial<QuoteInput> = {}): QuoteInput => ({
    customerId: 'cst_1',
    source: { type: 'walletOms', details: { id: 'wlt_1' } },
    destination: {
      type: 'cash',
      details: { cashLocationId: houston.locId, cashLocationReference: houston.cashLocationReference, ...details },
      amount: '100.00',
    },
    ...extra,
  });

  it("is a cryptoToCash quote from a custodial wallet, named by the location's id and reference", () => {
    const plan = planQuote(input({ asset: 'usd' }));
    expect(plan).toEqual({
      kind: 'cashPickup',
      sourceWalletId: 'wlt_1',
      cashLocation: { id: houston.locId, reference: 'BIGMART-1006' },
      settlementType: null,
    });
    const sides = buildSides(input({}), plan, {
      sourceWallet: { id: 'wlt_1', customerId: 'cst_1', asset: 'usdc', network: 'meridianchain', address: '0x0' },
      cashLocation: houston,
    });
    expect(sides).toMatchObject({
      sourceToDestination: 'cryptoToCash',
      sourceAsset: 'usdc',
      destinationAsset: 'usd',
      destination: {
        type: 'cash',
        category: 'cash',
        details: {
          asset: 'usd',
          network: 'cash',
          cashLocationId: houston.locId,
          cashLocationReference: 'BIGMART-1006',
          locationState: 'TX',
          locationProvider: 'bigmart',
        },
        amount: '100.00',
        party: { relationship: 'customer', customerId: 'cst_1' },
      },
    });
  });

  it('refuses what a cash destination cannot be', () => {
    refusedWith('InvalidRequest', () => planQuote(input({ cashLocationId: '' })));
    refusedWith('InvalidRequest', () => planQuote(input({ cashLocationReference: '' })));
    refusedWith('InvalidRequest', () => planQuote(input({ id: 'ext_1' })));
    refusedWith('AssetNetworkMismatch', () => planQuote(input({ asset: 'usdc' })));
    refusedWith('AssetNetworkMismatch', () => planQuote(input({ network: 'ach' })));
    refusedWith('InvalidRequest', () => planQuote(input({}, { settlementType: 'internal' })));
    refusedWith('UnsupportedCorridor', () =>
      planQuote(input({}, { source: { type: 'card', details: { externalAccountId: 'ext_1' } } })),
    );
  });

  it('needs a known location with that reference that pays out cash', () => {
    expect(checkPickupLocation(houston, houston.locId, 'BIGMART-1006')).toBe(houston);
    refusedWith('CashLocationNotFound', () => checkPickupLocation(undefined, 'loc_x', 'X'));
    refusedWith('CashLocationReferenceMismatch', () => checkPickupLocation(houston, houston.locId, 'BIGMART-1001'));
    refusedWith('CashLocationFlowUnsupported', () => checkPickupLocation(cashInOnly, cashInOnly.locId, 'BIGMART-1003'));
  });
});
