// Operators on partners' webhook endpoints (docs/operators.md): a viewer reads any project's endpoint, and
// support re-delivers and enables or disables it, by the same use cases the partner's own routes run, in the
// endpoint's project; the endpoint as it was goes into the audit log.
import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WebhookDeliveriesService, WebhookEndpointsService } from '@mm/webhooks/application';
import { AdminRoute, Idempotent, type AuditedRequest } from '@mm/platform/http';
import { retrySelection } from './retry-selection';
import { toWebhook } from './webhooks.controller';
import { OperatorWebhookResponse, RetryDeliveriesRequest, RetryDeliveriesResponse } from './webhooks.dto';

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin/webhooks')
export class WebhooksAdminController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  private async operatorView(id: string, projectId?: string): Promise<OperatorWebhookResponse> {
    const project = projectId ?? (await this.endpoints.projectOf(id));
    return { ...toWebhook(await this.endpoints.require(project, id)), projectId: project };
  }

  @AdminRoute('viewer')
  @Get(':id')
  @ApiOperation({ summary: "Any project's webhook endpoint, with its project" })
  @ApiOkResponse({ type: OperatorWebhookResponse })
  get(@Param('id') id: string): Promise<OperatorWebhookResponse> {
    return this.operatorView(id);
  }

  @AdminRoute('support')
  @Post(':id/enable')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: "Enable a partner's disabled or suspended endpoint" })
  @ApiOkResponse({ type: OperatorWebhookResponse })
  async enable(@Param('id') id: string, @Req() request: AuditedRequest): Promise<OperatorWebhookResponse> {
    const projectId = await this.endpoints.projectOf(id);
    request.auditBefore = await this.operatorView(id, projectId);
    return { ...toWebhook(await this.endpoints.enable(projectId, id)), projectId };
  }

  @AdminRoute('support')
  @Post(':id/disable')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: "Disable a partner's endpoint: nothing is delivered or recorded for it until it is enabled",
  })
  @ApiOkResponse({ type: OperatorWebhookResponse })
  async disable(@Param('id') id: string, @Req() request: AuditedRequest): Promise<OperatorWebhookResponse> {
    const projectId = await this.endpoints.projectOf(id);
    request.auditBefore = await this.operatorView(id, projectId);
    return { ...toWebhook(await this.endpoints.disable(projectId, id)), projectId };
  }

  @AdminRoute('support')
  @Post(':id/deliveries/retry')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary:
      "Requeue a partner endpoint's deliveries now, by ids or by status and creation range, as the partner's own retry does",
  })
  @ApiOkResponse({ type: RetryDeliveriesResponse })
  async retry(@Param('id') id: string, @Body() body: RetryDeliveriesRequest): Promise<RetryDeliveriesResponse> {
    const selection = retrySelection(body);
    const ids = await this.deliveries.retry(await this.endpoints.projectOf(id), id, selection);
    return { requeued: ids.length, deliveryIds: ids };
  }
}
