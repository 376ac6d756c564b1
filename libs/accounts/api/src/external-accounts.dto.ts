// Request and response shapes of external accounts and counterparties (spec:
// External account, Counterparty; the current v1 instrument shape). Per-type
// objects are validated after the type check, so a mismatch is the 422 the
// spec names rather than a complaint about the wrong object's fields.
import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsEmail,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { EXTERNAL_ACCOUNT_TYPES, type ExternalAccountStatus, type ExternalAccountType } from '@mm/contracts';
import {
  BankCanadaDetailsResponse,
  BankIbanDetailsResponse,
  BankUsDetailsResponse,
  IsLabel,
  IsMetadata,
  IsNotBlank,
  IsOptionalNotNull,
  ListQuery,
  oneOfModels,
  WalletExternalDetailsResponse,
} from '@mm/platform/http';

export class OwnerRequest {
  @ApiProperty({ enum: ['customer', 'counterparty'] })
  @IsIn(['customer', 'counterparty'], { message: 'kind must be customer or counterparty' })
  kind!: 'customer' | 'counterparty';

  @ApiPropertyOptional({ description: 'with kind customer' })
  @ValidateIf((o: OwnerRequest) => o.kind === 'customer' || o.customerId !== undefined)
  @IsString()
  @MaxLength(64)
  customerId?: string;

  @ApiPropertyOptional({ description: 'with kind counterparty' })
  @ValidateIf((o: OwnerRequest) => o.kind === 'counterparty' || o.counterpartyId !== undefined)
  @IsString()
  @MaxLength(64)
  counterpartyId?: string;
}

export class BankUsRequest {
  @ApiProperty({ description: 'write-only; 4 to 17 digits' }) @IsString() @MaxLength(64) accountNumber!: string;
  @ApiProperty({ description: 'ABA routing number, 9 digits', example: '021000021' })
  @IsString()
  @MaxLength(64)
  routingNumber!: string;
  @ApiPropertyOptional({ enum: ['checking', 'savings'], default: 'checking' })
  @IsOptional()
  @IsIn(['checking', 'savings'], { message: 'accountType must be checking or savings' })
  accountType?: 'checking' | 'savings';
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(140) bankName?: string;
}

export class BankIbanRequest {
  @ApiProperty({ description: 'write-only; spaces between groups are allowed', example: 'DE89370400440532013000' })
  @IsString()
  @MaxLength(64)
  iban!: string;
  @ApiProperty({ description: '8 or 11 characters', example: 'COBADEFFXXX' }) @IsString() @MaxLength(64) BIC!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(280) bankAddress?: string;
  @ApiPropertyOptional({ description: 'derived from the IBAN when omitted; refused when it contradicts it' })
  @IsOptional()
  @IsString()
  @MaxLength(8)
  countryCode?: string;
}

export class BankCanadaRequest {
  @ApiProperty({ description: '3 digits' }) @IsString() @MaxLength(64) institutionNumber!: string;
  @ApiProperty({ description: '5 digits' }) @IsString() @MaxLength(64) transitNumber!: string;
  @ApiProperty({ description: 'write-only; 7 to 12 digits' }) @IsString() @MaxLength(64) accountNumber!: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(140) bankName?: string;
}

export class WalletExternalRequest {
  @ApiProperty({ description: 'EVM address; EIP-55 checksum when mixed case' })
  @IsString()
  @MaxLength(128)
  address!: string;
  @ApiProperty({ example: 'ethereum' }) @IsString() @MaxLength(40) network!: string;
  @ApiPropertyOptional({ default: 'usdc' }) @IsOptional() @IsString() @MaxLength(20) asset?: string;
}

/** The card's billing address (spec: External account, create fields per type): every field but addressLine2 required and non-blank. */
export class BillingAddressRequest {
  @ApiProperty({ example: '1 Market St' }) addressLine1!: string;
  @ApiPropertyOptional({ nullable: true, type: String }) addressLine2?: string | null;
  @ApiProperty({ example: 'San Francisco' }) city!: string;
  @ApiProperty({ example: 'CA' }) state!: string;
  @ApiProperty({ example: 'US' }) country!: string;
  @ApiProperty({ example: '94105' }) zipCode!: string;
}

export class CardRequest {
  @ApiProperty({
    description: 'write-only; handed to the card processor and never stored',
    example: '4242424242424242',
  })
  @IsString()
  @MaxLength(64)
  cardNumber!: string;
  @ApiProperty({ minimum: 1, maximum: 12 }) @IsInt() expiryMonth!: number;
  @ApiProperty({ example: 2030 }) @IsInt() expiryYear!: number;
  @ApiPropertyOptional({ description: 'write-only; 3 or 4 digits' })
  @IsOptional()
  @IsString()
  @Matches(/^\d{3,4}$/, { message: 'cvc must be 3 or 4 digits' })
  cvc?: string;
  @ApiPropertyOptional({ description: "the name on the card; the owner's name when omitted" })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @MaxLength(140)
  holderName?: string;
  @ApiPropertyOptional({ type: BillingAddressRequest, description: 'here or at the top level' })
  @IsOptional()
  billingAddress?: Record<string, unknown>;
}

class RegistrationCommon {
  @ApiProperty({ type: OwnerRequest })
  @ValidateNested()
  @Type(() => OwnerRequest)
  @IsObject()
  owner!: OwnerRequest;

  @ApiPropertyOptional({
    maxLength: 200,
    nullable: true,
    type: String,
    description: 'trimmed; one line of visible text',
  })
  @IsOptional()
  @IsLabel(200)
  label?: string | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

export class CreateExternalAccountRequest extends RegistrationCommon {
  @ApiProperty({ enum: EXTERNAL_ACCOUNT_TYPES, description: '`card` is registered at POST /external-accounts/cards' })
  @IsIn(EXTERNAL_ACCOUNT_TYPES, { message: `type must be one of ${EXTERNAL_ACCOUNT_TYPES.join(', ')}` })
  type!: ExternalAccountType;

  @ApiPropertyOptional({ type: BankUsRequest }) @IsOptional() bankUs?: unknown;
  @ApiPropertyOptional({ type: BankIbanRequest }) @IsOptional() bankIban?: unknown;
  @ApiPropertyOptional({ type: BankCanadaRequest }) @IsOptional() bankCanada?: unknown;
  @ApiPropertyOptional({ type: WalletExternalRequest }) @IsOptional() walletExternal?: unknown;
  @ApiPropertyOptional({ description: 'refused here: cards use POST /external-accounts/cards' })
  @IsOptional()
  card?: unknown;
}

export class CreateCardRequest extends RegistrationCommon {
  @ApiPropertyOptional({ enum: ['card'] })
  @IsOptional()
  @IsIn(['card'], { message: 'type must be card on this endpoint' })
  type?: 'card';

  @ApiProperty({ type: CardRequest }) @IsOptional() card?: unknown;

  @ApiPropertyOptional({ type: BillingAddressRequest, description: 'the card billing address, when not inside card' })
  @IsOptional()
  billingAddress?: Record<string, unknown>;
}

export class UpdateExternalAccountRequest {
  @ApiPropertyOptional({
    maxLength: 200,
    nullable: true,
    type: String,
    description: 'trimmed; one line of visible text; null removes it',
  })
  @IsOptional()
  @IsLabel(200)
  label?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    nullable: true,
    description: 'merged: a key set to null or "" is removed; null removes every key',
  })
  @IsOptional()
  @IsMetadata({ removable: true })
  metadata?: Record<string, string | null> | null;
}

export class ListExternalAccountsQuery extends ListQuery {
  @ApiProperty({ description: 'required' })
  @IsString({ message: 'customerId is required: the customer whose external accounts to list' })
  @MaxLength(64)
  customerId!: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  counterpartyId?: string;
}

export class InvalidateExternalAccountRequest {
  @ApiPropertyOptional({ default: 'account_closed', description: 'the failure code to record' })
  @IsOptional()
  @IsString()
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { message: 'code must be snake_case, at most 64 characters' })
  code?: string;
}

export class InstrumentDestinationResponse {
  @ApiProperty() asset!: string;
  @ApiProperty() network!: string;
}

export class NamedReference {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

export class OwnerResponse {
  @ApiProperty({ enum: ['counterparty'] }) kind!: 'counterparty';
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
}

export class FailureResponse {
  @ApiProperty() code!: string;
  @ApiProperty() message!: string;
}

// The instrument's details by type, as a transaction shows them: never a full number.
export class BillingAddressResponse {
  @ApiProperty() addressLine1!: string;
  @ApiProperty({ nullable: true, type: String }) addressLine2!: string | null;
  @ApiProperty() city!: string;
  @ApiProperty() state!: string;
  @ApiProperty() country!: string;
  @ApiProperty() zipCode!: string;
}

export class CardAccountDetailsResponse {
  @ApiProperty() holderName!: string;
  @ApiProperty({ example: 'visa' }) brand!: string;
  @ApiProperty({ example: '4242' }) last4!: string;
  @ApiProperty({ type: 'integer', example: 12 }) expiryMonth!: number;
  @ApiProperty({ type: 'integer', example: 2030 }) expiryYear!: number;
  @ApiProperty({ type: BillingAddressResponse }) billingAddress!: BillingAddressResponse;
}

const ACCOUNT_DETAILS = [
  BankUsDetailsResponse,
  BankIbanDetailsResponse,
  BankCanadaDetailsResponse,
  CardAccountDetailsResponse,
  WalletExternalDetailsResponse,
];

@ApiExtraModels(...ACCOUNT_DETAILS)
export class ExternalAccountResponse {
  @ApiProperty({ example: 'ext_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['externalAccount'] }) object!: 'externalAccount';
  @ApiProperty({ enum: EXTERNAL_ACCOUNT_TYPES }) type!: ExternalAccountType;
  @ApiProperty({ enum: ['pending', 'active', 'failed', 'invalid'] }) status!: ExternalAccountStatus;
  @ApiProperty({ type: NamedReference }) customer!: NamedReference;
  @ApiPropertyOptional({ type: OwnerResponse, description: 'only when a counterparty owns the account' })
  owner?: OwnerResponse;
  @ApiProperty({
    ...oneOfModels(...ACCOUNT_DETAILS),
    description: 'by type, as a transaction shows it: bankUs, bankIban, bankCanada, card or walletExternal',
  })
  details!: Record<string, unknown>;
  @ApiProperty({ type: [InstrumentDestinationResponse] }) supportedDestinations!: InstrumentDestinationResponse[];
  @ApiProperty({ type: FailureResponse, nullable: true }) failure!: FailureResponse | null;
  @ApiProperty({ nullable: true, type: String }) label!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** An address is given whole (a PATCH replaces it): a part left out or null is a part it does not have. */
export class AddressRequest {
  @ApiPropertyOptional({ nullable: true, type: String }) @IsOptional() @IsString() @MaxLength(200) streetAddress?:
    string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) @IsOptional() @IsString() @MaxLength(100) city?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String }) @IsOptional() @IsString() @MaxLength(20) postalCode?:
    string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'ISO 3166-1 alpha-2' })
  @IsOptional()
  @IsString()
  @MaxLength(8)
  country?: string | null;
}

class CounterpartyFieldsRequest {
  @ApiPropertyOptional({ nullable: true, type: String, description: 'individual (needs it); null removes it' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @MaxLength(100)
  firstName?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'individual (needs it); null removes it' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @MaxLength(100)
  lastName?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'business (needs it); null removes it' })
  @IsOptional()
  @IsString()
  @IsNotBlank()
  @MaxLength(200)
  businessName?: string | null;
  @ApiPropertyOptional({ format: 'email', nullable: true, type: String })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string | null;
  @ApiPropertyOptional({ description: 'E.164, for example +14155550123', nullable: true, type: String })
  @IsOptional()
  @IsString()
  @Matches(/^\+[1-9]\d{6,14}$/, { message: 'phone must be in E.164 form, for example +14155550123' })
  phone?: string | null;
  @ApiPropertyOptional({
    description: 'write-only: reads show taxIdProvided; replaced, never removed (null is refused)',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9 -]{2,39}$/, { message: 'taxId must be 3 to 40 letters, digits, spaces or hyphens' })
  taxId?: string;
  @ApiPropertyOptional({ type: AddressRequest, nullable: true })
  @IsOptional()
  @ValidateNested()
  @Type(() => AddressRequest)
  @IsObject()
  address?: AddressRequest | null;
}

export class CreateCounterpartyRequest extends CounterpartyFieldsRequest {
  @ApiProperty() @IsString() @MaxLength(64) customerId!: string;
  @ApiProperty({ enum: ['individual', 'business'] })
  @IsIn(['individual', 'business'], { message: 'entityType must be individual or business' })
  entityType!: 'individual' | 'business';
}

export class UpdateCounterpartyRequest extends CounterpartyFieldsRequest {}

export class ListCounterpartiesQuery extends ListQuery {
  @ApiProperty({ description: 'required' })
  @IsString({ message: 'customerId is required: the customer whose counterparties to list' })
  @MaxLength(64)
  customerId!: string;
}

export class CounterpartyAddressResponse {
  @ApiProperty({ nullable: true, type: String }) streetAddress!: string | null;
  @ApiProperty({ nullable: true, type: String }) city!: string | null;
  @ApiProperty({ nullable: true, type: String }) postalCode!: string | null;
  @ApiProperty({ nullable: true, type: String }) country!: string | null;
}

export class CounterpartyResponse {
  @ApiProperty({ example: 'cpty_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['counterparty'] }) object!: 'counterparty';
  @ApiProperty() customerId!: string;
  @ApiProperty({ enum: ['individual', 'business'] }) entityType!: 'individual' | 'business';
  @ApiProperty({ description: 'read-only, composed from the structured names' }) name!: string;
  @ApiProperty({ nullable: true, type: String }) firstName!: string | null;
  @ApiProperty({ nullable: true, type: String }) lastName!: string | null;
  @ApiProperty({ nullable: true, type: String }) businessName!: string | null;
  @ApiProperty({ nullable: true, type: String }) email!: string | null;
  @ApiProperty({ nullable: true, type: String }) phone!: string | null;
  @ApiProperty({ description: 'whether a tax id is on file; the tax id itself is write-only' }) taxIdProvided!: boolean;
  @ApiProperty({ type: CounterpartyAddressResponse, nullable: true }) address!: CounterpartyAddressResponse | null;
  @ApiProperty({
    enum: ['active', 'deleted'],
    description:
      'active; deleted only in the counterparty.statusChanged event of its deletion (a deleted counterparty answers 404)',
  })
  status!: 'active' | 'deleted';
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}
