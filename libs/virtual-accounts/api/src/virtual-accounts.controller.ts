import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { EventPayloads } from '@mm/contracts';
import {
  CreateVirtualAccountHandler,
  DeleteVirtualAccountHandler,
  ReceiveTransferHandler,
  ReleaseHeldTransferHandler,
  SimulateBankHandler,
  UpdateVirtualAccountHandler,
  VirtualAccountQueries,
  type Simulation,
} from '@mm/virtual-accounts/application';
import type { VirtualAccountView } from '@mm/virtual-accounts/domain';
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
import {
  CreateVirtualAccountRequest,
  ListVirtualAccountsQuery,
  SimulateInboundTransferRequest,
  UpdateVirtualAccountRequest,
  VirtualAccountDepositResponse,
  VirtualAccountResponse,
} from './virtual-accounts.dto';

/** The view is the partner shape already (domain virtualAccountView); the DTO class only documents it. */
const toResponse = (view: VirtualAccountView) => view as unknown as VirtualAccountResponse;

@ApiTags('Virtual accounts')
@ApiBearerAuth('bearer')
@Controller('virtual-accounts')
export class VirtualAccountsController {
  constructor(
    private readonly creation: CreateVirtualAccountHandler,
    private readonly queries: VirtualAccountQueries,
    private readonly updates: UpdateVirtualAccountHandler,
    private readonly deletion: DeleteVirtualAccountHandler,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary:
      'Create a virtual account: a US bank account number for the customer whose incoming dollars are delivered to its destination; it starts pending, with bankDetails null until the bank provisions it',
    description:
      "Needs the customer's active usd endorsement (else 422 UsdEndorsementRequired). A bank destination's payout the account cannot take is 422 VirtualAccountPayoutUnsupported (10240).",
  })
  @ApiCreatedResponse({ type: VirtualAccountResponse })
  async create(
    @ProjectId() projectId: string,
    @Body() body: CreateVirtualAccountRequest,
  ): Promise<VirtualAccountResponse> {
    return toResponse(await this.creation.create(projectId, body));
  }

  @Get()
  @ApiOperation({ summary: 'List virtual accounts, newest first; customerId filters' })
  @ApiPage(VirtualAccountResponse)
  async list(
    @ProjectId() projectId: string,
    @Query() query: ListVirtualAccountsQuery,
  ): Promise<Page<VirtualAccountResponse>> {
    const limit = pageLimit(query);
    const views = await this.queries.list(projectId, query.customerId, decodeCursor(query.cursor), limit + 1);
    const page = toPage(views, limit, (v) => v.id);
    return { ...page, data: page.data.map(toResponse) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a virtual account' })
  @ApiOkResponse({ type: VirtualAccountResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<VirtualAccountResponse> {
    return toResponse(await this.queries.require(projectId, id));
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({ summary: 'Change the destination, the return destination or its rail, the label or the metadata' })
  @ApiOkResponse({ type: VirtualAccountResponse })
  async update(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: UpdateVirtualAccountRequest,
  ): Promise<VirtualAccountResponse> {
    return toResponse(await this.updates.update(projectId, id, body));
  }

  @Delete(':id')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Delete: accepted (202) with the account deleting; it becomes deleted when the bank closes it',
    description:
      "409 VirtualAccountNotEmpty while a deposit's transaction still moves money (nothing changes). 503 VirtualAccountCloseUnavailable with Retry-After when the bank cannot close it now: the account is back in the status it had. 422 VirtualAccountTransitionNotAllowed on a pending or failed account. A repeat on a deleting or deleted account answers it as it is.",
  })
  @ApiAcceptedResponse({ type: VirtualAccountResponse })
  async delete(@ProjectId() projectId: string, @Param('id') id: string): Promise<VirtualAccountResponse> {
    return toResponse(await this.deletion.delete(projectId, id));
  }
}

@ApiTags('Sandbox')
@ApiBearerAuth('bearer')
@SandboxOnly()
@Controller('virtual-accounts')
export class SandboxVirtualAccountsController {
  constructor(
    private readonly transfers: ReceiveTransferHandler,
    private readonly bank: SimulateBankHandler,
  ) {}

  @Post(':id/simulate/inbound-transfer')
  @Idempotent()
  @ApiOperation({
    summary:
      'A bank transfer reaches the account: it makes a fiatAccountToCrypto transaction (delivered to the destination, or returned to the sender when the account is frozen, closed, deleting or deleted)',
    description: '422 VirtualAccountNotProvisioned on a pending or failed account.',
  })
  @ApiCreatedResponse({ type: VirtualAccountDepositResponse })
  deposit(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: SimulateInboundTransferRequest,
  ): Promise<VirtualAccountDepositResponse> {
    return this.transfers.deposit(projectId, id, body);
  }

  @Post(':id/simulate/freeze')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'The bank freezes the account: frozen; transfers to it are returned to the sender' })
  @ApiOkResponse({ type: VirtualAccountResponse })
  freeze(@ProjectId() projectId: string, @Param('id') id: string): Promise<VirtualAccountResponse> {
    return this.simulate(projectId, id, 'freeze');
  }

  @Post(':id/simulate/unfreeze')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'The bank unfreezes a frozen account: active again' })
  @ApiOkResponse({ type: VirtualAccountResponse })
  unfreeze(@ProjectId() projectId: string, @Param('id') id: string): Promise<VirtualAccountResponse> {
    return this.simulate(projectId, id, 'unfreeze');
  }

  @Post(':id/simulate/close')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'The bank closes the account: closed; transfers to it are returned to the sender' })
  @ApiOkResponse({ type: VirtualAccountResponse })
  close(@ProjectId() projectId: string, @Param('id') id: string): Promise<VirtualAccountResponse> {
    return this.simulate(projectId, id, 'close');
  }

  private async simulate(projectId: string, id: string, simulation: Simulation): Promise<VirtualAccountResponse> {
    return toResponse(await this.bank.simulate(projectId, id, simulation));
  }
}

/** The transactions service's news: a deposit held for a destination (ADR 0056). */
@Controller()
export class VirtualAccountsEventsController {
  constructor(private readonly heldTransfers: ReleaseHeldTransferHandler) {}

  @EventPattern('transaction.held')
  onTransactionHeld(
    @Payload() event: RecordedEvent<'transaction.held', EventPayloads['transaction.held']>,
  ): Promise<void> {
    return this.heldTransfers.onTransactionHeld(event);
  }
}
