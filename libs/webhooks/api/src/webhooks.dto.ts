import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { SEQUENCE_MEANING, type WebhookEndpointStatus } from '@mm/contracts';
import { MAX_URL_LENGTH, WEBHOOK_DEFAULTS } from '@mm/webhooks/domain';
import { IsLabel, IsNotBlank, IsOptionalNotNull, ListQuery } from '@mm/platform/http';
import { DELIVERY_STATUSES, type DeliveryStatus } from '@mm/webhooks/infrastructure';

const URL_RULES =
  'an absolute http or https URL without credentials, fragment, whitespace, control characters or backslashes, and not port 0; ' +
  'in production, a public host. Kept and shown in its normal form, the one deliveries call (lower-case scheme and host, IDNA, no default port)';

class WebhookSettingsRequest {
  @ApiPropertyOptional({
    minimum: 1,
    maximum: WEBHOOK_DEFAULTS.maxTimeoutMs,
    default: WEBHOOK_DEFAULTS.timeoutMs,
    description: 'from connect through response',
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(WEBHOOK_DEFAULTS.maxTimeoutMs)
  timeoutMs?: number;

  @ApiPropertyOptional({
    minimum: WEBHOOK_DEFAULTS.minNotifyThresholdSecs,
    maximum: WEBHOOK_DEFAULTS.maxNotifyThresholdSecs,
    default: WEBHOOK_DEFAULTS.notifyThresholdSecs,
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(WEBHOOK_DEFAULTS.minNotifyThresholdSecs)
  @Max(WEBHOOK_DEFAULTS.maxNotifyThresholdSecs)
  notifyThresholdSecs?: number;

  @ApiPropertyOptional({
    maxLength: 500,
    nullable: true,
    type: String,
    description: 'trimmed; one line of visible text; null removes it',
  })
  @IsOptional()
  @IsLabel(500)
  description?: string | null;
}

export class CreateWebhookRequest extends WebhookSettingsRequest {
  @ApiProperty({ example: 'https://example.com/webhooks', maxLength: MAX_URL_LENGTH, description: URL_RULES })
  @IsString()
  @IsNotBlank()
  @MaxLength(MAX_URL_LENGTH)
  url!: string;

  @ApiProperty({
    type: [String],
    example: ['*'],
    description: 'event names of the catalogue, or * for every partner-visible event but the compliance review events',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  subscriptions!: string[];
}

export class UpdateWebhookRequest extends WebhookSettingsRequest {
  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH, description: URL_RULES })
  @IsOptionalNotNull()
  @IsString()
  @IsNotBlank()
  @MaxLength(MAX_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(200)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  subscriptions?: string[];
}

export class WebhookResponse {
  @ApiProperty({ example: 'wh_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['webhookEndpoint'] }) object!: 'webhookEndpoint';
  @ApiProperty({ description: 'the url in its normal form, as deliveries call it' }) url!: string;
  @ApiProperty({ type: [String] }) subscriptions!: string[];
  @ApiProperty() timeoutMs!: number;
  @ApiProperty() notifyThresholdSecs!: number;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ enum: ['enabled', 'disabled', 'suspended'] }) status!: WebhookEndpointStatus;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** An endpoint as an operator reads it: with the project it belongs to. */
export class OperatorWebhookResponse extends WebhookResponse {
  @ApiProperty({ example: 'prj_01h455vb4pex5vsknk084sn02q' }) projectId!: string;
}

export class WebhookWithKeyResponse extends WebhookResponse {
  @ApiProperty({ description: 'whsec_…: shown only in this response; verifies the Webhook-Signature header' })
  signingKey!: string;
}

const TIMESTAMP = { strict: true, strictSeparator: true };

export class ListDeliveriesQuery extends ListQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  @ApiPropertyOptional({ description: 'evt_ id: the deliveries of one event' })
  @IsOptional()
  @IsString()
  @Matches(/^evt_[0-9a-z]{26}$/, { message: 'eventId must be an event id (evt_…)' })
  eventId?: string;

  @ApiPropertyOptional({ enum: ['true', 'false'], description: 'only test sends, or none' })
  @IsOptional()
  @IsIn(['true', 'false'])
  test?: 'true' | 'false';

  @ApiPropertyOptional({ format: 'date-time', description: 'created at or after' })
  @IsOptional()
  @IsISO8601(TIMESTAMP)
  createdAfter?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'created before' })
  @IsOptional()
  @IsISO8601(TIMESTAMP)
  createdBefore?: string;
}

export class RetryDeliveriesRequest {
  @ApiPropertyOptional({ type: [String], maxItems: 100, description: 'whd_ ids; or give status and a range' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  deliveryIds?: string[];

  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptionalNotNull()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalNotNull()
  @IsISO8601(TIMESTAMP)
  createdAfter?: string;

  @ApiPropertyOptional({ format: 'date-time' })
  @IsOptionalNotNull()
  @IsISO8601(TIMESTAMP)
  createdBefore?: string;
}

export class RetryDeliveriesResponse {
  @ApiProperty() requeued!: number;
  @ApiProperty({ type: [String] }) deliveryIds!: string[];
}

export class WebhookDeliveryResponse {
  @ApiProperty({ example: 'whd_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['webhookDelivery'] }) object!: 'webhookDelivery';
  @ApiProperty() webhookId!: string;
  @ApiProperty({ description: 'evt_: the event, shared by its deliveries to every endpoint' }) eventId!: string;
  @ApiProperty({ description: 'the event name' }) event!: string;
  @ApiProperty() test!: boolean;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: DeliveryStatus;
  @ApiProperty({
    type: 'integer',
    description:
      'attempts since the last retry (POST .../deliveries/retry sets it back to 0), which the schedule and the 10-attempt limit go by',
  })
  attemptCount!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) nextAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastAttemptAt!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) deliveredAt!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class WebhookDeliveryAttempt {
  @ApiProperty({
    type: 'integer',
    description: "the attempt's number in the delivery's whole history: retries do not start it again",
  })
  attempt!: number;
  @ApiProperty({ format: 'date-time' }) attemptedAt!: string;
  @ApiProperty({ description: 'from connect through response' }) durationMs!: number;
  @ApiProperty({ nullable: true, type: Number }) statusCode!: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'timeout or network error' }) error!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'the first 1 KiB of the answer' }) responseBody!:
    string | null;
}

/** spec: Events / Envelope. The five statusChanged events name themselves in eventType (with eventId and previousStatus), the others in event. */
export class WebhookEnvelope {
  @ApiProperty({ example: 'whd_01h455vb4pex5vsknk084sn02q', description: 'the delivery: the deduplication key' })
  id!: string;
  @ApiPropertyOptional({ example: 'cashIn.completed', description: 'the event type, except on statusChanged events' })
  event?: string;
  @ApiPropertyOptional({ example: 'transaction.statusChanged', description: 'the event type of a statusChanged event' })
  eventType?: string;
  @ApiPropertyOptional({ description: 'evt_ of a statusChanged event, shared by its deliveries to every endpoint' })
  eventId?: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'statusChanged events: the status before' })
  previousStatus?: string | null;
  @ApiPropertyOptional({ type: 'integer', description: SEQUENCE_MEANING }) sequence?: number;
  @ApiProperty({ format: 'date-time', description: 'delivery creation' }) createdAt!: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'when the event occurred' }) occurredAt?: string;
  @ApiPropertyOptional({
    type: [String],
    description:
      'every *.updated event, and only those: the fields of data the change changed (beside data, not inside it)',
  })
  changedFields?: string[];
  @ApiProperty({
    type: 'object',
    properties: {
      object: {
        type: 'string',
        example: 'transaction',
        description: 'always present: which resource, whose fields are those of its GET response',
      },
    },
    additionalProperties: true,
    description:
      "the resource as of the event, as its GET answers it (named by object); webhook.test carries the endpoint. Each event's data is described under webhooks",
  })
  data!: Record<string, unknown>;
}

export class WebhookDeliveryDetailResponse extends WebhookDeliveryResponse {
  @ApiProperty({ type: WebhookEnvelope, description: 'the envelope as posted' }) payload!: Record<string, unknown>;
  @ApiProperty({ type: [WebhookDeliveryAttempt] }) attempts!: WebhookDeliveryAttempt[];
}
