// Reads of deposit addresses (spec: Deposit address; API-CONTRACT: Deposit addresses): the read model as of
// each address's last event, scoped to the project asking (another project's id answers 404).
import { Injectable } from '@nestjs/common';
import { ApiError, requireCustomerId } from '@mm/contracts';
import type { DepositAddressView } from '@mm/deposit-addresses/domain';
import { DepositAddressesReadModel, DepositPrices, type DepositAddressRow } from '@mm/deposit-addresses/infrastructure';
import { isId } from '@mm/platform/ids';

@Injectable()
export class DepositAddressQueries {
  constructor(private readonly readModel: DepositAddressesReadModel) {}

  async require(projectId: string, id: string): Promise<DepositAddressView> {
    return (await this.row(projectId, id)).view;
  }

  async list(
    projectId: string,
    customerId: string | undefined,
    before: string | undefined,
    limit: number,
  ): Promise<DepositAddressView[]> {
    if (customerId !== undefined) requireCustomerId(customerId);
    return (await this.readModel.list(projectId, customerId, before, limit)).map((r) => r.view);
  }

  /** The address's row: 400 for what is no address id, 404 for one this project does not have. */
  async row(projectId: string, id: string): Promise<DepositAddressRow> {
    requireDepositAddressId(id);
    const row = await this.readModel.get(projectId, id);
    if (!row) throw new ApiError('DepositAddressNotFound');
    return row;
  }
}

export function requireDepositAddressId(id: string): void {
  if (!isId('depositAddress', id))
    throw new ApiError('InvalidDepositAddressID', `"${id.slice(0, 64)}" is not a deposit address id (da_…)`);
}

/** One usdc in `asset`, as quotes price it: UnsupportedCorridor when there is no price. */
export function usdcRate(prices: DepositPrices, asset: string): string {
  const rate = prices.rate('usdc', asset);
  if (!rate) throw new ApiError('UnsupportedCorridor', `no price for usdc in ${asset}`);
  return rate;
}

/** A numeric column as an amount: no trailing zeros past the decimal point. */
export function amountText(value: string): string {
  return value.includes('.') ? value.replace(/0+$/, '').replace(/\.$/, '') : value;
}
