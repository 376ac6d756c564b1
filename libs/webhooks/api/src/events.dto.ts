// The Events API's shapes (ADR 0034). An event is the envelope its deliveries
// carry, with the event's own evt_ id where a delivery has its whd_, and
// `object: "event"`.
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
} from 'class-validator';
import { PARTNER_EVENT_CATALOGUE, SEQUENCE_MEANING } from '@mm/contracts';
import { EVENT_NAMES_PAGE, TEST_EVENT } from '@mm/webhooks/domain';
import { ListQuery } from '@mm/platform/http';
import { idPattern } from '@mm/platform/ids';
import { WebhookDeliveryResponse } from './webhooks.dto';

const TIMESTAMP = { strict: true, strictSeparator: true };
/** Any resource's public id (spec: Identifiers). */
/** What `type` takes: the partner events of this version (a test send is not one: it belongs to its endpoint's deliveries). */
const LISTED_TYPES = PARTNER_EVENT_CATALOGUE.filter((name) => name !== TEST_EVENT);
const RESOURCE_ID = /^[a-z]+_([0-9a-hjkmnp-tv-z]{26}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export class ListEventsQuery extends ListQuery {
  @ApiPropertyOptional({
    enum: LISTED_TYPES,
    description: 'one event type: `event`, or `eventType` of a statusChanged event',
  })
  @IsOptional()
  @IsIn(LISTED_TYPES, {
    message: `type must be an event type of this version other than ${TEST_EVENT} (test sends are listed by GET /webhooks/{id}/deliveries?test=true): ${EVENT_NAMES_PAGE}`,
  })
  type?: string;

  @ApiPropertyOptional({
    example: 'txn_01h455vb4pex5vsknk084sn02q',
    description: 'the events of one resource: the id of their `data`',
  })
  @IsOptional()
  @IsString()
  @Matches(RESOURCE_ID, {
    message: 'resourceId must be the id of a resource, for example txn_01h455vb4pex5vsknk084sn02q',
  })
  resourceId?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'recorded at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601(TIMESTAMP)
  createdAfter?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'recorded before (ISO 8601)' })
  @IsOptional()
  @IsISO8601(TIMESTAMP)
  createdBefore?: string;
}

export class PartnerEventResponse {
  @ApiProperty({
    example: 'evt_01h455vb4pex5vsknk084sn02q',
    pattern: idPattern('event'),
    description: 'evt_: the event, the same in every delivery of it',
  })
  id!: string;
  @ApiProperty({ enum: ['event'] }) object!: 'event';
  @ApiPropertyOptional({ example: 'cashIn.completed', description: 'the event type, except on statusChanged events' })
  event?: string;
  @ApiPropertyOptional({ example: 'transaction.statusChanged', description: 'the event type of a statusChanged event' })
  eventType?: string;
  @ApiPropertyOptional({ description: 'statusChanged events: the evt_ again, as their deliveries carry it' })
  eventId?: string;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'statusChanged events: the status before' })
  previousStatus?: string | null;
  @ApiPropertyOptional({ type: 'integer', description: SEQUENCE_MEANING }) sequence?: number;
  @ApiProperty({
    format: 'date-time',
    description: 'when the event was recorded: the creation time of the deliveries made for it then',
  })
  createdAt!: string;
  @ApiProperty({ format: 'date-time', description: 'when the event occurred' }) occurredAt!: string;
  @ApiPropertyOptional({
    type: [String],
    description: 'externalAccount.updated and the other updates that name their change: the fields of data it changed',
  })
  changedFields?: string[];
  @ApiProperty({
    type: 'object',
    properties: {
      object: {
        type: 'string',
        example: 'transaction',
        description: 'which resource, whose fields are those of its GET response',
      },
    },
    additionalProperties: true,
    description:
      "the resource as of the event, as its GET answered it then (named by object). Each event's data is described under webhooks",
  })
  data!: Record<string, unknown>;
}

export class ResendEventsRequest {
  @ApiProperty({
    type: [String],
    minItems: 1,
    maxItems: 100,
    example: ['evt_01h455vb4pex5vsknk084sn02q'],
    description: 'evt_ ids, from GET /events',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  eventIds!: string[];
}

export class ResendEventsResponse {
  @ApiProperty({
    type: [WebhookDeliveryResponse],
    description: 'the new deliveries, queued, in the order the events occurred',
  })
  deliveries!: WebhookDeliveryResponse[];
  @ApiProperty({ type: [String], description: 'the events given that the endpoint does not subscribe to: not sent' })
  notSubscribed!: string[];
}
