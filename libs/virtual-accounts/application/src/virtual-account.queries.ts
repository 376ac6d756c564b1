// Reads of virtual accounts (spec: Virtual account; API-CONTRACT: Virtual accounts): the read model as of
// each account's last event, scoped to the project asking (another project's id answers 404).
import { Injectable } from '@nestjs/common';
import { ApiError, INBOUND_RAILS, type InboundRail, requireCustomerId } from '@mm/contracts';
import type { VirtualAccountView } from '@mm/virtual-accounts/domain';
import {
  VirtualAccountPrices,
  VirtualAccountsReadModel,
  type VirtualAccountRow,
} from '@mm/virtual-accounts/infrastructure';
import { isId } from '@mm/platform/ids';

@Injectable()
export class VirtualAccountQueries {
  constructor(private readonly readModel: VirtualAccountsReadModel) {}

  async require(projectId: string, id: string): Promise<VirtualAccountView> {
    return (await this.row(projectId, id)).view;
  }

  async list(
    projectId: string,
    customerId: string | undefined,
    before: string | undefined,
    limit: number,
  ): Promise<VirtualAccountView[]> {
    if (customerId !== undefined) requireCustomerId(customerId);
    return (await this.readModel.list(projectId, customerId, before, limit)).map((r) => r.view);
  }

  /** The account's row: 400 for what is no account id, 404 for one this project does not have. */
  async row(projectId: string, id: string): Promise<VirtualAccountRow> {
    requireVirtualAccountId(id);
    const row = await this.readModel.get(projectId, id);
    if (!row) throw new ApiError('VirtualAccountNotFound');
    return row;
  }
}

export function requireVirtualAccountId(id: string): void {
  if (!isId('virtualAccount', id))
    throw new ApiError('InvalidVirtualAccountID', `"${id.slice(0, 64)}" is not a virtual account id (va_…)`);
}

/** One US dollar in `asset` (usdc for a wallet), as quotes price it: UnsupportedCorridor when there is no price. */
export function usdRate(prices: VirtualAccountPrices, asset: string): string {
  const rate = prices.rate('usd', asset);
  if (!rate) throw new ApiError('UnsupportedCorridor', `no price for usd in ${asset}`);
  return rate;
}

/** One of the rails a transfer reaches a virtual account on, or 400 naming them. */
export function inboundRail(value: string, field: string): InboundRail {
  if ((INBOUND_RAILS as readonly string[]).includes(value)) return value as InboundRail;
  throw new ApiError(
    'InvalidRequest',
    `${field} must be one of ${INBOUND_RAILS.join(', ')}, not ${JSON.stringify(value.slice(0, 32))}`,
  );
}
