import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CashInsService, CashLocationsService } from '@mm/cash-in/application';
import type { CashInView } from '@mm/cash-in/domain';
import {
  ApiPage,
  decodeCursor,
  Idempotent,
  ListQuery,
  pageLimit,
  ProjectId,
  SandboxOnly,
  toPage,
  type Page,
} from '@mm/platform/http';
import {
  CashInResponse,
  CashLocationResponse,
  CashLocationsQuery,
  CreateCashInRequest,
  SimulateDepositRequest,
} from './cash-ins.dto';

/** The view is the partner shape already (domain cashInView); the DTO class only documents it. */
const toResponse = (view: CashInView) => view as unknown as CashInResponse;

@ApiTags('Cash-ins')
@ApiBearerAuth('bearer')
@Controller('cash-ins')
export class CashInsController {
  constructor(private readonly cashIns: CashInsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a cash-in: a one-time deposit code valid one hour at a retail location; it starts pending',
    description: 'The customer needs an active usd endorsement (else 422 UsdEndorsementRequired).',
  })
  @ApiCreatedResponse({ type: CashInResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateCashInRequest): Promise<CashInResponse> {
    return toResponse(await this.cashIns.create(projectId, body));
  }

  @Get()
  @ApiOperation({ summary: 'List cash-ins, newest first' })
  @ApiPage(CashInResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListQuery): Promise<Page<CashInResponse>> {
    const limit = pageLimit(query);
    const views = await this.cashIns.list(projectId, decodeCursor(query.cursor), limit + 1);
    const page = toPage(views, limit, (v) => v.id);
    return { ...page, data: page.data.map(toResponse) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a cash-in; a pending one whose code lapsed reads as expired' })
  @ApiOkResponse({ type: CashInResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<CashInResponse> {
    return toResponse(await this.cashIns.require(projectId, id));
  }

  @Post(':id/refresh')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Issue a new code valid one hour from now; the previous code is void (422 CashInNotPending unless pending)',
  })
  @ApiOkResponse({ type: CashInResponse })
  async refresh(@ProjectId() projectId: string, @Param('id') id: string): Promise<CashInResponse> {
    return toResponse(await this.cashIns.refresh(projectId, id));
  }
}

@ApiTags('Sandbox')
@ApiBearerAuth('bearer')
@SandboxOnly()
@Controller('cash-ins')
export class SandboxCashInsController {
  constructor(private readonly cashIns: CashInsService) {}

  @Post(':id/simulate/deposit')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'The retail partner confirms a cash deposit: the cash-in completes (subStatus settled) and its transaction is created',
  })
  @ApiOkResponse({ type: CashInResponse })
  async deposit(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: SimulateDepositRequest,
  ): Promise<CashInResponse> {
    return toResponse(await this.cashIns.deposit(projectId, id, body.amount, body.code));
  }
}

@ApiTags('Cash-ins')
@ApiBearerAuth('bearer')
@Controller('cash-locations')
export class CashLocationsController {
  constructor(private readonly locations: CashLocationsService) {}

  @Get()
  @ApiOperation({
    summary:
      'Retail locations for a flow (cash_in by default), nearest first with distanceKm when latitude and longitude are given, else by reference',
  })
  @ApiPage(CashLocationResponse)
  list(@Query() query: CashLocationsQuery): Page<CashLocationResponse> {
    const limit = pageLimit(query);
    const results = this.locations.search({
      provider: query.provider,
      latitude: query.latitude,
      longitude: query.longitude,
      flow: query.flow,
      after: decodeCursor(query.cursor),
      limit,
    });
    const page = toPage(results, limit, (r) => r.locId);
    return {
      ...page,
      data: page.data.map((r) => ({
        locId: r.locId,
        cashLocationReference: r.cashLocationReference,
        name: r.name,
        provider: r.provider,
        address: { ...r.address },
        latitude: r.latitude,
        longitude: r.longitude,
        distanceKm: r.distanceKm,
        flows: [...r.flows],
      })),
    };
  }
}
