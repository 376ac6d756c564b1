import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { EventPattern, Payload } from '@nestjs/microservices';
import type { EventPayloads } from '@mm/contracts';
import {
  PartnerEventsService,
  WebhookDeliveriesService,
  WebhookEndpointsService,
  WebhookFanOut,
} from '@mm/webhooks/application';
import {
  WebhooksReadModels,
  type AttemptRow,
  type DeliveryRow,
  type EndpointRow,
  type PartnerEventRow,
} from '@mm/webhooks/infrastructure';
import type { RecordedEvent } from '@mm/platform/event-store';
import {
  ApiPage,
  decodeCursor,
  Idempotent,
  ListQuery,
  NoStore,
  pageLimit,
  ProjectId,
  SealedReplay,
  toPage,
  type Page,
} from '@mm/platform/http';
import {
  CreateWebhookRequest,
  ListDeliveriesQuery,
  RetryDeliveriesRequest,
  RetryDeliveriesResponse,
  UpdateWebhookRequest,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
  WebhookResponse,
  WebhookWithKeyResponse,
} from './webhooks.dto';
import { retrySelection } from './retry-selection';
import { ListEventsQuery, PartnerEventResponse, ResendEventsRequest, ResendEventsResponse } from './events.dto';

export function toWebhook(row: EndpointRow): WebhookResponse {
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

const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);

function toDelivery(row: DeliveryRow): WebhookDeliveryResponse {
  return {
    id: row.id,
    object: 'webhookDelivery',
    webhookId: row.webhook_id,
    eventId: row.event_id,
    event: row.event,
    test: row.test,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: row.status === 'queued' ? iso(row.next_attempt_at) : null,
    lastAttemptAt: iso(row.last_attempt_at),
    deliveredAt: iso(row.delivered_at),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

function toDeliveryDetail(row: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryDetailResponse {
  return {
    ...toDelivery(row),
    payload: JSON.parse(row.body) as Record<string, unknown>,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      attemptedAt: new Date(a.attempted_at).toISOString(),
      durationMs: a.duration_ms,
      statusCode: a.status_code,
      error: a.error,
      responseBody: a.response_body,
    })),
  };
}

@ApiTags('Webhooks')
@ApiBearerAuth('bearer')
@Controller('webhooks')
export class WebhooksController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly readModels: WebhooksReadModels,
    private readonly deliveries: WebhookDeliveriesService,
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
    const page = toPage(
      await this.readModels.listEndpoints(projectId, decodeCursor(query.cursor), limit),
      limit,
      (r) => r.id,
    );
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
  async update(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: UpdateWebhookRequest,
  ): Promise<WebhookResponse> {
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
  @ApiOperation({
    summary:
      'Replace the signing key. The new key is in this response only; the old one goes on signing deliveries beside it for 24 hours (a second v1 in Webhook-Signature), then stops',
  })
  @ApiOkResponse({ type: WebhookWithKeyResponse })
  async rotateKey(@ProjectId() projectId: string, @Param('id') id: string): Promise<WebhookWithKeyResponse> {
    const { endpoint, signingKey } = await this.endpoints.rotateKey(projectId, id);
    return { ...toWebhook(endpoint), signingKey };
  }

  @Post(':id/test')
  @Idempotent()
  @ApiOperation({ summary: 'Send webhook.test to this endpoint, whatever it subscribes to; answers the delivery' })
  @ApiCreatedResponse({ type: WebhookDeliveryResponse })
  async test(@ProjectId() projectId: string, @Param('id') id: string): Promise<WebhookDeliveryResponse> {
    return toDelivery(await this.deliveries.test(projectId, id, (row) => ({ ...toWebhook(row) })));
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: "List the endpoint's deliveries, newest first; deleted endpoints' history too, for the retention window",
  })
  @ApiPage(WebhookDeliveryResponse)
  async listDeliveries(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Query() query: ListDeliveriesQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const limit = pageLimit(query);
    const filter = {
      status: query.status,
      eventId: query.eventId,
      test: query.test === undefined ? undefined : query.test === 'true',
      createdAfter: query.createdAfter,
      createdBefore: query.createdBefore,
    };
    const page = toPage(
      await this.deliveries.list(projectId, id, filter, decodeCursor(query.cursor), limit),
      limit,
      (r) => r.id,
    );
    return { ...page, data: page.data.map(toDelivery) };
  }

  @Post(':id/deliveries/retry')
  @Idempotent()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Requeue deliveries now, by ids or by status and creation range; the attempt count starts again',
    description:
      'Each selected delivery is queued, due now, with attemptCount back to 0 (the schedule of 10 attempts starts again); its attempt history is kept, ' +
      'and attempts[].attempt keeps counting (the next attempt is numbered after the last). A delivery has one attempt in flight at a time: ' +
      'one with an attempt in flight is still requeued (it is among deliveryIds), and its retry is made right after that attempt ends, whatever its outcome, never beside it.',
  })
  @ApiOkResponse({ type: RetryDeliveriesResponse })
  async retry(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: RetryDeliveriesRequest,
  ): Promise<RetryDeliveriesResponse> {
    const ids = await this.deliveries.retry(projectId, id, retrySelection(body));
    return { requeued: ids.length, deliveryIds: ids };
  }

  @Post(':id/deliveries')
  @Idempotent()
  @ApiOperation({
    summary:
      "Send these events (GET /events) to this endpoint again: new deliveries, queued now, with the events' evt_ ids; events it does not subscribe to are skipped and named",
  })
  @ApiCreatedResponse({ type: ResendEventsResponse })
  async resendEvents(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Body() body: ResendEventsRequest,
  ): Promise<ResendEventsResponse> {
    const { deliveries, notSubscribed } = await this.deliveries.resend(projectId, id, body.eventIds);
    return { deliveries: deliveries.map(toDelivery), notSubscribed };
  }

  @Get(':id/deliveries/:deliveryId')
  @ApiOperation({ summary: 'A delivery with its envelope and every HTTP attempt' })
  @ApiOkResponse({ type: WebhookDeliveryDetailResponse })
  async getDelivery(
    @ProjectId() projectId: string,
    @Param('id') id: string,
    @Param('deliveryId') deliveryId: string,
  ): Promise<WebhookDeliveryDetailResponse> {
    const { delivery, attempts } = await this.deliveries.get(projectId, id, deliveryId);
    return toDeliveryDetail(delivery, attempts);
  }
}

function toEvent(row: PartnerEventRow): PartnerEventResponse {
  const { id: _evt, ...envelope } = JSON.parse(row.body) as Record<string, unknown>;
  return { id: row.event_id, object: 'event', ...envelope } as PartnerEventResponse;
}

/** The Events API (ADR 0034): every partner event of the project, as the webhooks delivered it. */
@ApiTags('Events')
@ApiBearerAuth('bearer')
@Controller('events')
export class EventsController {
  constructor(private readonly events: PartnerEventsService) {}

  @Get()
  @ApiOperation({
    summary:
      'List the partner events of the retention window, newest first (the order they were recorded), whether or not an endpoint received them; filters type, resourceId, createdAfter (inclusive), createdBefore (exclusive)',
  })
  @ApiPage(PartnerEventResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListEventsQuery): Promise<Page<PartnerEventResponse>> {
    const limit = pageLimit(query);
    const filter = {
      type: query.type,
      resourceId: query.resourceId,
      createdAfter: query.createdAfter,
      createdBefore: query.createdBefore,
    };
    const page = toPage(
      await this.events.list(projectId, filter, decodeCursor(query.cursor), limit),
      limit,
      (r) => r.event_id,
    );
    return { ...page, data: page.data.map(toEvent) };
  }

  @Get(':eventId')
  @ApiOperation({ summary: 'An event: its envelope as delivered, with the evt_ id' })
  @ApiOkResponse({ type: PartnerEventResponse })
  async get(@ProjectId() projectId: string, @Param('eventId') eventId: string): Promise<PartnerEventResponse> {
    return toEvent(await this.events.get(projectId, eventId));
  }
}

/** Every partner-visible event of every service's log, fanned out to the subscribed endpoints. */
@Controller()
export class WebhooksEventsController {
  constructor(private readonly fanOut: WebhookFanOut) {}

  @EventPattern('partnerEvent.published')
  onPartnerEvent(
    @Payload() event: RecordedEvent<'partnerEvent.published', EventPayloads['partnerEvent.published']>,
  ): Promise<void> {
    return this.fanOut.onPartnerEvent(event);
  }
}
