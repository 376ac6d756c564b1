import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { WebhookEndpointStatus } from '@mm/contracts';
import { WEBHOOK_DEFAULTS } from '@mm/webhooks/domain';
import { IsNotBlank, IsOptionalNotNull } from '@mm/platform/http';
import { MAX_URL_LENGTH } from '@mm/webhooks/application';

class WebhookSettingsRequest {
  @ApiPropertyOptional({ minimum: 1, maximum: WEBHOOK_DEFAULTS.maxTimeoutMs, default: WEBHOOK_DEFAULTS.timeoutMs, description: 'from connect through response' })
  @IsOptionalNotNull() @IsInt() @Min(1) @Max(WEBHOOK_DEFAULTS.maxTimeoutMs)
  timeoutMs?: number;

  @ApiPropertyOptional({ minimum: WEBHOOK_DEFAULTS.minNotifyThresholdSecs, maximum: WEBHOOK_DEFAULTS.maxNotifyThresholdSecs, default: WEBHOOK_DEFAULTS.notifyThresholdSecs })
  @IsOptionalNotNull() @IsInt() @Min(WEBHOOK_DEFAULTS.minNotifyThresholdSecs) @Max(WEBHOOK_DEFAULTS.maxNotifyThresholdSecs)
  notifyThresholdSecs?: number;

  @ApiPropertyOptional({ maxLength: 500, nullable: true }) @IsOptional() @IsString() @MaxLength(500)
  description?: string | null;
}

export class CreateWebhookRequest extends WebhookSettingsRequest {
  @ApiProperty({ example: 'https://example.com/webhooks', maxLength: MAX_URL_LENGTH }) @IsString() @IsNotBlank() @MaxLength(MAX_URL_LENGTH)
  url!: string;

  @ApiProperty({ type: [String], example: ['*'], description: 'event names of the catalogue, or * for every partner-visible event but the compliance review events' })
  @IsArray() @ArrayMinSize(1) @ArrayMaxSize(200) @IsString({ each: true }) @MaxLength(100, { each: true })
  subscriptions!: string[];
}

export class UpdateWebhookRequest extends WebhookSettingsRequest {
  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH }) @IsOptionalNotNull() @IsString() @IsNotBlank() @MaxLength(MAX_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional({ type: [String] }) @IsOptionalNotNull() @IsArray() @ArrayMinSize(1) @ArrayMaxSize(200) @IsString({ each: true }) @MaxLength(100, { each: true })
  subscriptions?: string[];
}

export class WebhookResponse {
  @ApiProperty({ example: 'wh_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['webhookEndpoint'] }) object!: 'webhookEndpoint';
  @ApiProperty() url!: string;
  @ApiProperty({ type: [String] }) subscriptions!: string[];
  @ApiProperty() timeoutMs!: number;
  @ApiProperty() notifyThresholdSecs!: number;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ enum: ['enabled', 'disabled', 'suspended'] }) status!: WebhookEndpointStatus;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class WebhookWithKeyResponse extends WebhookResponse {
  @ApiProperty({ description: 'whsec_…: shown only in this response; verifies the Webhook-Signature header' }) signingKey!: string;
}
