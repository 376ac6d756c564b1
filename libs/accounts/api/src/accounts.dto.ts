import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { ENDORSEMENT_NAMES, SANDBOX_MAX_FUNDING, type EndorsementName, type EndorsementStatus } from '@mm/contracts';
import { IsAmount, IsNotBlank, ListQuery } from '@mm/platform/http';

export class CreateCustomerRequest {
  @ApiProperty({ enum: ['individual'] })
  @IsIn(['individual'], { message: 'type must be individual' })
  type!: 'individual';

  @ApiProperty({ maxLength: 100 })
  @IsString()
  @IsNotBlank()
  @MaxLength(100)
  firstName!: string;

  @ApiProperty({ maxLength: 100 })
  @IsString()
  @IsNotBlank()
  @MaxLength(100)
  lastName!: string;

  @ApiPropertyOptional({ format: 'email' })
  @IsOptional()
  @IsEmail()
  @MaxLength(254)
  email?: string;

  @ApiPropertyOptional({
    enum: ENDORSEMENT_NAMES,
    isArray: true,
    description: 'endorsements to request; the sandbox approves them asynchronously',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(3)
  @IsIn(ENDORSEMENT_NAMES, { each: true, message: `each endorsement must be one of ${ENDORSEMENT_NAMES.join(', ')}` })
  endorsements?: EndorsementName[];
}

export class RequestEndorsementRequest {
  @ApiProperty({ enum: ENDORSEMENT_NAMES })
  @IsIn(ENDORSEMENT_NAMES, { message: `name must be one of ${ENDORSEMENT_NAMES.join(', ')}` })
  name!: EndorsementName;
}

export class EndorsementResponse {
  @ApiProperty({ enum: ENDORSEMENT_NAMES }) name!: EndorsementName;
  @ApiProperty({ enum: ['pending', 'active', 'rejected'] }) status!: EndorsementStatus;
}

export class CustomerResponse {
  @ApiProperty({ example: 'cst_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['customer'] }) object!: 'customer';
  @ApiProperty({ enum: ['individual'] }) type!: 'individual';
  @ApiProperty() firstName!: string;
  @ApiProperty() lastName!: string;
  @ApiProperty({ nullable: true, type: String }) email!: string | null;
  @ApiProperty({ type: [EndorsementResponse] }) endorsements!: EndorsementResponse[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class CreateWalletRequest {
  @ApiProperty({ example: 'usdc' })
  @IsString()
  @IsNotBlank()
  @MaxLength(20)
  asset!: string;

  @ApiProperty({ example: 'meridianchain' })
  @IsString()
  @IsNotBlank()
  @MaxLength(40)
  network!: string;
}

export class WalletResponse {
  @ApiProperty() id!: string;
  @ApiProperty({ enum: ['wallet'] }) object!: 'wallet';
  @ApiProperty() customerId!: string;
  @ApiProperty() asset!: string;
  @ApiProperty() network!: string;
  @ApiProperty({ description: 'on-chain address' }) address!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class WalletBalance {
  @ApiProperty() walletId!: string;
  @ApiProperty() asset!: string;
  @ApiProperty() network!: string;
  @ApiProperty({ description: 'decimal string' }) balance!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class WalletBalanceResponse {
  @ApiProperty({ type: WalletBalance }) data!: WalletBalance;
}

export class FaucetTransfer {
  @ApiProperty() network!: string;
  @ApiProperty({ description: "the faucet's transfer to the wallet's address" }) txHash!: string;
  @ApiProperty({ description: 'blocks the transfer needs before the balance shows it' }) confirmations!: number;
}

export class FundWalletResponse extends WalletBalanceResponse {
  @ApiPropertyOptional({
    type: FaucetTransfer,
    description:
      "on a network that runs on a chain: the faucet's transfer, which the balance shows once confirmed (docs/chain.md)",
  })
  transfer?: FaucetTransfer;
}

export class FundWalletRequest {
  @ApiProperty({ example: '100.00', description: 'positive decimal string, at most 6 decimals' })
  @IsAmount({ max: SANDBOX_MAX_FUNDING })
  amount!: string;
}

export class ListCustomersQuery extends ListQuery {
  @ApiPropertyOptional({
    minLength: 2,
    maxLength: 200,
    description:
      'customers whose name (first and last) or email contains this text, in any case; the cursor pages through the matches',
  })
  @IsOptional()
  @IsString()
  @MinLength(2)
  @MaxLength(200)
  search?: string;
}

export class ListWalletsQuery extends ListQuery {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(64)
  customerId?: string;
}

export class CustomerBalanceQuery {
  @ApiPropertyOptional({ default: 'USD', description: 'ISO 4217; USD or CAD' })
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z]{3}$/, { message: 'estimatedBalanceCurrencyCode must be a 3-letter ISO 4217 code' })
  estimatedBalanceCurrencyCode?: string;
}

export class TotalBalance {
  @ApiProperty() totalUsd!: string;
  @ApiProperty() fiatUsd!: string;
  @ApiProperty() cryptoUsd!: string;
}

export class CustomerBalanceData {
  @ApiProperty() customerId!: string;
  @ApiProperty() estimatedBalanceValue!: string;
  @ApiProperty() estimatedBalanceCurrencyCode!: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'omitted when no provider balance was available' })
  updatedAt?: string;
  @ApiPropertyOptional({ type: TotalBalance, description: 'only in USD; omitted if a component cannot be read' })
  totalBalance?: TotalBalance;
}

export class CustomerBalanceResponse {
  @ApiProperty({ type: CustomerBalanceData }) data!: CustomerBalanceData;
}
