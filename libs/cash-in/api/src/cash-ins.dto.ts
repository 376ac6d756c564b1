// Request and response shapes of cash-ins and cash locations (spec: Cash-in,
// Cash location (read), Endpoints; API-CONTRACT: Cash locations).
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CASH_FLOWS } from '@mm/contracts';
import { FeesDeductedResponse, IsAmount, IsMetadata, IsOptionalNotNull, ListQuery } from '@mm/platform/http';

export class CashInSourceRequest {
  @ApiProperty({ enum: ['usd'] }) @IsString() @IsIn(['usd'], { message: 'source.asset must be usd' }) asset!: string;
  @ApiPropertyOptional({
    example: '100.00',
    nullable: true,
    type: String,
    description: 'the cash the customer means to deposit, for estimates; omitted or null: no estimates',
  })
  @ValidateIf((_o: object, v: unknown) => v !== undefined && v !== null)
  @IsAmount({ asset: 'usd' })
  indicatedAmount?: string | null;
}

export class CashInWalletRequest {
  @ApiPropertyOptional({ example: 'wlt_01h455vb4pex5vsknk084sn02q', description: 'a custodial wallet of the customer' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  id?: string;
  @ApiPropertyOptional({
    example: '0x52908400098527886E0F7030069857D2E4169EE7',
    description: 'an address on the network (EVM; EIP-55 checksum when mixed case)',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(128)
  blockchainAddress?: string;
  @ApiPropertyOptional({
    example: 'ext_01h455vb4pex5vsknk084sn02q',
    description: 'an active walletExternal external account of the customer',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  externalAccount?: string;
}

export class CashInDestinationRequest {
  @ApiProperty({ example: 'usdc' }) @IsString() @MaxLength(16) asset!: string;
  @ApiProperty({ example: 'meridianchain', description: 'meridianchain or ethereum' })
  @IsString()
  @MaxLength(32)
  network!: string;
  @ApiProperty({ type: CashInWalletRequest, description: 'exactly one of id, blockchainAddress, externalAccount' })
  @IsObject()
  @ValidateNested()
  @Type(() => CashInWalletRequest)
  wallet!: CashInWalletRequest;
}

export class CashInCashRequest {
  @ApiProperty({ example: 'loc_01m846c3h4e06945jf6mfht9tc', description: 'locId of GET /cash-locations' })
  @IsString()
  @MaxLength(64)
  locationId!: string;
  @ApiProperty({ example: 'BIGMART-1001', description: 'cashLocationReference of the same location' })
  @IsString()
  @MaxLength(128)
  locationReference!: string;
}

export class CreateCashInRequest {
  @ApiProperty({ example: 'cst_01h455vb4pex5vsknk084sn02q', description: 'needs an active usd endorsement' })
  @IsString()
  @MaxLength(64)
  customerId!: string;
  @ApiProperty({ type: CashInSourceRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => CashInSourceRequest)
  source!: CashInSourceRequest;
  @ApiProperty({ type: CashInDestinationRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => CashInDestinationRequest)
  destination!: CashInDestinationRequest;
  @ApiProperty({ type: CashInCashRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => CashInCashRequest)
  cash!: CashInCashRequest;
  @ApiPropertyOptional({ default: true, description: 'only true is accepted on cash-ins' })
  @IsOptionalNotNull()
  @IsBoolean()
  sponsorGas?: boolean;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

export class SimulateDepositRequest {
  @ApiProperty({ example: '100.00', description: 'the cash deposited, in usd (at most 2 decimals)' })
  @IsAmount({ asset: 'usd' })
  amount!: string;
  @ApiPropertyOptional({
    example: '123 456',
    description: 'the code the customer showed; when given, it must be the current one',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(16)
  @Matches(/^[0-9]{3} [0-9]{3}$/, { message: 'code must be two groups of three digits separated by a space' })
  code?: string;
}

const ESTIMATE = 'estimated from indicatedAmount until completed, then from the deposit; null without either';

/** A retail location's street address. */
export class CashLocationAddressResponse {
  @ApiProperty({ example: '1200 S Figueroa St' }) line1!: string;
  @ApiProperty({ example: 'Los Angeles' }) city!: string;
  @ApiProperty({ example: 'CA', description: 'US state code' }) state!: string;
  @ApiProperty({ example: '90015' }) postalCode!: string;
  @ApiProperty({ example: 'US' }) country!: string;
}

export class CashInSourceResponse {
  @ApiProperty({ enum: ['usd'] }) asset!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: '100.00',
    description: 'as requested; null when none was given',
  })
  indicatedAmount!: string | null;
  @ApiProperty({ nullable: true, type: String, example: '100.00', description: ESTIMATE }) amountGross!: string | null;
  @ApiProperty({ nullable: true, type: String, example: '100.00', description: ESTIMATE }) amountNet!: string | null;
  @ApiProperty({ type: FeesDeductedResponse, nullable: true, description: ESTIMATE })
  feesDeducted!: FeesDeductedResponse | null;
}

export class CashInWalletResponse {
  @ApiProperty({ nullable: true, type: String, description: 'the custodial wallet, when one was named' }) id!:
    string | null;
  @ApiProperty() blockchainAddress!: string;
  @ApiProperty({ nullable: true, type: String, description: 'the walletExternal external account, when one was named' })
  externalAccount!: string | null;
}

export class CashInDestinationResponse {
  @ApiProperty({ example: 'usdc' }) asset!: string;
  @ApiProperty({ example: 'meridianchain' }) network!: string;
  @ApiProperty({ nullable: true, type: String, example: '100.00', description: ESTIMATE }) amountGross!: string | null;
  @ApiProperty({ nullable: true, type: String, example: '100.00', description: ESTIMATE }) amountNet!: string | null;
  @ApiProperty({ type: FeesDeductedResponse, nullable: true, description: ESTIMATE })
  feesDeducted!: FeesDeductedResponse | null;
  @ApiProperty({ type: CashInWalletResponse }) wallet!: CashInWalletResponse;
}

export class CashInCashResponse {
  @ApiProperty({ example: 'loc_01m846c3h4e06945jf6mfht9tc' }) locationId!: string;
  @ApiProperty({ example: 'BIGMART-1001' }) locationReference!: string;
}

export class CashInLocationResponse {
  @ApiProperty() name!: string;
  @ApiProperty({ example: 'bigmart' }) locationProvider!: string;
  @ApiProperty({ type: CashLocationAddressResponse }) locationAddress!: CashLocationAddressResponse;
}

export class CashInRatesResponse {
  @ApiProperty({ example: 'usd/usdc' }) pair!: string;
  @ApiProperty({ example: '1.00' }) exchangeRate!: string;
  @ApiProperty({ example: '1.00' }) effectiveRate!: string;
}

export class DepositInstructionsResponse {
  @ApiProperty({ example: '123 456', description: 'two groups of three digits' }) code!: string;
  @ApiProperty({ format: 'date-time', description: 'an hour after issue or refresh' }) expiresAt!: string;
  @ApiProperty() locationName!: string;
  @ApiProperty({ type: CashLocationAddressResponse }) locationAddress!: CashLocationAddressResponse;
}

export class CashInResponse {
  @ApiProperty({ example: 'ci_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['cashIn'] }) object!: 'cashIn';
  @ApiProperty({ enum: ['fiatToCrypto'] }) type!: 'fiatToCrypto';
  @ApiProperty({ enum: ['pending', 'completed', 'expired'] }) status!: string;
  @ApiProperty({ nullable: true, type: String, enum: ['settled'], description: 'settled once completed' }) subStatus!:
    string | null;
  @ApiProperty() customerId!: string;
  @ApiProperty({ type: CashInSourceResponse }) source!: CashInSourceResponse;
  @ApiProperty({ type: CashInDestinationResponse }) destination!: CashInDestinationResponse;
  @ApiProperty({ type: CashInCashResponse }) cash!: CashInCashResponse;
  @ApiProperty({ type: CashInLocationResponse }) location!: CashInLocationResponse;
  @ApiProperty({ type: CashInRatesResponse }) rates!: CashInRatesResponse;
  @ApiProperty({ enum: ['source'] }) fixedAmountSide!: 'source';
  @ApiProperty({ enum: [true] }) sponsorGas!: boolean;
  @ApiProperty({ example: '0.00' }) sponsorGasCost!: string;
  @ApiProperty({ type: DepositInstructionsResponse }) depositInstructions!: DepositInstructionsResponse;
  @ApiProperty({ nullable: true, type: String, description: 'the auto-created transaction, once deposited' })
  transactionId!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) completedAt!: string | null;
}

export class CashLocationsQuery extends ListQuery {
  @ApiPropertyOptional({ example: 'bigmart', description: "only this provider's locations" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  provider?: string;
  @ApiPropertyOptional({ example: '34.0522', description: 'decimal degrees, -90 to 90; with longitude' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  latitude?: string;
  @ApiPropertyOptional({ example: '-118.2437', description: 'decimal degrees, -180 to 180; with latitude' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  longitude?: string;
  @ApiPropertyOptional({
    enum: CASH_FLOWS,
    default: 'cash_in',
    description: 'cash_in: deposit locations; cash_out: cash pickup locations',
  })
  @IsOptional()
  @IsString()
  @MaxLength(16)
  flow?: string;
}

export class CashLocationResponse {
  @ApiProperty({ example: 'loc_01m846c3h4e06945jf6mfht9tc' }) locId!: string;
  @ApiProperty({ example: 'BIGMART-1001' }) cashLocationReference!: string;
  @ApiProperty({ example: 'BigMart Supercenter #1001' }) name!: string;
  @ApiProperty({ example: 'bigmart' }) provider!: string;
  @ApiProperty({ type: CashLocationAddressResponse }) address!: CashLocationAddressResponse;
  @ApiProperty({ example: 34.040713 }) latitude!: number;
  @ApiProperty({ example: -118.266556 }) longitude!: number;
  @ApiProperty({
    nullable: true,
    type: Number,
    example: 1.82,
    description: 'km from latitude/longitude, to 0.01; null when the query gave no coordinates',
  })
  distanceKm!: number | null;
  @ApiProperty({ type: [String], enum: CASH_FLOWS }) flows!: string[];
}
