import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { ListQuery } from '@mm/platform/http';

export class CreateTransactionRequest {
  @ApiProperty({ example: 'qt_01h455vb4pex5vsknk084sn02q', description: 'the open quote: its pricing is the contract' }) @IsString() @MaxLength(64) quoteId!: string;
}

export const TRANSACTION_STATUSES = ['processing', 'awaitingAction', 'completed', 'failed'] as const;

export class ListTransactionsQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'transactions where this customer is on either side' }) @IsOptional() @IsString() @MaxLength(64) customerId?: string;
  @ApiPropertyOptional({ enum: TRANSACTION_STATUSES, description: 'a refund in flight is processing, not failed' })
  @IsOptional() @IsIn(TRANSACTION_STATUSES, { message: `status must be one of ${TRANSACTION_STATUSES.join(', ')}` })
  status?: string;
}

export class TransactionResponse {
  @ApiProperty({ example: 'txn_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['transaction'] }) object!: 'transaction';
  @ApiProperty({ enum: ['cryptoToCrypto', 'cryptoToCash', 'cryptoToFiatAccount', 'cashToCrypto', 'fiatAccountToCrypto'] }) sourceToDestination!: string;
  @ApiProperty({ enum: TRANSACTION_STATUSES }) status!: string;
  @ApiProperty({ nullable: true, type: String, example: 'processing.fundsPulled' }) subStatus!: string | null;
  @ApiProperty() customerId!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: '{type, id}: quote, depositAddress, virtualAccount or cashIn' }) precursor!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'party, type, category, details' }) source!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) destination!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: true }) pricing!: Record<string, unknown>;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, description: 'transfers with txHash, imad, uetr, endToEndId, failure; a cash pickup\'s payout (rail cash) also pickupCode' }) legs!: Array<Record<string, unknown>>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) payoutOrigin?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'only while awaitingAction' }) hold?: Record<string, unknown>;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'SettlementError, on failure' }) error?: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class OperatorActionRequest {
  @ApiPropertyOptional({ maxLength: 500, description: 'why: recorded with the transaction' }) @IsOptional() @IsString() @MinLength(1) @MaxLength(500) reason?: string;
}

export const CASH_PICKUP_OUTCOMES = ['collected', 'expired'] as const;

export class SimulateCashPickupRequest {
  @ApiProperty({ enum: CASH_PICKUP_OUTCOMES, description: 'collected: the recipient took the cash; expired: nobody came, the money goes back to the source wallet' })
  @IsIn(CASH_PICKUP_OUTCOMES, { message: `outcome must be one of ${CASH_PICKUP_OUTCOMES.join(', ')}` })
  outcome!: (typeof CASH_PICKUP_OUTCOMES)[number];
}

export class CompleteRefundRequest {
  @ApiProperty({ maxLength: 500 }) @IsString() @MinLength(1) @MaxLength(500) reason!: string;
}

export class OperatorResultResponse {
  @ApiProperty({ enum: ['retried', 'refunding', 'markedFailed', 'already_completed', 'completedByProvider'] }) result!: 'retried' | 'refunding' | 'markedFailed' | 'already_completed' | 'completedByProvider';
  @ApiProperty({ type: TransactionResponse }) transaction!: TransactionResponse;
}
