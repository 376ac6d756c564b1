// The shapes the accounts service's partner events carry: exactly what GET
// answers for the resource (ADR 0018).
import { Injectable } from '@nestjs/common';
import { AccountsPartnerViews } from '@mm/accounts/application';
import { AccountsReadModels, ExternalAccountsReadModels } from '@mm/accounts/infrastructure';
import { toCustomer, toWallet } from './accounts.mappers';
import { toCounterparty, toExternalAccount } from './external-accounts.mappers';

type Shape = Record<string, unknown>;

@Injectable()
export class AccountsApiPartnerViews extends AccountsPartnerViews {
  constructor(
    private readonly accounts: AccountsReadModels,
    private readonly instruments: ExternalAccountsReadModels,
  ) {
    super();
  }

  async customer(projectId: string, id: string): Promise<Shape | undefined> {
    const row = await this.accounts.customer(projectId, id);
    return row && { ...toCustomer(row) };
  }

  async wallet(projectId: string, id: string): Promise<Shape | undefined> {
    const row = await this.accounts.wallet(projectId, id);
    return row && { ...toWallet(row) };
  }

  async externalAccount(projectId: string, id: string): Promise<Shape | undefined> {
    const row = await this.instruments.externalAccount(projectId, id, { includeDeleted: true });
    return row && { ...toExternalAccount(row) };
  }

  async counterparty(projectId: string, id: string): Promise<Shape | undefined> {
    const row = await this.instruments.counterparty(projectId, id, { includeDeleted: true });
    return row && { ...toCounterparty(row), status: row.deleted_at ? 'deleted' : 'active' };
  }
}
