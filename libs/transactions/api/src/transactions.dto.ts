import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { InstrumentSideResponse, IsAmount, IsNotBlank, ListQuery, PricingResponse } from '@mm/platform/http';

export class CreateTransactionRequest {
  @ApiProperty({ example: 'qt_01h455vb4pex5vsknk084sn02q', description: 'the open quote: its pricing is the contract' })
  @IsString()
  @MaxLength(64)
  quoteId!: string;
}

export const TRANSACTION_STATUSES = ['processing', 'awaitingAction', 'completed', 'failed'] as const;

export class ListTransactionsQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'transactions where this customer is on either side' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  customerId?: string;
  @ApiPropertyOptional({ enum: TRANSACTION_STATUSES, description: 'a refund in flight is processing, not failed' })
  @IsOptional()
  @IsIn(TRANSACTION_STATUSES, { message: `status must be one of ${TRANSACTION_STATUSES.join(', ')}` })
  status?: string;
  @ApiPropertyOptional({
    maxLength: 200,
    description:
      'transactions with a leg whose rail reference is exactly this: txHash (in any case), imad, uetr, endToEndId, pickupCode or instructionId',
  })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @MaxLength(200)
  reference?: string;
}

export class PrecursorResponse {
  @ApiProperty({ enum: ['quote', 'depositAddress', 'virtualAccount', 'cashIn'] }) type!: string;
  @ApiProperty({ example: 'qt_01h455vb4pex5vsknk084sn02q' }) id!: string;
}

export class LegFailureResponse {
  @ApiProperty({
    example: 'providerError',
    description: 'providerError, providerTimeout, a card decline code or cardVerificationDeclined',
  })
  code!: string;
  @ApiProperty() message!: string;
}

/** One transfer of the transaction, with the rail's own references. */
export class TransactionLegResponse {
  @ApiProperty() id!: string;
  @ApiProperty({
    enum: ['deposit', 'payout', 'refund'],
    description: 'deposit: money coming in; payout: money going out; refund: back to the source',
  })
  kind!: string;
  @ApiProperty({
    example: 'ach',
    description:
      'the rail: crypto, card, ach, achSameDay, wire, swift, local, cash, or internationalWire (an inbound transfer to a virtual account)',
  })
  rail!: string;
  @ApiProperty({ example: 'usd' }) asset!: string;
  @ApiProperty({ example: 'ach' }) network!: string;
  @ApiProperty({ example: '100.00' }) amount!: string;
  @ApiProperty({ enum: ['pending', 'settled', 'failed'] }) status!: string;
  @ApiProperty({ nullable: true, type: String, description: 'on-chain transfers' }) txHash!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Fedwire' }) imad!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'SWIFT' }) uetr!: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'ACH and local rails' }) endToEndId!: string | null;
  @ApiProperty({ type: LegFailureResponse, nullable: true }) failure!: LegFailureResponse | null;
  @ApiProperty({ format: 'date-time' }) initiatedAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) settledAt!: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description:
      "a cash pickup's payout (rail cash): the code the recipient collects the cash with, once the network issued it",
  })
  pickupCode?: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description:
      'an incoming wire to a virtual account (rail wire or internationalWire): the instruction id of an international wire, once the bank settled it (null otherwise)',
  })
  instructionId?: string | null;
}

export class PayoutOriginResponse {
  @ApiProperty({ enum: ['quote', 'depositAddress', 'virtualAccount', 'cashIn'] }) type!: string;
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['customer'] }) accountHolder!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      "the customer's name, as it was when the transaction was made; null only on transactions made before it was kept",
  })
  accountHolderName!: string | null;
}

export class HoldMatchResponse {
  @ApiProperty() address!: string;
  @ApiProperty() network!: string;
}

export class HoldResponse {
  @ApiProperty({ enum: ['senderAttribution', 'payoutDestinationMissing'] }) code!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'senderAttribution only' }) deadline?: string;
  @ApiPropertyOptional({ type: HoldMatchResponse, description: 'senderAttribution only' }) match?: HoldMatchResponse;
}

export class SettlementRefundResponse {
  @ApiProperty({ enum: ['pending', 'completed'] }) status!: string;
  @ApiProperty({ example: '10.92' }) amount!: string;
  @ApiProperty({ example: 'usdc' }) asset!: string;
}

/** spec: Transaction `error`. */
export class SettlementErrorResponse {
  @ApiProperty({ example: 'providerError' }) code!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ format: 'date-time' }) occurredAt!: string;
  @ApiProperty() recoverable!: boolean;
  @ApiPropertyOptional({ example: 'refund', description: 'how the money can be recovered' }) recovery?: string;
  @ApiPropertyOptional({ type: SettlementRefundResponse }) refund?: SettlementRefundResponse;
}

export class TransactionResponse {
  @ApiProperty({ example: 'txn_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['transaction'] }) object!: 'transaction';
  @ApiProperty({
    enum: ['cryptoToCrypto', 'cryptoToCash', 'cryptoToFiatAccount', 'cashToCrypto', 'fiatAccountToCrypto'],
  })
  sourceToDestination!: string;
  @ApiProperty({ enum: TRANSACTION_STATUSES }) status!: string;
  @ApiProperty({ nullable: true, type: String, example: 'processing.fundsPulled' }) subStatus!: string | null;
  @ApiProperty() customerId!: string;
  @ApiProperty({
    type: PrecursorResponse,
    description: 'the origin: a quote, deposit address, virtual account or cash-in',
  })
  precursor!: Record<string, unknown>;
  @ApiProperty({ type: InstrumentSideResponse }) source!: Record<string, unknown>;
  @ApiProperty({ type: InstrumentSideResponse }) destination!: Record<string, unknown>;
  @ApiProperty({ type: PricingResponse, description: 'all amounts live here' }) pricing!: Record<string, unknown>;
  @ApiProperty({ type: [TransactionLegResponse], description: 'the transfers, in the order they started' })
  legs!: Array<Record<string, unknown>>;
  @ApiPropertyOptional({ type: PayoutOriginResponse, description: 'fiat payouts' }) payoutOrigin?: Record<
    string,
    unknown
  >;
  @ApiPropertyOptional({ type: HoldResponse, description: 'only while awaitingAction' }) hold?: Record<string, unknown>;
  @ApiPropertyOptional({ type: SettlementErrorResponse, description: 'on failure' }) error?: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class OperatorActionRequest {
  @ApiPropertyOptional({ maxLength: 500, description: 'why: recorded with the transaction' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  reason?: string;
}

export const REFUND_TARGETS = ['returnDestination', 'sender'] as const;

export class OperatorRefundRequest extends OperatorActionRequest {
  @ApiPropertyOptional({
    example: '25.00',
    description:
      'a virtual account deposit only: how much of the held amount goes back (a usd amount, 0.00 up to all of it; all of it when left out). What is not returned stays with the service, posted to its retained account',
  })
  @IsOptional()
  @IsAmount({ asset: 'usd', allowZero: true })
  amount?: string;

  @ApiPropertyOptional({
    enum: REFUND_TARGETS,
    description:
      'a deposit address or virtual account deposit only: where the refund goes. returnDestination (the default): the return destination the deposit was made with, else the sender; a return destination invalidated or deleted since is refused (422 ExternalAccountNotActive). sender: back to the sender (a virtual account deposit on the bank rail it came by, a deposit address deposit to the sending address)',
  })
  @IsOptional()
  @IsIn(REFUND_TARGETS, { message: `to must be one of ${REFUND_TARGETS.join(', ')}` })
  to?: (typeof REFUND_TARGETS)[number];
}

export const CASH_PICKUP_OUTCOMES = ['collected', 'expired'] as const;

export class SimulateCashPickupRequest {
  @ApiProperty({
    enum: CASH_PICKUP_OUTCOMES,
    description:
      'collected: the recipient took the cash; expired: nobody came, the money goes back to the source wallet',
  })
  @IsIn(CASH_PICKUP_OUTCOMES, { message: `outcome must be one of ${CASH_PICKUP_OUTCOMES.join(', ')}` })
  outcome!: (typeof CASH_PICKUP_OUTCOMES)[number];
}

export class CompleteRefundRequest {
  @ApiProperty({ maxLength: 500 }) @IsString() @MinLength(1) @MaxLength(500) reason!: string;
}

export class ListHeldTransactionsQuery extends ListQuery {
  @ApiPropertyOptional({ description: "only this project's held transactions" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  projectId?: string;
}

/** A transaction in the operator's queue, with the project it belongs to. */
export class HeldTransactionResponse {
  @ApiProperty({ enum: ['heldTransaction'] }) object!: 'heldTransaction';
  @ApiProperty({ example: 'prj_01h455vb4pex5vsknk084sn02q' }) projectId!: string;
  @ApiProperty({ type: TransactionResponse }) transaction!: TransactionResponse;
}

export class OperatorResultResponse {
  @ApiProperty({
    enum: ['retried', 'refunding', 'markedFailed', 'already_completed', 'completedByProvider', 'refundCompleted'],
  })
  result!: 'retried' | 'refunding' | 'markedFailed' | 'already_completed' | 'completedByProvider' | 'refundCompleted';
  @ApiProperty({ type: TransactionResponse }) transaction!: TransactionResponse;
}
