// The accounts port (ADR 0019): what quoting, transactions, cash-in and deposit
// addresses ask of accounts at once. In one process the other services call this class; across
// processes they post to AccountsInternalController.
import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  AccountsPort,
  ApiError,
  type CustomerView,
  type ExternalAccountView,
  type PullFundsRequest,
  type PullFundsResult,
  type WalletView,
} from '@mm/contracts';
import { CustomersService, WalletsService } from '@mm/accounts/application';
import { ExternalAccountsReadModels, type ExternalAccountRow } from '@mm/accounts/infrastructure';
import { isId } from '@mm/platform/ids';
import { InternalRoute, NoIdempotencyKey } from '@mm/platform/http';

@Injectable()
export class AccountsPortAdapter extends AccountsPort {
  constructor(
    private readonly customers: CustomersService,
    private readonly wallets: WalletsService,
    private readonly externalAccounts: ExternalAccountsReadModels,
  ) {
    super();
  }

  async customer(projectId: string, customerId: string): Promise<CustomerView> {
    const row = await this.customers.require(projectId, customerId);
    // Endorsements as of now, so that a cash-in sees an endorsement the moment it is active.
    return {
      id: row.id,
      entityType: 'individual',
      name: `${row.first_name} ${row.last_name}`,
      endorsements: row.endorsements.map((e) => ({ name: e.name, status: e.status })),
    };
  }

  async wallet(projectId: string, walletId: string): Promise<WalletView> {
    const row = await this.wallets.require(projectId, walletId);
    return { id: row.id, customerId: row.customer_id, asset: row.asset, network: row.network, address: row.address };
  }

  async externalAccount(projectId: string, externalAccountId: string): Promise<ExternalAccountView> {
    if (!isId('externalAccount', externalAccountId))
      throw new ApiError(
        'InvalidExternalAccountID',
        `"${String(externalAccountId).slice(0, 64)}" is not an external account id (ext_…)`,
      );
    const row = await this.externalAccounts.externalAccount(projectId, externalAccountId);
    if (!row) throw new ApiError('ExternalAccountNotFound');
    return this.view(projectId, row);
  }

  async registeredWallet(
    projectId: string,
    customerId: string,
    network: string,
    address: string,
  ): Promise<ExternalAccountView | null> {
    const row = await this.externalAccounts.registeredWallet(
      projectId,
      String(customerId),
      String(network),
      String(address),
    );
    return row ? this.view(projectId, row) : null;
  }

  private async view(projectId: string, row: ExternalAccountRow): Promise<ExternalAccountView> {
    const counterparty = row.counterparty_id
      ? await this.externalAccounts.counterparty(projectId, row.counterparty_id, { includeDeleted: true })
      : undefined;
    return {
      id: row.id,
      customerId: row.customer_id,
      customerName: row.customer_name,
      counterpartyId: row.counterparty_id,
      counterpartyEntityType: counterparty?.entity_type ?? null,
      counterpartyName: row.counterparty_name,
      type: row.type,
      status: row.status,
      failure: row.failure,
      details: row.details,
      supportedDestinations: row.supported_destinations,
    };
  }

  pullFunds(projectId: string, request: PullFundsRequest): Promise<PullFundsResult> {
    return this.wallets.pullFunds(projectId, request);
  }
}

@ApiExcludeController()
@Controller('internal/accounts')
export class AccountsInternalController {
  constructor(private readonly port: AccountsPortAdapter) {}

  @Post('customer')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  customer(@Body() body: { projectId: string; customerId: string }): Promise<CustomerView> {
    return this.port.customer(body.projectId, body.customerId);
  }

  @Post('wallet')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  wallet(@Body() body: { projectId: string; walletId: string }): Promise<WalletView> {
    return this.port.wallet(body.projectId, body.walletId);
  }

  @Post('external-account')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  externalAccount(@Body() body: { projectId: string; externalAccountId: string }): Promise<ExternalAccountView> {
    return this.port.externalAccount(body.projectId, body.externalAccountId);
  }

  @Post('registered-wallet')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  async registeredWallet(
    @Body() body: { projectId: string; customerId: string; network: string; address: string },
  ): Promise<{ wallet: ExternalAccountView | null }> {
    // Wrapped: a bare null is no JSON body a client can tell from an empty answer.
    return { wallet: await this.port.registeredWallet(body.projectId, body.customerId, body.network, body.address) };
  }

  @Post('pull-funds')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  pullFunds(@Body() body: { projectId: string } & PullFundsRequest): Promise<PullFundsResult> {
    const { projectId, ...request } = body;
    return this.port.pullFunds(projectId, request);
  }
}
