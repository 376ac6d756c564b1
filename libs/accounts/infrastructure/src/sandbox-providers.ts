// Provider ports of the accounts service and their sandbox simulations:
// the custodian that provisions wallet addresses and reports balances, and the
// KYC reviewer of endorsements. Magic values (docs/sandbox.md) make the
// simulated providers fail the ways real ones do.
import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ApiError,
  BALANCE_PROVIDER_MAGIC_LAST_NAMES,
  ENDORSEMENT_REJECT_LAST_NAME,
  FIAT_UNAVAILABLE_LAST_NAME,
  SANDBOX_USD_PRICE,
} from '@mm/contracts';
import type { BalanceCustomer, BalanceWallet, CustomerRow } from './accounts-read-models.repository';
import type { BalanceReadings } from '@mm/accounts/domain';

/** A custodial wallet's address; on a chain, with the custody index it derives from (docs/chain.md). */
export interface ProvisionedAddress {
  address: string;
  derivationIndex?: number;
}

export abstract class CustodianProvider {
  /** A deposit address for a new custodial wallet (its id, for the custody registry where it is derived). */
  abstract provisionAddress(asset: string, network: string, walletId: string): Promise<ProvisionedAddress>;
  /** The customer's balances as the custodian reports them. */
  abstract readBalances(customer: BalanceCustomer, wallets: BalanceWallet[]): Promise<BalanceReadings>;
}

export abstract class KycProvider {
  abstract review(
    customer: CustomerRow,
    endorsement: string,
  ): Promise<{ approved: true } | { approved: false; reason: string }>;
}

@Injectable()
export class SandboxCustodian extends CustodianProvider {
  async provisionAddress(_asset: string, _network: string, _walletId: string): Promise<ProvisionedAddress> {
    // EVM-style: 20 bytes, hex.
    return { address: `0x${randomBytes(20).toString('hex')}` };
  }

  async readBalances(customer: BalanceCustomer, wallets: BalanceWallet[]): Promise<BalanceReadings> {
    const magic =
      BALANCE_PROVIDER_MAGIC_LAST_NAMES[customer.last_name as keyof typeof BALANCE_PROVIDER_MAGIC_LAST_NAMES];
    if (magic === 'ProviderUserAccountNotFound')
      throw new ApiError(magic, 'the custodian has no account for this customer');
    if (magic === 'Provider') throw new ApiError(magic, 'the custodian returned a balance that is not a number');
    if (magic === 'ProviderUnreachable') throw new ApiError(magic, 'the custodian did not answer');
    return {
      crypto: wallets.map((w) => ({
        asset: w.asset,
        balance: w.balance,
        usdPrice: SANDBOX_USD_PRICE[w.asset] ?? '0',
        updatedAt: new Date(w.balance_updated_at).toISOString(),
      })),
      fiatUsd: customer.last_name === FIAT_UNAVAILABLE_LAST_NAME ? undefined : [],
    };
  }
}

@Injectable()
export class SandboxKyc extends KycProvider {
  async review(customer: CustomerRow): Promise<{ approved: true } | { approved: false; reason: string }> {
    if (customer.last_name === ENDORSEMENT_REJECT_LAST_NAME)
      return { approved: false, reason: 'sandbox: identity could not be verified' };
    return { approved: true };
  }
}
