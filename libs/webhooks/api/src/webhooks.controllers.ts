import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WebhookEndpointsService } from '@mm/webhooks/application';
import { WebhooksReadModels, type EndpointRow } from '@mm/webhooks/infrastructure';
import { ApiPage, decodeCursor, Idempotent, ListQuery, NoStore, pageLimit, ProjectId, SealedReplay, toPage, type Page } from '@mm/platform/http';
import { CreateWebhookRequest, UpdateWebhookRequest, WebhookResponse, WebhookWithKeyResponse } from './webhooks.dto';

function toWebhook(row: EndpointRow): WebhookResponse {
  return {
    id: row.id,
    object: 'webhookEndpoint',
    url: row.url,
    subscriptions: row.subscriptions,
    timeoutMs: row.timeout_ms,
    notifyThresholdSecs: row.notify_threshold_secs,
    description: row.description,
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

@ApiTags('Webhooks')
@ApiBearerAuth('bearer')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly readModels: WebhooksReadModels,
  ) {}

  @Post()
  @Idempotent()
  // The signing key: not cached on the way, and kept sealed for a retry with the same key.
  @NoStore()
  @SealedReplay()
  @ApiOperation({ summary: 'Create a webhook endpoint; the signing key is in this response only' })
  @ApiCreatedResponse({ type: WebhookWithKeyResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateWebhookRequest): Promise<WebhookWithKeyResponse> {
    const { endpoint, signingKey } = await this.endpoints.create(projectId, body);
    return { ...toWebhook(endpoint), signingKey };
  }

  @Get()
  @ApiOperation({ summary: 'List webhook endpoints, newest first' })
  @ApiPage(WebhookResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListQuery): Promise<Page<WebhookResponse>> {
    const limit = pageLimit(query);
    const page = toPage(await this.readModels.listEndpoints(projectId, decodeCursor(query.cursor), limit), limit, (r) => r.id);
    return { ...page, data: page.data.map(toWebhook) };
  }

  @Get(':id')
  @ApiOkResponse({ type: WebhookResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<WebhookResponse> {
    return toWebhook(await this.endpoints.require(projectId, id));
  }

  @Patch(':id')
  @Idempotent()
  @ApiOperation({ summary: 'Change url, subscriptions, timeoutMs, notifyThresholdSecs or description' })
  @ApiOkResponse({ type: WebhookResponse })
  async update(@ProjectId() projectId: string, @Param('id') id: string, @Body() body: UpdateWebhookRequest): Promise<WebhookResponse> {
    return toWebhook(await this.endpoints.update(projectId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete softly: gone from reads, its delivery history kept for the retention window' })
  @ApiNoContentResponse()
  async delete(@ProjectId() projectId: string, @Param('id') id: string): Promise<void> {
    await this.endpoints.delete(projectId, id);
  }

  @Post(':id/enable')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Enable a disabled or suspended endpoint' })
  @ApiOkResponse({ type: WebhookResponse })
  async enable(@ProjectId() projectId: string, @Param('id') id: string): Promise<WebhookResponse> {
    return toWebhook(await this.endpoints.enable(projectId, id));
  }

  @Post(':id/disable')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({ summary: 'Disable an endpoint: nothing is delivered or recorded for it until it is enabled' })
  @ApiOkResponse({ type: WebhookResponse })
  async disable(@ProjectId() projectId: string, @Param('id') id: string): Promise<WebhookResponse> {
    return toWebhook(await this.endpoints.disable(projectId, id));
  }

  @Post(':id/rotate-key')
  @Idempotent()
  @NoStore()
  @SealedReplay()
  @HttpCode(200)
  @ApiOperation({ summary: 'Replace the signing key; the old one stops verifying at once. The new key is in this response only' })
  @ApiOkResponse({ type: WebhookWithKeyResponse })
  async rotateKey(@ProjectId() projectId: string, @Param('id') id: string): Promise<WebhookWithKeyResponse> {
    const { endpoint, signingKey } = await this.endpoints.rotateKey(projectId, id);
    return { ...toWebhook(endpoint), signingKey };
  }
}
