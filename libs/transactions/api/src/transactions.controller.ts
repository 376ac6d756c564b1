import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { EventPattern, Payload } from '@nestjs/microservices';
import {
  ApiError,
  type ApprovalAction,
  type ApprovalRequested,
  type EventPayloads,
  requireCustomerId,
} from '@mm/contracts';
import {
  CashPickupHandler,
  CreateTransactionHandler,
  DepositTransactionsHandler,
  FourEyes,
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
  type AuditedRequest,
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
import { actorOf } from './approvals.controller';
import { ApprovalResponse } from './approvals.dto';

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
  @ApiOperation({
    summary: "List transactions, newest first; customerId matches either side, reference any leg's rail reference",
  })
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
      reference: query.reference,
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
@Controller('admin/transactions')
export class TransactionsAdminController {
  constructor(
    private readonly transactions: TransactionQueries,
    private readonly operator: OperatorActionsHandler,
    private readonly fourEyes: FourEyes,
  ) {}

  /**
   * The request for a second operator the action became (answered 202), on a transaction worth the project's
   * four-eyes threshold or more; undefined when it acts now.
   */
  private async approvalNeeded(
    request: AuditedRequest,
    reply: FastifyReply,
    transactionId: string,
    action: ApprovalAction,
    params: ApprovalRequested['params'],
  ): Promise<ApprovalResponse | undefined> {
    const approval = await this.fourEyes.requestIfNeeded({
      transactionId,
      action,
      params,
      operator: actorOf(request),
    });
    if (!approval) return undefined;
    void reply.status(202);
    return approval as unknown as ApprovalResponse;
  }

  @AdminRoute('viewer')
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

  /** The transaction as it is before an operator acts on it, for the operators' audit log; none for an unknown id. */
  private async recordBefore(request: AuditedRequest, id: string): Promise<void> {
    request.auditBefore = isId('transaction', id) ? ((await this.transactions.findAny(id))?.view ?? null) : null;
  }

  @AdminRoute('operator')
  @Post(':id/retry')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Send a payout held after it failed again (processing.payoutRetrying); a completed transaction answers already_completed',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  @ApiAcceptedResponse({ type: ApprovalResponse, description: 'waits for a second operator (four eyes)' })
  async retry(
    @Param('id') id: string,
    @Body() body: OperatorActionRequest,
    @Req() request: AuditedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OperatorResultResponse | ApprovalResponse> {
    await this.recordBefore(request, id);
    return (
      (await this.approvalNeeded(request, reply, id, 'retry', { reason: body.reason ?? null })) ??
      ((await this.operator.operate(id, 'retry', body.reason ?? 'operator retry')) as OperatorResultResponse)
    );
  }

  @AdminRoute('operator')
  @Post(':id/refund')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Return held money to its source: processing.returningToSender, then failed.returnedToSender. A virtual account deposit goes back over a bank rail to the account\'s return destination (else the sender), all of it or the amount given. A deposit\'s refund to a return destination that was invalidated or deleted is refused (422 ExternalAccountNotActive, nothing changes): `to: "sender"` sends it back to the sender instead',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  @ApiAcceptedResponse({ type: ApprovalResponse, description: 'waits for a second operator (four eyes)' })
  async refund(
    @Param('id') id: string,
    @Body() body: OperatorRefundRequest,
    @Req() request: AuditedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OperatorResultResponse | ApprovalResponse> {
    await this.recordBefore(request, id);
    const params = { reason: body.reason ?? null, amount: body.amount, to: body.to };
    const approval = await this.approvalNeeded(request, reply, id, 'refund', withoutUndefined(params));
    if (approval) return approval;
    return this.operator.operate(
      id,
      'refund',
      body.reason ?? 'operator refund',
      body.amount,
      body.to,
    ) as Promise<OperatorResultResponse>;
  }

  @AdminRoute('operator')
  @Post(':id/mark-failed')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Give up on a held or unconfirmed payout: failed.outboundFailed, the money held for a refund',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  @ApiAcceptedResponse({ type: ApprovalResponse, description: 'waits for a second operator (four eyes)' })
  async markFailed(
    @Param('id') id: string,
    @Body() body: OperatorActionRequest,
    @Req() request: AuditedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OperatorResultResponse | ApprovalResponse> {
    await this.recordBefore(request, id);
    const approval = await this.approvalNeeded(request, reply, id, 'markFailed', { reason: body.reason ?? null });
    if (approval) return approval;
    return this.operator.operate(
      id,
      'markFailed',
      body.reason ?? 'operator marked failed',
    ) as Promise<OperatorResultResponse>;
  }

  @AdminRoute('operator')
  @Post(':id/complete-refund')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Complete a virtual account bank refund the bank reported only as initiated (or still has in flight): the refund settles, the review clears, the transaction ends failed.returnedToSender. A refund completed already answers already_completed; any other payment 422 refundNotCompletable',
  })
  @ApiOkResponse({ type: OperatorResultResponse })
  @ApiAcceptedResponse({ type: ApprovalResponse, description: 'waits for a second operator (four eyes)' })
  async completeRefund(
    @Param('id') id: string,
    @Body() body: CompleteRefundRequest,
    @Req() request: AuditedRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OperatorResultResponse | ApprovalResponse> {
    await this.recordBefore(request, id);
    return (
      (await this.approvalNeeded(request, reply, id, 'completeRefund', { reason: body.reason })) ??
      ((await this.operator.completeRefund(id, body.reason)) as OperatorResultResponse)
    );
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

/** The fields given, for a record that keeps no undefined. */
function withoutUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
