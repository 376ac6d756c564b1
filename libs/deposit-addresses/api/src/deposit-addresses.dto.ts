// Request and response shapes of deposit addresses (spec: Deposit address, the
// v1 shape; Endpoints; API-CONTRACT: Deposit addresses, Sandbox simulations).
import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsBoolean, IsObject, IsOptional, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import {
  BankCanadaDetailsResponse,
  BankIbanDetailsResponse,
  BankUsDetailsResponse,
  IsAmount,
  IsLabel,
  IsMetadata,
  IsOptionalNotNull,
  ListQuery,
  oneOfModels,
  WalletExternalDetailsResponse,
} from '@mm/platform/http';

const STATUSES = ['pending', 'active', 'inactiveActionRequired', 'frozen', 'closed', 'failed'];
const RAILS = ['ach', 'achSameDay', 'wire', 'swift', 'local'];

export class DepositAddressAccountReference {
  @ApiProperty({ example: 'ext_01h455vb4pex5vsknk084sn02q' }) @IsString() @MaxLength(64) externalAccountId!: string;
}

export class DepositAddressPayoutRequest {
  @ApiProperty({
    enum: RAILS,
    description:
      "one of the destination account's rails (its supportedDestinations): ach, achSameDay or wire for bankUs, swift for bankIban, swift (USD) or local (CAD) for bankCanada",
  })
  @IsString()
  @MaxLength(32)
  rail!: string;
  @ApiPropertyOptional({
    enum: ['PPD', 'CCD', 'CTX', 'WEB', 'TEL'],
    description: 'ACH rails only: the NACHA standard entry class',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(8)
  secCode?: string;
  @ApiPropertyOptional({
    maxLength: 20,
    description:
      "ACH rails only: NACHA company discretionary data, 1 to 20 letters, digits, spaces or . , & / ( ) ' # -",
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  companyDiscretionaryData?: string;
}

export class CreateDepositAddressRequest {
  @ApiProperty({ example: 'cst_01h455vb4pex5vsknk084sn02q' }) @IsString() @MaxLength(64) customerId!: string;
  @ApiProperty({ enum: ['usdc'] }) @IsString() @MaxLength(16) expectedSourceAsset!: string;
  @ApiProperty({ enum: ['meridianchain', 'ethereum'] }) @IsString() @MaxLength(32) expectedSourceNetwork!: string;
  @ApiProperty({
    type: DepositAddressAccountReference,
    description:
      'an active bank account (bankUs, bankIban or bankCanada) of the customer or of one of its counterparties',
  })
  @IsObject()
  @ValidateNested()
  @Type(() => DepositAddressAccountReference)
  destination!: DepositAddressAccountReference;
  @ApiProperty({ type: DepositAddressPayoutRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => DepositAddressPayoutRequest)
  payout!: DepositAddressPayoutRequest;
  @ApiPropertyOptional({
    type: DepositAddressAccountReference,
    description:
      'an active walletExternal of the customer or a counterparty, on the expected asset and network: where returned deposits go (else back to the sender)',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => DepositAddressAccountReference)
  returnDestination?: DepositAddressAccountReference;
  @ApiPropertyOptional({
    description:
      'hold deposits from senders that are not a registered walletExternal of the customer or a counterparty until one is registered',
  })
  @IsOptionalNotNull()
  @IsBoolean()
  requiresCounterpartyWalletRegistration?: boolean;
  @ApiPropertyOptional({ default: true }) @IsOptionalNotNull() @IsBoolean() sponsorGas?: boolean;
  @ApiPropertyOptional({ maxLength: 200, description: 'trimmed; one line of visible text' })
  @IsOptionalNotNull()
  @IsLabel(200)
  label?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

export class UpdateDepositAddressRequest {
  @ApiPropertyOptional({
    type: DepositAddressAccountReference,
    description: 'a new destination: an active bank account of the customer or a counterparty',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => DepositAddressAccountReference)
  destination?: DepositAddressAccountReference;
  @ApiPropertyOptional({
    type: DepositAddressPayoutRequest,
    description: 'replaces the payout instruction; its rail must be one the destination takes',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => DepositAddressPayoutRequest)
  payout?: DepositAddressPayoutRequest;
  @ApiPropertyOptional({
    type: DepositAddressAccountReference,
    nullable: true,
    description: 'null removes it (returns then go back to the sender)',
  })
  @IsOptional()
  @ValidateIf((_o: object, v: unknown) => v !== null)
  @IsObject()
  @ValidateNested()
  @Type(() => DepositAddressAccountReference)
  returnDestination?: DepositAddressAccountReference | null;
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

export class ListDepositAddressesQuery extends ListQuery {
  @ApiPropertyOptional({ description: "only this customer's addresses" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  customerId?: string;
}

export class SimulateCryptoDepositRequest {
  @ApiProperty({
    example: '100.00',
    description:
      "the usdc that arrived (at most 6 decimals); it must pay out in whole cents of the destination's currency",
  })
  @IsAmount({ asset: 'usdc' })
  amount!: string;
  @ApiPropertyOptional({
    example: '0x52908400098527886E0F7030069857D2E4169EE7',
    description: 'who sent it (EVM; EIP-55 checksum when mixed case); a fresh unregistered address when omitted',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(128)
  senderAddress?: string;
}

export class DepositAddressOwnerResponse {
  @ApiProperty({ enum: ['customer', 'counterparty'] }) kind!: 'customer' | 'counterparty';
  @ApiProperty({ description: 'the customer (cst_) or the counterparty (cpty_)' }) id!: string;
  @ApiProperty() name!: string;
}

const DETAILS = [
  BankUsDetailsResponse,
  BankIbanDetailsResponse,
  BankCanadaDetailsResponse,
  WalletExternalDetailsResponse,
];

/** A registered external account as a deposit address names it (the v1 instrument). */
@ApiExtraModels(...DETAILS)
export class DepositAddressInstrumentResponse {
  @ApiProperty({ enum: ['bankUs', 'bankIban', 'bankCanada', 'walletExternal'] }) type!: string;
  @ApiProperty({ description: 'the external account (ext_)' }) id!: string;
  @ApiProperty({
    example: 'usd',
    description: 'a destination: the currency its rail pays in; a return wallet: its asset',
  })
  asset!: string;
  @ApiProperty({ example: 'ach', description: 'a destination: the payout rail; a return wallet: its network' })
  network!: string;
  @ApiProperty({ type: DepositAddressOwnerResponse, description: 'who holds the account' })
  owner!: DepositAddressOwnerResponse;
  @ApiProperty({ ...oneOfModels(...DETAILS), description: 'as a read of the external account shows them' })
  details!: Record<string, unknown>;
}

export class DepositAddressPayoutResponse {
  @ApiProperty({ enum: RAILS }) rail!: string;
  @ApiPropertyOptional({ enum: ['PPD', 'CCD', 'CTX', 'WEB', 'TEL'] }) secCode?: string;
  @ApiPropertyOptional() companyDiscretionaryData?: string;
}

export class DepositAddressInstructionsResponse {
  @ApiProperty({ description: 'the on-chain address to send to' }) address!: string;
  @ApiProperty({ enum: ['usdc'] }) asset!: string;
  @ApiProperty({ enum: ['meridianchain', 'ethereum'] }) network!: string;
}

export class DepositAddressHoldResponse {
  @ApiProperty({ enum: ['payoutDestinationMissing'] }) code!: 'payoutDestinationMissing';
  @ApiProperty({ description: 'a fixed sentence' }) message!: string;
}

export class DepositAddressPayoutOriginResponse {
  @ApiProperty({ enum: ['depositAddress'] }) type!: 'depositAddress';
  @ApiProperty({ description: 'this deposit address (da_)' }) id!: string;
  @ApiProperty({ enum: ['customer'] }) accountHolder!: 'customer';
  @ApiProperty({ description: "the customer's name" }) accountHolderName!: string;
}

export class DepositAddressResponse {
  @ApiProperty({ example: 'da_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['depositAddress'] }) object!: 'depositAddress';
  @ApiProperty() customerId!: string;
  @ApiProperty({ enum: ['usdc'] }) expectedSourceAsset!: string;
  @ApiProperty({ enum: ['meridianchain', 'ethereum'] }) expectedSourceNetwork!: string;
  @ApiProperty({ type: DepositAddressInstrumentResponse, description: 'the bank account deposits are paid out to' })
  destination!: DepositAddressInstrumentResponse;
  @ApiProperty({ type: DepositAddressPayoutResponse }) payout!: DepositAddressPayoutResponse;
  @ApiPropertyOptional({
    type: DepositAddressInstrumentResponse,
    description: 'only when set: the wallet returned deposits go to',
  })
  returnDestination?: DepositAddressInstrumentResponse;
  @ApiPropertyOptional({
    type: [String],
    enum: ['walletExternal'],
    description: 'only when a return destination is set: the instrument types returns go to',
  })
  returnDestinationTypes?: string[];
  @ApiPropertyOptional({ description: 'only when the create request set it' })
  requiresCounterpartyWalletRegistration?: boolean;
  @ApiPropertyOptional({ description: 'only when the create request set it' }) sponsorGas?: boolean;
  @ApiPropertyOptional({ type: DepositAddressHoldResponse, description: 'only while inactiveActionRequired' })
  hold?: DepositAddressHoldResponse;
  @ApiProperty({ enum: STATUSES }) status!: string;
  @ApiProperty({
    type: DepositAddressInstructionsResponse,
    nullable: true,
    description: 'null until the custodian provisions the address',
  })
  depositInstructions!: DepositAddressInstructionsResponse | null;
  @ApiProperty({ type: DepositAddressPayoutOriginResponse }) payoutOrigin!: DepositAddressPayoutOriginResponse;
  @ApiPropertyOptional({ description: 'only when set' }) label?: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class DepositAddressDepositResponse {
  @ApiProperty({ enum: ['depositAddressDeposit'] }) object!: 'depositAddressDeposit';
  @ApiProperty() depositAddressId!: string;
  @ApiProperty({ example: '100.00' }) amount!: string;
  @ApiProperty({ enum: ['usdc'] }) asset!: string;
  @ApiProperty({ enum: ['meridianchain', 'ethereum'] }) network!: string;
  @ApiProperty() senderAddress!: string;
  @ApiProperty({ description: 'the on-chain transfer' }) txHash!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'the cryptoToFiatAccount transaction the deposit made (precursor depositAddress); null on a network that runs on a chain, where the faucet sent a real transfer and the transaction follows once it is confirmed',
  })
  transactionId!: string | null;
}
