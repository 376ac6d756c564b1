// Four eyes on money (docs/operators.md, Four eyes): the requests operators' money actions became, and a second
// operator's decision on each.
import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError, type AuditActor } from '@mm/contracts';
import { ApprovalDecisionsHandler, ApprovalQueries } from '@mm/transactions/application';
import {
  AdminRoute,
  ApiPage,
  decodeCursor,
  Idempotent,
  pageLimit,
  toPage,
  type AuditedRequest,
  type Page,
} from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import { ApprovalDecisionRequest, ApprovalResponse, ListApprovalsQuery } from './approvals.dto';

/** The operator acting, as the approval records them. */
export function actorOf(request: AuditedRequest): AuditActor {
  const operator = request.caller?.operator;
  // Operator routes are reached by operators only (the guard): this is a route without its role.
  if (!operator) throw new ApiError('Forbidden', 'an operator route');
  return { subject: operator.subject, name: operator.name, role: operator.role, via: operator.via };
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin/approvals')
export class ApprovalsAdminController {
  constructor(
    private readonly approvals: ApprovalQueries,
    private readonly decisions: ApprovalDecisionsHandler,
  ) {}

  @AdminRoute('viewer')
  @Get()
  @ApiOperation({
    summary:
      "Four-eyes requests of every project, newest first: operators' refunds, complete-refunds, mark-failed and retries that wait for a second operator, and those decided",
  })
  @ApiPage(ApprovalResponse)
  async list(@Query() query: ListApprovalsQuery): Promise<Page<ApprovalResponse>> {
    if (query.projectId !== undefined && !isId('project', query.projectId))
      throw new ApiError('InvalidRequest', `projectId: "${query.projectId.slice(0, 64)}" is not a project id (prj_…)`);
    if (query.transactionId !== undefined && !isId('transaction', query.transactionId))
      throw new ApiError(
        'InvalidTransactionID',
        `transactionId: "${query.transactionId.slice(0, 64)}" is not a transaction id (txn_…)`,
      );
    const limit = pageLimit(query);
    const { rows, views } = await this.approvals.list({
      projectId: query.projectId,
      transactionId: query.transactionId,
      status: query.status,
      before: decodeCursor(query.cursor),
      limit: limit + 1,
    });
    const page = toPage(rows, limit, (r) => r.id);
    const shown = views
      .slice(0, page.data.length)
      .filter((v) => query.status === undefined || v.status === query.status) as unknown as ApprovalResponse[];
    return { ...page, data: shown };
  }

  @AdminRoute('viewer')
  @Get(':id')
  @ApiOkResponse({ type: ApprovalResponse })
  async get(@Param('id') id: string): Promise<ApprovalResponse> {
    return (await this.approvals.require(id)) as unknown as ApprovalResponse;
  }

  @AdminRoute('operator')
  @Post(':id/approve')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Approve a pending request made by another operator: its action runs now, with the checks it has without approval, and the request shows its result. An action refused (the transaction moved on) answers its error and leaves the request pending',
  })
  @ApiOkResponse({ type: ApprovalResponse })
  async approve(
    @Param('id') id: string,
    @Body() _body: ApprovalDecisionRequest,
    @Req() request: AuditedRequest,
  ): Promise<ApprovalResponse> {
    request.auditBefore = await this.approvals.require(id);
    return (await this.decisions.approve(id, actorOf(request))) as unknown as ApprovalResponse;
  }

  @AdminRoute('operator')
  @Post(':id/reject')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Reject a pending request (its requester may withdraw it so): its action never runs' })
  @ApiOkResponse({ type: ApprovalResponse })
  async reject(
    @Param('id') id: string,
    @Body() body: ApprovalDecisionRequest,
    @Req() request: AuditedRequest,
  ): Promise<ApprovalResponse> {
    request.auditBefore = await this.approvals.require(id);
    return (await this.decisions.reject(id, actorOf(request), body.reason ?? null)) as unknown as ApprovalResponse;
  }
}
