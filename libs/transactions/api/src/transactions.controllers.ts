import { Body, Controller, Get, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiError, type EventPayloads } from '@mm/contracts';
import { TransactionsService } from '@mm/transactions/application';
import type { RecordedEvent } from '@mm/platform/event-store';
import { ApiPage, decodeCursor, Idempotent, pageLimit, ProjectId, toPage, type Page } from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import { CreateTransactionRequest, ListTransactionsQuery, TransactionResponse } from './transactions.dto';

@ApiTags('Transactions')
@ApiBearerAuth('bearer')
@Controller('transactions')
export class TransactionsController {
  constructor(private readonly transactions: TransactionsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a transaction from an open quote; it starts processing' })
  @ApiCreatedResponse({ type: TransactionResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateTransactionRequest): Promise<TransactionResponse> {
    return (await this.transactions.create(projectId, body.quoteId)) as TransactionResponse;
  }

  @Get()
  @ApiOperation({ summary: 'List transactions, newest first; customerId matches either side' })
  @ApiPage(TransactionResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListTransactionsQuery): Promise<Page<TransactionResponse>> {
    if (query.customerId !== undefined && !isId('customer', query.customerId)) {
      throw new ApiError('InvalidCustomerID', `"${query.customerId.slice(0, 64)}" is not a customer id (cst_…)`);
    }
    const limit = pageLimit(query);
    const rows = await this.transactions.list(projectId, { customerId: query.customerId, status: query.status, before: decodeCursor(query.cursor), limit: limit + 1 });
    const page = toPage(rows, limit, (r) => r.id);
    return { ...page, data: page.data.map((r) => r.view as TransactionResponse) };
  }

  @Get(':id')
  @ApiOkResponse({ type: TransactionResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<TransactionResponse> {
    return (await this.transactions.require(projectId, id)).view as TransactionResponse;
  }
}

/** The saga's answers from other services. */
@Controller()
export class TransactionsEventsController {
  constructor(private readonly transactions: TransactionsService) {}

  @EventPattern('funds.returned')
  onFundsReturned(@Payload() event: RecordedEvent<'funds.returned', EventPayloads['funds.returned']>): Promise<void> {
    return this.transactions.onFundsReturned(event);
  }
}
