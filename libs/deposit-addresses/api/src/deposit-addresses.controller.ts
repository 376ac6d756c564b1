import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { EventPayloads } from '@mm/contracts';
import {
  AttributeSenderHandler,
  CreateDepositAddressHandler,
  DepositAddressQueries,
  LoseDestinationHandler,
  ReceiveDepositHandler,
  SimulateChainDepositHandler,
  ReleaseHeldDepositHandler,
  SimulateCustodianHandler,
  UpdateDepositAddressHandler,
  type Simulation,
} from '@mm/deposit-addresses/application';
import type { DepositAddressView } from '@mm/deposit-addresses/domain';
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
  CreateDepositAddressRequest,
  DepositAddressDepositResponse,
  DepositAddressResponse,
  ListDepositAddressesQuery,
  SimulateCryptoDepositRequest,
  UpdateDepositAddressRequest,
} from './deposit-addresses.dto';

/** The view is the partner shape already (domain depositAddressView); the DTO class only documents it. */
const toResponse = (view: DepositAddressView) => view as unknown as DepositAddressResponse;

@ApiTags('Deposit addresses')
@ApiBearerAuth('bearer')
@Controller('deposit-addresses')
export class DepositAddressesController {
  constructor(
    private readonly creation: CreateDepositAddressHandler,
    private readonly queries: DepositAddressQueries,
    private readonly updates: UpdateDepositAddressHandler,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary:
      'Create a deposit address: a persistent on-chain inlet that pays out to a bank account; it starts pending, with depositInstructions null until provisioned',
    description:
      "Needs the project feature depositAddresses (else 403 FeatureNotEnabled), and the endorsement a bank payout in the destination's currency needs (usd for USD, basic for CAD; else 422).",
  })
  @ApiCreatedResponse({ type: DepositAddressResponse })
  async create(
    @ProjectId() projectId: string,
    @Body() body: CreateDepositAddressRequest,
  ): Promise<DepositAddressResponse> {
    return toResponse(await this.creation.create(projectId, body));
  }

  @Get()
  @ApiOperation({ summary: 'List deposit addresses, newest first; customerId filters' })
  @ApiPage(DepositAddressResponse)
  async list(
    @ProjectId() projectId: string,
    @Query() query: ListDepositAddressesQuery,
  ): Promise<Page<DepositAddressResponse>> {
    const limit = pageLimit(query);
    const views = await this.queries.list(projectId, query.customerId, decodeCursor(query.cursor), limit + 1);
    const page = toPage(views, limit, (v) => v.id);
    return { ...page, data: page.data.map(toResponse) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a deposit address' })
  @ApiOkResponse({ type: DepositAddressResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<DepositAddressResponse> {
    return toResponse(await this.queries.require(projectId, id));
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({
    summary:
      'Change the destination, payout, return destination, label or metadata; a new active destination makes an inactiveActionRequired address active and resumes its held deposits',
  })
  @ApiOkResponse({ type: DepositAddressResponse })
  async update(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: UpdateDepositAddressRequest,
  ): Promise<DepositAddressResponse> {
    return toResponse(await this.updates.update(projectId, id, body));
  }
}

@ApiTags('Sandbox')
@ApiBearerAuth('bearer')
@SandboxOnly()
@Controller('deposit-addresses')
export class SandboxDepositAddressesController {
  constructor(
    private readonly deposits: ReceiveDepositHandler,
    private readonly chainDeposits: SimulateChainDepositHandler,
    private readonly custodian: SimulateCustodianHandler,
  ) {}

  @Post(':id/simulate/crypto-deposit')
  @Idempotent()
  @ApiOperation({
    summary:
      'An on-chain deposit reaches the address: it makes a cryptoToFiatAccount transaction (paid out, held, or returned to the sender)',
    description:
      "422 DepositAddressNotProvisioned on a pending or failed address. The amount must pay out in whole cents of the destination's currency (else 422 InexactConversion).",
  })
  @ApiCreatedResponse({ type: DepositAddressDepositResponse })
  async deposit(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: SimulateCryptoDepositRequest,
  ): Promise<DepositAddressDepositResponse> {
    // On a chain, a real transfer from the faucet, which the chain watcher receives once confirmed.
    if (await this.chainDeposits.onChain(projectId, id)) return this.chainDeposits.deposit(projectId, id, body);
    return this.deposits.deposit(projectId, id, body);
  }

  @Post(':id/simulate/freeze')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'The custodian locks the address: frozen; deposits to it are returned to the sender' })
  @ApiOkResponse({ type: DepositAddressResponse })
  freeze(@ProjectId() projectId: string, @Param('id') id: string): Promise<DepositAddressResponse> {
    return this.simulate(projectId, id, 'freeze');
  }

  @Post(':id/simulate/unfreeze')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'The custodian unlocks a frozen address: active again (inactiveActionRequired if its destination was lost meanwhile)',
  })
  @ApiOkResponse({ type: DepositAddressResponse })
  unfreeze(@ProjectId() projectId: string, @Param('id') id: string): Promise<DepositAddressResponse> {
    return this.simulate(projectId, id, 'unfreeze');
  }

  @Post(':id/simulate/close')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'The custodian closes the address for good: closed; deposits to it are returned to the sender',
  })
  @ApiOkResponse({ type: DepositAddressResponse })
  close(@ProjectId() projectId: string, @Param('id') id: string): Promise<DepositAddressResponse> {
    return this.simulate(projectId, id, 'close');
  }

  private async simulate(projectId: string, id: string, simulation: Simulation): Promise<DepositAddressResponse> {
    return toResponse(await this.custodian.simulate(projectId, id, simulation));
  }
}

/** The accounts service's news: a destination lost, a sender's wallet registered; the transactions service's: a deposit held for a destination. */
@Controller()
export class DepositAddressesEventsController {
  constructor(
    private readonly lostDestinations: LoseDestinationHandler,
    private readonly attribution: AttributeSenderHandler,
    private readonly heldDeposits: ReleaseHeldDepositHandler,
  ) {}

  @EventPattern('externalAccount.statusChanged')
  async onExternalAccountStatusChanged(
    @Payload() event: RecordedEvent<'externalAccount.statusChanged', EventPayloads['externalAccount.statusChanged']>,
  ): Promise<void> {
    // Invalid: the addresses paying to it lose their destination. Active: the deposits held for its sender are attributed.
    await this.lostDestinations.onExternalAccountStatusChanged(event);
    await this.attribution.onExternalAccountStatusChanged(event);
  }

  @EventPattern('externalAccount.deleted')
  onExternalAccountDeleted(
    @Payload() event: RecordedEvent<'externalAccount.deleted', EventPayloads['externalAccount.deleted']>,
  ): Promise<void> {
    return this.lostDestinations.onExternalAccountDeleted(event);
  }

  @EventPattern('transaction.held')
  onTransactionHeld(
    @Payload() event: RecordedEvent<'transaction.held', EventPayloads['transaction.held']>,
  ): Promise<void> {
    return this.heldDeposits.onTransactionHeld(event);
  }
}
