// Request and response shapes of quotes (spec: Quote, Pricing, Party).
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import { DESTINATION_TYPES, SOURCE_TYPES } from '@mm/quoting/domain';
import { InstrumentSideResponse, IsAmount, IsMetadata, IsOptionalNotNull, PricingResponse } from '@mm/platform/http';

export class InstrumentDetailsRequest {
  @ApiPropertyOptional({ description: 'the wallet (wlt_) or external account (ext_)' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  id?: string;
  @ApiPropertyOptional({ description: 'cards: the card (ext_)' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  externalAccountId?: string;
  @ApiPropertyOptional({ description: 'card buys: an optional custodial wallet of the customer' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  walletId?: string;
  @ApiPropertyOptional({ description: 'never accepted on a card quote source' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(128)
  address?: string;
  @ApiPropertyOptional({ example: 'usdc' }) @IsOptionalNotNull() @IsString() @MaxLength(16) asset?: string;
  @ApiPropertyOptional({
    example: 'ach',
    description: 'bank destinations: ach, achSameDay or wire (bankUs), swift (bankIban), swift or local (bankCanada)',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(32)
  network?: string;
  @ApiPropertyOptional({ enum: ['customer'], description: 'bank destinations: only customer' })
  @IsOptionalNotNull()
  @IsIn(['customer'], { message: 'accountHolder must be customer' })
  accountHolder?: 'customer';
  @ApiPropertyOptional({
    example: 'loc_01m846c3h5e06945kk49eh66ba',
    description: 'cash destinations: the pickup location (GET /cash-locations?flow=cash_out)',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  cashLocationId?: string;
  @ApiPropertyOptional({
    example: 'BIGMART-1006',
    description: "cash destinations: the location's cashLocationReference",
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(128)
  cashLocationReference?: string;
}

export class QuoteSourceRequest {
  @ApiProperty({ enum: SOURCE_TYPES }) @IsString() @MaxLength(32) type!: string;
  @ApiProperty({ type: InstrumentDetailsRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => InstrumentDetailsRequest)
  details!: InstrumentDetailsRequest;
  @ApiPropertyOptional({ example: '100.00', description: 'on exactly one side: that side is fixedAmountSide' })
  @IsOptionalNotNull()
  @IsAmount()
  amount?: string;
}

export class QuoteDestinationRequest extends QuoteSourceRequest {
  @ApiProperty({ enum: DESTINATION_TYPES }) declare type: string;
}

export class CreateQuoteRequest {
  @ApiProperty({ example: 'cst_01h455vb4pex5vsknk084sn02q', description: 'the quote owner and sender' })
  @IsString()
  @MaxLength(64)
  customerId!: string;
  @ApiProperty({ type: QuoteSourceRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => QuoteSourceRequest)
  source!: QuoteSourceRequest;
  @ApiProperty({ type: QuoteDestinationRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => QuoteDestinationRequest)
  destination!: QuoteDestinationRequest;
  @ApiPropertyOptional({ default: true }) @IsOptionalNotNull() @IsBoolean() sponsorGas?: boolean;
  @ApiPropertyOptional({
    enum: ['internal', 'external'],
    description: 'card rail only; default external for card buys, internal for card sells',
  })
  @IsOptionalNotNull()
  @IsIn(['internal', 'external'], { message: 'settlementType must be internal or external' })
  settlementType?: 'internal' | 'external';
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

/** A quote side: the instrument, its party, and the amount on the side the caller fixed. */
export class QuoteSideResponse extends InstrumentSideResponse {
  @ApiPropertyOptional({ example: '100.00', description: 'on the fixed side only (pricing.fixedAmountSide)' })
  amount?: string;
}

export class QuoteResponse {
  @ApiProperty({ example: 'qt_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['quote'] }) object!: 'quote';
  @ApiProperty({ enum: ['open', 'accepted', 'expired'] }) status!: string;
  @ApiProperty() customerId!: string;
  @ApiProperty({ enum: ['cryptoToCrypto', 'cryptoToCash', 'cryptoToFiatAccount', 'fiatAccountToCrypto'] })
  sourceToDestination!: string;
  @ApiProperty({ type: QuoteSideResponse }) source!: Record<string, unknown>;
  @ApiProperty({ type: QuoteSideResponse }) destination!: Record<string, unknown>;
  @ApiProperty() sponsorGas!: boolean;
  @ApiPropertyOptional({ enum: ['internal', 'external'] }) settlementType?: string;
  @ApiProperty({ type: PricingResponse }) pricing!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ nullable: true, type: String, description: 'the transaction that accepted the quote' })
  transactionId!: string | null;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}
