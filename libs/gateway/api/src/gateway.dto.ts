import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayNotEmpty,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { API_KEY_SCOPES } from '@mm/contracts';
import { BodyMayBeAbsent, IsAmount, IsLabel, IsNotBlank, IsOptionalNotNull } from '@mm/platform/http';

/** The longest a rolled key may go on working: 7 days (docs/operators.md, "Rolling a key"). */
export const MAX_ROLL_EXPIRY_SECONDS = 7 * 24 * 60 * 60;

export class TokenRequest {
  @ApiProperty({ example: 'sk_sdbx_…' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  apiKey!: string;

  @ApiProperty()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  apiSecret!: string;
}

export class TokenResponse {
  @ApiProperty({ description: 'signed JWT' }) accessToken!: string;
  @ApiProperty({ enum: ['bearer'] }) tokenType!: 'bearer';
  @ApiProperty({ example: 3600 }) expiresIn!: number;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
}

export class RiskConfigResponse {
  @ApiProperty() clientId!: string;
  @ApiProperty() partnerId!: string;
}

/** A feature is on or off: null is neither, and is refused (a stored null read as off by some checks and not others). */
export class ProjectFeaturesDto {
  @ApiPropertyOptional() @IsOptionalNotNull() @IsBoolean() depositAddresses?: boolean;
  @ApiPropertyOptional() @IsOptionalNotNull() @IsBoolean() cashPickup?: boolean;
  @ApiPropertyOptional() @IsOptionalNotNull() @IsBoolean() globalRemittance?: boolean;
  @ApiPropertyOptional() @IsOptionalNotNull() @IsBoolean() bulkPayouts?: boolean;
}

/** Limits apply to the fiat leg of a sell, usd or cad: amounts of either (ADR 0023). */
const LIMIT_AMOUNT = { asset: ['usd', 'cad'] } as const;

/** Limits on bank payouts (spec: Limits / Bank payouts and others, item 2); null clears one. */
export class ProjectLimitsDto {
  @ApiPropertyOptional({ nullable: true, type: String, example: '100.00' })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsAmount(LIMIT_AMOUNT)
  perTransactionMin?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '100.00' })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsAmount(LIMIT_AMOUNT)
  perTransactionMax?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '100.00' })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsAmount(LIMIT_AMOUNT)
  perTransactionMultiple?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '100.00' })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsAmount(LIMIT_AMOUNT)
  dailyBankPayoutCap?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, example: '100.00' })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsAmount(LIMIT_AMOUNT)
  monthlyBankPayoutCap?: string | null;
}

export class CreateProjectRequest {
  @ApiProperty()
  @IsString()
  @IsNotBlank()
  @MaxLength(100)
  name!: string;

  @ApiPropertyOptional({ type: ProjectFeaturesDto })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ProjectFeaturesDto)
  features?: ProjectFeaturesDto;
}

/** A PATCH: a field left out keeps its value; null removes what can be removed (a limit, every limit) and is refused elsewhere. */
export class UpdateProjectRequest {
  @ApiPropertyOptional({
    type: ProjectFeaturesDto,
    description: 'the features named are switched; the others keep their state',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => ProjectFeaturesDto)
  features?: ProjectFeaturesDto;

  @ApiPropertyOptional({
    type: ProjectLimitsDto,
    nullable: true,
    description: 'the limits named are set (null removes one); null removes every limit',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProjectLimitsDto)
  limits?: ProjectLimitsDto | null;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 720, description: 'whole hours, as a JSON number' })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(720)
  attributionTimeoutHours?: number;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    example: '1000.00',
    description:
      'USD: refunds, complete-refunds, mark-failed and retries of transactions worth this or more wait for a second operator\'s approval; "0.00" every one, null none',
  })
  @ValidateIf((_o, v) => v !== null)
  @IsOptional()
  @IsAmount({ asset: 'usd', allowZero: true })
  fourEyesThreshold?: string | null;
}

export class ProjectResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['project'] }) object!: 'project';
  @ApiProperty() name!: string;
  @ApiProperty({ type: ProjectFeaturesDto }) features!: ProjectFeaturesDto;
  @ApiProperty({ type: ProjectLimitsDto }) limits!: ProjectLimitsDto;
  @ApiProperty() attributionTimeoutHours!: number;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'USD: operator money actions on transactions worth this or more wait for approval; "0.00" every one, null none',
  })
  fourEyesThreshold!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

@BodyMayBeAbsent()
export class CreateApiKeyRequest {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 100,
    example: 'orders service',
    description: 'for people: what uses the key; absent or null, none',
  })
  @IsOptional()
  @IsLabel(100)
  name?: string | null;

  @ApiPropertyOptional({
    type: [String],
    enum: API_KEY_SCOPES,
    example: ['customers:read', 'transactions:write'],
    description:
      'a restricted key: the resources it may read (`<resource>:read`) or read and change (`<resource>:write`); absent or null: every scope',
    nullable: true,
  })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty({ message: 'scopes must name at least one scope; leave it out for a key with every scope' })
  @ArrayMaxSize(API_KEY_SCOPES.length * 2)
  @IsIn(API_KEY_SCOPES, {
    each: true,
    message: `each scope must be one of ${API_KEY_SCOPES.join(', ')}`,
  })
  scopes?: string[] | null;
}

@BodyMayBeAbsent()
export class RollApiKeyRequest {
  @ApiPropertyOptional({
    minimum: 0,
    maximum: MAX_ROLL_EXPIRY_SECONDS,
    default: 0,
    description: 'when the rolled key stops working, in seconds from now: 0 (at once, the default) to 7 days',
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(0)
  @Max(MAX_ROLL_EXPIRY_SECONDS)
  expiresInSeconds?: number;
}

export class ApiKeyResponse {
  @ApiProperty({ enum: ['apiKey'] }) object!: 'apiKey';
  @ApiProperty({ example: 'sk_sdbx_…' }) apiKey!: string;
  @ApiProperty() projectId!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({
    type: [String],
    nullable: true,
    description: "a restricted key's scopes; null: every scope",
  })
  scopes!: string[] | null;
  @ApiProperty({
    enum: ['active', 'expired', 'revoked'],
    description: 'active until revoked, or until the expiry a roll set',
  })
  status!: 'active' | 'expired' | 'revoked';
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'when it last obtained a token' })
  lastUsedAt!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true, description: 'set by a roll' })
  expiresAt!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'the key a roll replaced it with' })
  rolledInto!: string | null;
  @ApiProperty({ format: 'date-time', type: String, nullable: true }) revokedAt!: string | null;
}

/** A new key pair, exactly (API-CONTRACT): what it is named and allowed is in the key list. */
export class ApiKeyPairResponse {
  @ApiProperty({ example: 'sk_sdbx_…' }) apiKey!: string;
  @ApiProperty({ description: 'shown only in this response' }) apiSecret!: string;
}

export class RevokedApiKeyResponse {
  @ApiProperty({ enum: ['apiKey'] }) object!: 'apiKey';
  @ApiProperty() apiKey!: string;
  @ApiProperty() projectId!: string;
  @ApiProperty({ format: 'date-time', description: 'when it was first revoked: revoking again changes nothing' })
  revokedAt!: string;
  @ApiProperty({ enum: ['revoked'] }) status!: 'revoked';
}

export class PublishableKeyResponse {
  @ApiProperty({ example: 'pk_sdbx_…', description: 'for the Api-Key header of GET /risk/config' })
  publishableKey!: string;
}

/** One public key of the token issuer (RFC 7517): ECDSA P-256 for ES256. */
export class PublicSigningKey {
  @ApiProperty({ enum: ['EC'] }) kty!: 'EC';
  @ApiProperty({ enum: ['P-256'] }) crv!: 'P-256';
  @ApiProperty({ description: 'base64url' }) x!: string;
  @ApiProperty({ description: 'base64url' }) y!: string;
  @ApiProperty({ description: "the kid of the tokens' header it verifies" }) kid!: string;
  @ApiProperty({ enum: ['ES256'] }) alg!: 'ES256';
  @ApiProperty({ enum: ['sig'] }) use!: 'sig';
}

export class JsonWebKeySetResponse {
  @ApiProperty({ type: [PublicSigningKey], description: 'the current key and those retired within the last two hours' })
  keys!: PublicSigningKey[];
}
