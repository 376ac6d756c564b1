import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExcludeController,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { EventPattern, Payload } from '@nestjs/microservices';
import { type AcceptedQuote, type AcceptQuoteRequest, type EventPayloads } from '@mm/contracts';
import { AcceptQuoteHandler, CashPickupsService, QuotesService } from '@mm/quoting/application';
import type { QuoteRow } from '@mm/quoting/infrastructure';
import type { RecordedEvent } from '@mm/platform/event-store';
import { Idempotent, InternalRoute, NoIdempotencyKey, ProjectId } from '@mm/platform/http';
import { CreateQuoteRequest, QuoteResponse } from './quotes.dto';

export function toQuote(row: QuoteRow): QuoteResponse {
  const q = row.record;
  return {
    id: q.quoteId,
    object: 'quote',
    status: row.status,
    customerId: q.customerId,
    sourceToDestination: q.sourceToDestination,
    source: { ...q.source },
    destination: { ...q.destination },
    sponsorGas: q.sponsorGas,
    ...(q.settlementType ? { settlementType: q.settlementType } : {}),
    pricing: { ...q.pricing },
    metadata: q.metadata,
    transactionId: row.transaction_id,
    expiresAt: q.expiresAt,
    createdAt: q.createdAt,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

@ApiTags('Quotes')
@ApiBearerAuth('bearer')
@Controller('quotes')
export class QuotesController {
  constructor(private readonly quotes: QuotesService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create a quote: pricing is locked until expiresAt',
    description:
      'The customer needs an active usd endorsement for a card, a cash pickup or a bank payout in USD, and an active basic endorsement for a bank payout in CAD (else 422 UsdEndorsementRequired or BasicEndorsementRequired).',
  })
  @ApiCreatedResponse({ type: QuoteResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateQuoteRequest): Promise<QuoteResponse> {
    return toQuote(await this.quotes.create(projectId, body));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a quote' })
  @ApiOkResponse({ type: QuoteResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<QuoteResponse> {
    return toQuote(await this.quotes.require(projectId, id));
  }
}

/** The quotes port across processes (ADR 0019). */
@ApiExcludeController()
@Controller('internal/quoting')
export class QuotesInternalController {
  constructor(private readonly quotes: AcceptQuoteHandler) {}

  @Post('accept')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  accept(@Body() body: { projectId: string } & AcceptQuoteRequest): Promise<AcceptedQuote> {
    return this.quotes.accept(body.projectId, {
      quoteId: body.quoteId,
      transactionId: body.transactionId,
      at: body.at,
    });
  }

  @Post('release')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(204)
  release(@Body() body: { projectId: string } & AcceptQuoteRequest): Promise<void> {
    return this.quotes.release(body.projectId, {
      quoteId: body.quoteId,
      transactionId: body.transactionId,
      at: body.at,
    });
  }
}

/**
 * What the quoting service projects from other services' logs for cash pickups: the cash-in service's
 * retail locations, and the transactions service's refund of a pickup that expired uncollected. (The
 * project's features are the gateway's, asked where a pickup is decided.)
 */
@Controller()
export class QuotingEventsController {
  constructor(private readonly cashPickups: CashPickupsService) {}

  @EventPattern('cashLocation.published')
  onCashLocationPublished(
    @Payload() event: RecordedEvent<'cashLocation.published', EventPayloads['cashLocation.published']>,
  ): Promise<void> {
    return this.cashPickups.onCashLocationPublished(event);
  }

  @EventPattern('transaction.refunded')
  onTransactionRefunded(
    @Payload() event: RecordedEvent<'transaction.refunded', EventPayloads['transaction.refunded']>,
  ): Promise<void> {
    return this.cashPickups.onTransactionRefunded(event);
  }
}
