import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ApiError, type EventPayloads, requireCustomerId } from '@mm/contracts';
import {
  CashPickupHandler,
  CreateTransactionHandler,
  DepositTransactionsHandler,
  HoldsHandler,
  OperatorActionsHandler,
  RefundsHandler,
  TransactionQueries,
} from '@mm/transactions/application';
import type { RecordedEvent } from '@mm/platform/event-store';
import {
  AdminRoute,
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
import {
  CompleteRefundRequest,
  CreateTransactionRequest,
  HeldTransactionResponse,
  ListHeldTransactionsQuery,
  ListTransactionsQuery,
  OperatorActionRequest,
  OperatorRefundRequest,
  OperatorResultResponse,
  SimulateCashPickupRequest,
  TransactionResponse,
} from './transactions.dto';

@ApiTags('Transactions')
@ApiBearerAuth('bearer')
@Controller('transactions')
export class TransactionsController {
  constructor(
    private readonly creation: CreateTransactionHandler,
    private readonly transactions: TransactionQueries,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a transaction from an open quote; it starts processing' })
  @ApiCreatedResponse({ type: TransactionResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateTransactionRequest): Promise<TransactionResponse> {
    return (await this.creation.create(projectId, body.quoteId)) as TransactionResponse;
  }

  @Get()
  @ApiOperation({ summary: 'List transactions, newest first; customerId matches either side' })
  @ApiPage(TransactionResponse)
  async list(
    @ProjectId() projectId: string,
    @Query() query: ListTransactionsQuery,
  ): Promise<Page<TransactionResponse>> {
    if (query.customerId !== undefined) requireCustomerId(query.customerId);
    const limit = pageLimit(query);
    const rows = await this.transactions.list(projectId, {
      customerId: query.customerId,
      status: query.status,
      before: decodeCursor(query.cursor),
      limit: limit + 1,
    });
    const page = toPage(rows, limit, (r) => r.id);
    return { ...page, data: page.data.map((r) => r.view as TransactionResponse) };
  }

  @Get(':id')
  @ApiOkResponse({ type: TransactionResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<TransactionResponse> {
    return (await this.transactions.require(projectId, id)).view as TransactionResponse;
  }
}

@ApiTags('Sandbox')
@ApiBearerAuth('bearer')
@SandboxOnly()
@Controller('transactions')
export class SandboxTransactionsController {
  constructor(private readonly cashPickups: CashPickupHandler) {}

  @Post(':id/simulate/cash-pickup')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'The retail network reports a cash pickup waiting for collection (processing.cashPickupReady): collected completes it (completed.cashPickupCollected); expired returns the money to the source wallet, then completes it (completed.cashPickupExpired)',
  })
  @ApiOkResponse({ type: TransactionResponse })
  async cashPickup(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: SimulateCashPickupRequest,
  ): Promise<TransactionResponse> {
    return (await this.cashPickups.simulateCashPickup(projectId, id, body.outcome)) as TransactionResponse;
  }
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@AdminRoute()
@Controller('admin/transactions')
export class TransactionsAdminController {
  constructor(
    private readonly transactions: TransactionQueries,
    private readonly operator: OperatorActionsHandler,
  ) {}

  @Get('held')
  @ApiOperation({
    summary:
      'The operator queue: transactions of every project that wait on an operator (processing.underReview, processing.payoutUnconfirmed, or awaitingAction), newest first; projectId narrows it to one project',
  })
  @ApiPage(HeldTransactionResponse)
  async held(@Query() query: ListHeldTransactionsQuery): Promise<Page<HeldTransactionResponse>> {
    if (query.projectId !== undefined && !isId('project', query.projectId)) {
      throw new ApiError('InvalidRequest', `projectId: "${query.projectId.slice(0, 64)}" is not a project id (prj_…)`);
    }
    const limit = pageLimit(query);
    const rows = await this.transactions.held({
      projectId: query.projectId,
      before: decodeCursor(query.cursor),
      limit: limit + 1,
    });
    const page = toPage(rows, limit, (r) => r.id);
    return {
      ...page,
      data: page.data.map((r) => ({
        object: 'heldTransaction' as const,
        projectId: r.project_id,
        transaction: r.view as TransactionResponse,
      })),
    };
  }

  @Post(':id/retry')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Send a payout held after it failed again (processing.payoutRetrying); a completed transaction answers already_completed',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  retry(@Param('id') id: string, @Body() body: OperatorActionRequest): Promise<OperatorResultResponse> {
    return this.operator.operate(id, 'retry', body.reason ?? 'operator retry') as Promise<OperatorResultResponse>;
  }

  @Post(':id/refund')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Return held money to its source: processing.returningToSender, then failed.returnedToSender. A virtual account deposit goes back over a bank rail to the account\'s return destination (else the sender), all of it or the amount given. A deposit\'s refund to a return destination that was invalidated or deleted is refused (422 ExternalAccountNotActive, nothing changes): `to: "sender"` sends it back to the sender instead',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  refund(@Param('id') id: string, @Body() body: OperatorRefundRequest): Promise<OperatorResultResponse> {
    return this.operator.operate(
      id,
      'refund',
      body.reason ?? 'operator refund',
      body.amount,
      body.to,
    ) as Promise<OperatorResultResponse>;
  }

  @Post(':id/mark-failed')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Give up on a held or unconfirmed payout: failed.outboundFailed, the money held for a refund',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  markFailed(@Param('id') id: string, @Body() body: OperatorActionRequest): Promise<OperatorResultResponse> {
    return this.operator.operate(
      id,
      'markFailed',
      body.reason ?? 'operator marked failed',
    ) as Promise<OperatorResultResponse>;
  }

  @Post(':id/complete-refund')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Complete a virtual account bank refund the bank reported only as initiated (or still has in flight): the refund settles, the review clears, the transaction ends failed.returnedToSender. A refund completed already answers already_completed; any other payment 422 refundNotCompletable',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  completeRefund(@Param('id') id: string, @Body() body: CompleteRefundRequest): Promise<OperatorResultResponse> {
    return this.operator.completeRefund(id, body.reason) as Promise<OperatorResultResponse>;
  }
}

/** The saga's answers from other services. */
@Controller()
export class TransactionsEventsController {
  constructor(
    private readonly deposits: DepositTransactionsHandler,
    private readonly holds: HoldsHandler,
    private readonly refunds: RefundsHandler,
  ) {}

  @EventPattern('cashIn.deposited')
  onCashInDeposited(
    @Payload() event: RecordedEvent<'cashIn.deposited', EventPayloads['cashIn.deposited']>,
  ): Promise<void> {
    return this.deposits.onCashInDeposited(event);
  }

  @EventPattern('depositAddress.depositReceived')
  onDepositReceived(
    @Payload() event: RecordedEvent<'depositAddress.depositReceived', EventPayloads['depositAddress.depositReceived']>,
  ): Promise<void> {
    return this.deposits.onDepositReceived(event);
  }

  @EventPattern('depositAddress.senderAttributed')
  onSenderAttributed(
    @Payload()
    event: RecordedEvent<'depositAddress.senderAttributed', EventPayloads['depositAddress.senderAttributed']>,
  ): Promise<void> {
    return this.holds.onSenderAttributed(event);
  }

  @EventPattern('depositAddress.destinationRestored')
  onDestinationRestored(
    @Payload()
    event: RecordedEvent<'depositAddress.destinationRestored', EventPayloads['depositAddress.destinationRestored']>,
  ): Promise<void> {
    return this.holds.onDestinationRestored(event);
  }

  @EventPattern('virtualAccount.destinationRestored')
  onVirtualAccountDestinationRestored(
    @Payload()
    event: RecordedEvent<'virtualAccount.destinationRestored', EventPayloads['virtualAccount.destinationRestored']>,
  ): Promise<void> {
    return this.holds.onVirtualAccountDestinationRestored(event);
  }

  @EventPattern('virtualAccount.depositReceived')
  onVirtualAccountDeposit(
    @Payload() event: RecordedEvent<'virtualAccount.depositReceived', EventPayloads['virtualAccount.depositReceived']>,
  ): Promise<void> {
    return this.deposits.onVirtualAccountDeposit(event);
  }

  @EventPattern('funds.returned')
  onFundsReturned(@Payload() event: RecordedEvent<'funds.returned', EventPayloads['funds.returned']>): Promise<void> {
    return this.refunds.onFundsReturned(event);
  }
}
