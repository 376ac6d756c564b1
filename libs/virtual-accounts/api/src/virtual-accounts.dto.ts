// Request and response shapes of virtual accounts (spec: Virtual account, the
// v1 shape; Endpoints; API-CONTRACT: Virtual accounts).
import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  BankUsDetailsResponse,
  IsAmount,
  IsLabel,
  IsMetadata,
  IsOptionalNotNull,
  ListQuery,
  oneOfModels,
  WalletExternalDetailsResponse,
} from '@mm/platform/http';

const STATUSES = ['pending', 'active', 'frozen', 'closed', 'deleting', 'deleted', 'failed'];
const INBOUND_RAILS = ['ach', 'wire', 'internationalWire'];
const PAYOUT_RAILS = ['ach', 'achSameDay', 'wire'];
const DESTINATION_TYPES = ['walletExternal', 'walletOms', 'bankUs'];

export class VirtualAccountSourceRequest {
  @ApiProperty({ enum: ['usd'] }) @IsString() @IsIn(['usd']) asset!: string;
  @ApiProperty({
    enum: INBOUND_RAILS,
    description: 'the rail the partner expects deposits on; deposits are taken on every supported source',
  })
  @IsString()
  @IsIn(INBOUND_RAILS)
  network!: string;
}

export class VirtualAccountPayoutRequest {
  @ApiProperty({
    enum: PAYOUT_RAILS,
    description:
      "one of the bank account's rails (its supportedDestinations); else 422 VirtualAccountPayoutUnsupported (10240)",
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

export class VirtualAccountDestinationRequest {
  @ApiProperty({
    enum: DESTINATION_TYPES,
    description:
      'walletExternal (externalAccountId), walletOms (walletId: a custodial wallet of the customer) or bankUs (externalAccountId and payout)',
  })
  @IsString()
  @IsIn(DESTINATION_TYPES)
  type!: string;
  @ApiPropertyOptional({
    example: 'ext_01h455vb4pex5vsknk084sn02q',
    description:
      'walletExternal and bankUs: an active external account of the customer or of one of its counterparties',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  externalAccountId?: string;
  @ApiPropertyOptional({
    example: 'wlt_01h455vb4pex5vsknk084sn02q',
    description: 'walletOms: a custodial usdc wallet of the customer',
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  walletId?: string;
  @ApiPropertyOptional({
    type: VirtualAccountPayoutRequest,
    description: 'bankUs only (required there): the rail the bank account is paid on',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountPayoutRequest)
  payout?: VirtualAccountPayoutRequest;
}

export class VirtualAccountAccountReference {
  @ApiProperty({ example: 'ext_01h455vb4pex5vsknk084sn02q' }) @IsString() @MaxLength(64) externalAccountId!: string;
}

export class VirtualAccountReturnPayoutRequest {
  @ApiProperty({
    enum: PAYOUT_RAILS,
    description: "one of the return bank account's rails; else 422 VirtualAccountPayoutUnsupported (10240)",
  })
  @IsString()
  @MaxLength(32)
  rail!: string;
}

export class CreateVirtualAccountRequest {
  @ApiProperty({ example: 'cst_01h455vb4pex5vsknk084sn02q' }) @IsString() @MaxLength(64) customerId!: string;
  @ApiProperty({ type: VirtualAccountSourceRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountSourceRequest)
  source!: VirtualAccountSourceRequest;
  @ApiProperty({ type: VirtualAccountDestinationRequest })
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountDestinationRequest)
  destination!: VirtualAccountDestinationRequest;
  @ApiProperty({ enum: ['customer'] }) @IsString() @IsIn(['customer']) accountHolder!: string;
  @ApiProperty({ enum: ['bankUs'] }) @IsString() @IsIn(['bankUs']) type!: string;
  @ApiPropertyOptional({
    type: VirtualAccountAccountReference,
    description:
      'an active bankUs account of the customer or a counterparty where refunds go (with returnPayout); else back to the sender',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountAccountReference)
  returnDestination?: VirtualAccountAccountReference;
  @ApiPropertyOptional({
    type: VirtualAccountReturnPayoutRequest,
    description: 'with returnDestination: the rail refunds go on',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountReturnPayoutRequest)
  returnPayout?: VirtualAccountReturnPayoutRequest;
  @ApiPropertyOptional({ description: 'shown only when true' }) @IsOptionalNotNull() @IsBoolean() sponsorGas?: boolean;
  @ApiPropertyOptional({ maxLength: 200, description: 'trimmed; one line of visible text' })
  @IsOptionalNotNull()
  @IsLabel(200)
  label?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

export class UpdateVirtualAccountRequest {
  @ApiPropertyOptional({ type: VirtualAccountDestinationRequest, description: 'a new destination, as on creation' })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountDestinationRequest)
  destination?: VirtualAccountDestinationRequest;
  @ApiPropertyOptional({
    type: VirtualAccountAccountReference,
    nullable: true,
    description: 'null removes it and its returnPayout (refunds then go back to the sender)',
  })
  @IsOptional()
  @ValidateIf((_o: object, v: unknown) => v !== null)
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountAccountReference)
  returnDestination?: VirtualAccountAccountReference | null;
  @ApiPropertyOptional({
    type: VirtualAccountReturnPayoutRequest,
    description: 'the rail refunds go on (with a new returnDestination, or alone to change it)',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => VirtualAccountReturnPayoutRequest)
  returnPayout?: VirtualAccountReturnPayoutRequest;
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

export class ListVirtualAccountsQuery extends ListQuery {
  @ApiPropertyOptional({ description: "only this customer's accounts" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  customerId?: string;
}

export class SimulateInboundTransferRequest {
  @ApiProperty({ example: '100.00', description: 'the US dollars that arrived (greater than 0, at most 2 decimals)' })
  @IsAmount({ asset: 'usd' })
  amount!: string;
  @ApiPropertyOptional({ enum: INBOUND_RAILS, default: 'ach' })
  @IsOptionalNotNull()
  @IsString()
  @IsIn(INBOUND_RAILS)
  rail?: string;
  @ApiPropertyOptional({ maxLength: 140, description: "the sender's name as the bank reports it" })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(140)
  senderName?: string;
}

export class VirtualAccountOwnerResponse {
  @ApiProperty({ enum: ['customer', 'counterparty'] }) kind!: 'customer' | 'counterparty';
  @ApiProperty({ description: 'the customer (cst_) or the counterparty (cpty_)' }) id!: string;
  @ApiProperty() name!: string;
}

export class WalletOmsDetailsResponse {
  @ApiProperty({ description: "the custodial wallet's on-chain address" }) address!: string;
}

export class VirtualAccountPayoutResponse {
  @ApiProperty({ enum: PAYOUT_RAILS }) rail!: string;
  @ApiPropertyOptional({ enum: ['PPD', 'CCD', 'CTX', 'WEB', 'TEL'] }) secCode?: string;
  @ApiPropertyOptional() companyDiscretionaryData?: string;
}

const DETAILS = [BankUsDetailsResponse, WalletExternalDetailsResponse, WalletOmsDetailsResponse];

/** The destination as a virtual account names it (the v1 instrument; a bank one with its payout). */
@ApiExtraModels(...DETAILS)
export class VirtualAccountDestinationResponse {
  @ApiProperty({ enum: DESTINATION_TYPES }) type!: string;
  @ApiProperty({ description: 'the external account (ext_) or the custodial wallet (wlt_)' }) id!: string;
  @ApiProperty({ example: 'usdc', description: 'usdc for a wallet; usd for a bank account' }) asset!: string;
  @ApiProperty({ example: 'meridianchain', description: "a wallet's network, or the bank payout's rail" })
  network!: string;
  @ApiProperty({ type: VirtualAccountOwnerResponse, description: 'who holds it' }) owner!: VirtualAccountOwnerResponse;
  @ApiProperty({ ...oneOfModels(...DETAILS), description: 'as a read of the account or wallet shows them' })
  details!: Record<string, unknown>;
  @ApiPropertyOptional({
    type: VirtualAccountPayoutResponse,
    description: 'a bank destination only: the rail it is paid on',
  })
  payout?: VirtualAccountPayoutResponse;
}

export class VirtualAccountReturnDestinationResponse {
  @ApiProperty({ enum: ['bankUs'] }) type!: string;
  @ApiProperty({ description: 'the external account (ext_)' }) id!: string;
  @ApiProperty({ example: 'usd' }) asset!: string;
  @ApiProperty({ example: 'ach', description: 'the rail refunds go on (returnPayout.rail)' }) network!: string;
  @ApiProperty({ type: VirtualAccountOwnerResponse }) owner!: VirtualAccountOwnerResponse;
  @ApiProperty({ type: BankUsDetailsResponse }) details!: BankUsDetailsResponse;
}

export class VirtualAccountReturnPayoutResponse {
  @ApiProperty({ enum: PAYOUT_RAILS }) rail!: string;
}

export class VirtualAccountBankDetailsResponse {
  @ApiPropertyOptional({ example: 'Meridian Sandbox Bank' }) bankName?: string;
  @ApiPropertyOptional({ description: "the customer's name" }) accountHolderName?: string;
  @ApiPropertyOptional({ example: '4815162342', description: 'in full: the number senders pay to' })
  accountNumber?: string;
  @ApiPropertyOptional({ example: '026009593', description: 'ABA routing number' }) routingNumber?: string;
  @ApiPropertyOptional({ example: 'MRDNUS33XXX', description: 'for international wires' }) bic?: string;
}

export class VirtualAccountSupportedSourceResponse {
  @ApiProperty({ enum: ['usd'] }) asset!: string;
  @ApiProperty({ enum: INBOUND_RAILS }) rail!: string;
}

export class VirtualAccountResponse {
  @ApiProperty({ example: 'va_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['virtualAccount'] }) object!: 'virtualAccount';
  @ApiProperty() customerId!: string;
  @ApiProperty({ type: VirtualAccountDestinationResponse, description: 'where deposits are delivered' })
  destination!: VirtualAccountDestinationResponse;
  @ApiPropertyOptional({
    type: VirtualAccountReturnDestinationResponse,
    description: 'only when set: the bank account refunds go to',
  })
  returnDestination?: VirtualAccountReturnDestinationResponse;
  @ApiPropertyOptional({ type: VirtualAccountReturnPayoutResponse, description: 'only with returnDestination' })
  returnPayout?: VirtualAccountReturnPayoutResponse;
  @ApiProperty({ enum: ['customer'] }) accountHolder!: 'customer';
  @ApiProperty({ enum: ['bankUs'] }) type!: 'bankUs';
  @ApiProperty({ enum: STATUSES }) status!: string;
  @ApiProperty({
    type: VirtualAccountBankDetailsResponse,
    nullable: true,
    description: 'null until the bank provisions the account; empty fields are left out',
  })
  bankDetails!: VirtualAccountBankDetailsResponse | null;
  @ApiProperty({
    type: [VirtualAccountSupportedSourceResponse],
    description: 'what the account receives: usd on each rail',
  })
  supportedSources!: VirtualAccountSupportedSourceResponse[];
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'only once a delete was requested (cleared when the bank could not close the account now)',
  })
  deletionRequestedAt?: string;
  @ApiPropertyOptional({ description: 'only when set' }) label?: string;
  @ApiPropertyOptional({ enum: [true], description: 'only when true' }) sponsorGas?: boolean;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) metadata!: Record<string, string>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class VirtualAccountDepositResponse {
  @ApiProperty({ enum: ['virtualAccountDeposit'] }) object!: 'virtualAccountDeposit';
  @ApiProperty() virtualAccountId!: string;
  @ApiProperty({ example: '100.00' }) amount!: string;
  @ApiProperty({ enum: ['usd'] }) asset!: string;
  @ApiProperty({ enum: INBOUND_RAILS }) rail!: string;
  @ApiProperty({ nullable: true, type: String, description: 'as the bank reported it' }) senderName!: string | null;
  @ApiProperty({
    description: "the bank's reference: an ACH trace number, a wire's IMAD, or an international wire's instruction id",
  })
  reference!: string;
  @ApiProperty({ description: 'the fiatAccountToCrypto transaction the transfer made (precursor virtualAccount)' })
  transactionId!: string;
}
