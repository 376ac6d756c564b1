import { customerBalance } from './customer-balance';

const at1 = '2026-03-01T10:00:00.000Z';
const at2 = '2026-03-01T11:00:00.000Z';

describe('customer balance (spec: Customer balance)', () => {
  it('sums custodial crypto at the custodian USD estimate, with 2 decimals', () => {
    const b = customerBalance(
      'cst_1',
      {
        crypto: [
          { asset: 'usdc', balance: '10.505', usdPrice: '1.00', updatedAt: at1 },
          { asset: 'usdc', balance: '4.5', usdPrice: '1.00', updatedAt: at2 },
        ],
        fiatUsd: [],
      },
      'USD',
      '1',
    );
    expect(b).toEqual({
      customerId: 'cst_1',
      estimatedBalanceValue: '15.00',
      estimatedBalanceCurrencyCode: 'USD',
      updatedAt: at2,
      totalBalance: { totalUsd: '15.00', fiatUsd: '0.00', cryptoUsd: '15.00' },
    });
  });

  it('keeps the sign of a negative fiat balance', () => {
    const b = customerBalance(
      'cst_1',
      {
        crypto: [{ asset: 'usdc', balance: '5', usdPrice: '1.00', updatedAt: at1 }],
        fiatUsd: [{ balance: '-12.5', updatedAt: at1 }],
      },
      'USD',
      '1',
    );
    expect(b.totalBalance).toEqual({ totalUsd: '-7.50', fiatUsd: '-12.50', cryptoUsd: '5.00' });
  });

  it('reports 0.00 crypto and omits updatedAt when the customer has no custodial account', () => {
    const b = customerBalance('cst_1', { crypto: [], fiatUsd: [] }, 'USD', '1');
    expect(b).toEqual({
      customerId: 'cst_1',
      estimatedBalanceValue: '0.00',
      estimatedBalanceCurrencyCode: 'USD',
      totalBalance: { totalUsd: '0.00', fiatUsd: '0.00', cryptoUsd: '0.00' },
    });
    expect('updatedAt' in b).toBe(false);
  });

  it('omits totalBalance entirely when a component could not be read', () => {
    const b = customerBalance(
      'cst_1',
      { crypto: [{ asset: 'usdc', balance: '5', usdPrice: '1.00', updatedAt: at1 }] },
      'USD',
      '1',
    );
    expect('totalBalance' in b).toBe(false);
    expect(b.estimatedBalanceValue).toBe('5.00');
  });

  it('omits totalBalance when read in another currency and converts the estimate', () => {
    const b = customerBalance(
      'cst_1',
      { crypto: [{ asset: 'usdc', balance: '10', usdPrice: '1.00', updatedAt: at1 }], fiatUsd: [] },
      'CAD',
      '1.37',
    );
    expect(b.estimatedBalanceValue).toBe('13.70');
    expect(b.estimatedBalanceCurrencyCode).toBe('CAD');
    expect('totalBalance' in b).toBe(false);
  });
});
