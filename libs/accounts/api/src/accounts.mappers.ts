import type { CustomerRow, WalletRow } from '@mm/accounts/infrastructure';
import { ASSET_SCALE, formatAmount } from '@mm/platform/money';
import type { CustomerResponse, WalletBalance, WalletResponse } from './accounts.dto';

export function toCustomer(row: CustomerRow): CustomerResponse {
  return {
    id: row.id,
    object: 'customer',
    type: row.type,
    firstName: row.first_name,
    lastName: row.last_name,
    email: row.email,
    endorsements: row.endorsements,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export function toWallet(row: WalletRow): WalletResponse {
  return {
    id: row.id,
    object: 'wallet',
    customerId: row.customer_id,
    asset: row.asset,
    network: row.network,
    address: row.address,
    createdAt: new Date(row.created_at).toISOString(),
  };
}

export function toWalletBalance(row: WalletRow): WalletBalance {
  return {
    walletId: row.id,
    asset: row.asset,
    network: row.network,
    balance: formatAmount(row.balance, ASSET_SCALE[row.asset] ?? 6),
    updatedAt: new Date(row.balance_updated_at).toISOString(),
  };
}
