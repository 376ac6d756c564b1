import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { EventPayloads } from '@mm/contracts';
import {
  CustomersService,
  EndorsementReviewer,
  ExternalAccountProvisioner,
  TransactionLedgerService,
  WalletsService,
} from '@mm/accounts/application';
import { AccountsReadModels } from '@mm/accounts/infrastructure';
import type { RecordedEvent } from '@mm/platform/event-store';
import {
  ApiPage,
  decodeCursor,
  Idempotent,
  pageLimit,
  ProjectId,
  SandboxOnly,
  toPage,
  type Page,
} from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import { ApiError } from '@mm/contracts';
import {
  CreateCustomerRequest,
  CreateWalletRequest,
  CustomerBalanceQuery,
  CustomerBalanceResponse,
  CustomerResponse,
  FundWalletRequest,
  FundWalletResponse,
  ListCustomersQuery,
  ListWalletsQuery,
  RequestEndorsementRequest,
  WalletBalanceResponse,
  WalletResponse,
} from './accounts.dto';
import { toCustomer, toWallet, toWalletBalance } from './accounts.mappers';

@ApiTags('Customers')
@ApiBearerAuth('bearer')
@Controller('customers')
export class CustomersController {
  constructor(
    private readonly customers: CustomersService,
    private readonly wallets: WalletsService,
    private readonly readModels: AccountsReadModels,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a customer' })
  @ApiCreatedResponse({ type: CustomerResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateCustomerRequest): Promise<CustomerResponse> {
    return toCustomer(await this.customers.create(projectId, body));
  }

  @Get()
  @ApiOperation({ summary: 'List customers, newest first; search by name or email' })
  @ApiPage(CustomerResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListCustomersQuery): Promise<Page<CustomerResponse>> {
    const limit = pageLimit(query);
    const rows = await this.readModels.listCustomers(projectId, decodeCursor(query.cursor), limit, query.search);
    const page = toPage(rows, limit, (r) => r.id);
    return { ...page, data: page.data.map(toCustomer) };
  }

  @Get(':id')
  @ApiOkResponse({ type: CustomerResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<CustomerResponse> {
    return toCustomer(await this.customers.require(projectId, id));
  }

  @Post(':id/endorsements')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Request one more endorsement; it starts pending' })
  @ApiOkResponse({ type: CustomerResponse })
  async requestEndorsement(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: RequestEndorsementRequest,
  ): Promise<CustomerResponse> {
    return toCustomer(await this.customers.requestEndorsement(projectId, id, body.name));
  }

  @Get(':id/balance')
  @ApiOperation({ summary: "The customer's balance across wallets, valued in a currency (USD by default)" })
  @ApiOkResponse({ type: CustomerBalanceResponse })
  async balance(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Query() query: CustomerBalanceQuery,
  ): Promise<CustomerBalanceResponse> {
    return { data: await this.wallets.customerBalance(projectId, id, query.estimatedBalanceCurrencyCode) };
  }

  @Post(':id/wallets')
  @Idempotent()
  @ApiOperation({
    summary: 'Create a custodial wallet',
    description: 'The customer needs an active cryptoCustody endorsement (else 422 CryptoCustodyEndorsementRequired).',
  })
  @ApiCreatedResponse({ type: WalletResponse })
  async createWallet(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: CreateWalletRequest,
  ): Promise<WalletResponse> {
    return toWallet(await this.wallets.create(projectId, id, body.asset, body.network));
  }
}

@ApiTags('Wallets')
@ApiBearerAuth('bearer')
@Controller('wallets')
export class WalletsController {
  constructor(
    private readonly wallets: WalletsService,
    private readonly readModels: AccountsReadModels,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List wallets, newest first; filter by customerId' })
  @ApiPage(WalletResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListWalletsQuery): Promise<Page<WalletResponse>> {
    if (query.customerId !== undefined && !isId('customer', query.customerId)) throw new ApiError('InvalidCustomerID');
    const limit = pageLimit(query);
    const rows = await this.readModels.listWallets(projectId, query.customerId, decodeCursor(query.cursor), limit);
    const page = toPage(rows, limit, (r) => r.id);
    return { ...page, data: page.data.map(toWallet) };
  }

  @Get(':id')
  @ApiOkResponse({ type: WalletResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<WalletResponse> {
    return toWallet(await this.wallets.require(projectId, id));
  }

  @Get(':id/balance')
  @ApiOkResponse({ type: WalletBalanceResponse })
  async balance(@ProjectId() projectId: string, @Param('id') id: string): Promise<WalletBalanceResponse> {
    return { data: toWalletBalance(await this.wallets.require(projectId, id)) };
  }
}

@ApiTags('Sandbox')
@ApiBearerAuth('bearer')
@SandboxOnly()
@Controller('sandbox/wallets')
export class SandboxWalletsController {
  constructor(private readonly wallets: WalletsService) {}

  @Post(':id/fund')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Credit a wallet from the sandbox funding account (a ledger posting); on a network that runs on a chain, the faucet's transfer to its address, credited once confirmed",
    description:
      '409 Conflict on a chain without a faucet (MM_CHAIN_<NETWORK>_FAUCET_PRIVATE_KEY): send test USDC to the address instead.',
  })
  @ApiOkResponse({ type: FundWalletResponse })
  async fund(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: FundWalletRequest,
  ): Promise<FundWalletResponse> {
    const { wallet, transfer } = await this.wallets.fund(projectId, id, body.amount);
    return { data: toWalletBalance(wallet), ...(transfer ? { transfer } : {}) };
  }
}

/** Events this service reacts to, delivered by the event transport. */
@Controller()
export class AccountsEventsController {
  constructor(
    private readonly reviewer: EndorsementReviewer,
    private readonly provisioner: ExternalAccountProvisioner,
    private readonly ledger: TransactionLedgerService,
  ) {}

  @EventPattern('transaction.legSettled')
  onLegSettled(
    @Payload() event: RecordedEvent<'transaction.legSettled', EventPayloads['transaction.legSettled']>,
  ): Promise<void> {
    return this.ledger.onLegSettled(event);
  }

  @EventPattern('transaction.refundInitiated')
  onRefundInitiated(
    @Payload() event: RecordedEvent<'transaction.refundInitiated', EventPayloads['transaction.refundInitiated']>,
  ): Promise<void> {
    return this.ledger.onRefundInitiated(event);
  }

  @EventPattern('endorsement.requested')
  onEndorsementRequested(
    @Payload() event: RecordedEvent<'endorsement.requested', EventPayloads['endorsement.requested']>,
  ): Promise<void> {
    return this.reviewer.onEndorsementRequested(event);
  }

  @EventPattern('externalAccount.created')
  onExternalAccountCreated(
    @Payload() event: RecordedEvent<'externalAccount.created', EventPayloads['externalAccount.created']>,
  ): Promise<void> {
    return this.provisioner.onCreated(event);
  }
}
