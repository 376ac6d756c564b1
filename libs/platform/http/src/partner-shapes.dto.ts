// The partner-facing shapes more than one service answers with (spec: Pricing,
// Party, Quote and Transaction sides), described once for the OpenAPI document:
// the quoting and transactions services both answer them, and the gateway
// merges their documents by schema name, so each must have one definition.
import { type Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { OPERATOR } from '@mm/contracts';

/** `oneOf` the given DTO classes, for ApiProperty (list them in ApiExtraModels of the host class too). */
export function oneOfModels(...models: Array<Type<unknown>>): { oneOf: Array<{ $ref: string }> } {
  return { oneOf: models.map((model) => ({ $ref: getSchemaPath(model) })) };
}

const DECIMAL = { example: '0.00', description: "decimal string, in the side's asset" };

export class FeesDeductedResponse {
  @ApiProperty(DECIMAL) total!: string;
  @ApiProperty(DECIMAL) developer!: string;
  @ApiProperty(DECIMAL) gas!: string;
  @ApiProperty({ ...DECIMAL, description: "the service's own fee" }) [OPERATOR]!: string;
}

export class PricingSideResponse {
  @ApiProperty({ example: 'usdc' }) asset!: string;
  @ApiProperty({ example: '100.00', description: 'before fees' }) amountGross!: string;
  @ApiProperty({ example: '100.00', description: 'after fees' }) amountNet!: string;
  @ApiProperty({ type: FeesDeductedResponse }) feesDeducted!: FeesDeductedResponse;
}

/** spec: Pricing. source.amountNet × exchangeRate = destination.amountGross. */
export class PricingResponse {
  @ApiProperty({ type: PricingSideResponse }) source!: PricingSideResponse;
  @ApiProperty({ type: PricingSideResponse }) destination!: PricingSideResponse;
  @ApiProperty({ example: 'usdc/usd' }) pair!: string;
  @ApiProperty({ example: '1.00' }) exchangeRate!: string;
  @ApiProperty({ example: '1.00' }) effectiveRate!: string;
  @ApiProperty({ enum: ['source', 'destination'] }) fixedAmountSide!: 'source' | 'destination';
  @ApiProperty() sponsorGas!: boolean;
  @ApiProperty({ example: '0.00' }) sponsorGasCost!: string;
}

// spec: Party, one shape per relationship.
export class CustomerPartyResponse {
  @ApiProperty({ enum: ['customer'] }) relationship!: 'customer';
  @ApiProperty() customerId!: string;
  @ApiProperty({ enum: ['individual'] }) entityType!: 'individual';
}

export class OtherCustomerPartyResponse {
  @ApiProperty({ enum: ['otherCustomer'] }) relationship!: 'otherCustomer';
  @ApiProperty() customerId!: string;
  @ApiProperty({ enum: ['individual'] }) entityType!: 'individual';
}

export class ExternalRegisteredPartyResponse {
  @ApiProperty({ enum: ['externalRegistered'] }) relationship!: 'externalRegistered';
  @ApiProperty({ nullable: true, type: String, description: 'the counterparty that owns the instrument' })
  counterpartyId!: string | null;
  @ApiProperty({ enum: ['individual', 'business'] }) entityType!: 'individual' | 'business';
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
}

export class ExternalUnregisteredPartyResponse {
  @ApiProperty({ enum: ['externalUnregistered'] }) relationship!: 'externalUnregistered';
}

const PARTIES = [
  CustomerPartyResponse,
  OtherCustomerPartyResponse,
  ExternalRegisteredPartyResponse,
  ExternalUnregisteredPartyResponse,
];

// A side's details, one shape per kind of instrument.
export class WalletDetailsResponse {
  @ApiPropertyOptional({
    description: 'the wallet (wlt_) or external wallet (ext_); absent for an address given as is',
  })
  id?: string;
  @ApiProperty({ example: 'usdc' }) asset!: string;
  @ApiProperty({ example: 'meridianchain' }) network!: string;
  @ApiProperty({ description: 'on-chain address' }) address!: string;
}

export class CardDetailsResponse {
  @ApiProperty({ description: 'the card (ext_)' }) externalAccountId!: string;
  @ApiProperty({ enum: ['usd'] }) asset!: string;
  @ApiProperty({ enum: ['card'] }) network!: string;
  @ApiProperty({ example: 'visa' }) brand!: string;
  @ApiProperty({ example: '4242' }) last4!: string;
  @ApiPropertyOptional({ description: 'card buys: the custodial wallet named in the quote' }) walletId?: string;
}

export class BankDetailsResponse {
  @ApiProperty({ description: 'the bank account (ext_)' }) id!: string;
  @ApiProperty({ example: 'usd' }) asset!: string;
  @ApiProperty({ example: 'ach', description: 'the rail: ach, achSameDay, wire, swift or local' }) network!: string;
  @ApiProperty({
    enum: ['customer', 'counterparty'],
    description: "who holds the account: the customer, or (a deposit address's payout) one of its counterparties",
  })
  accountHolder!: 'customer' | 'counterparty';
  @ApiPropertyOptional({ example: '9012', description: "the account number's or IBAN's last four" }) last4?: string;
}

export class CashPickupDetailsResponse {
  @ApiProperty({ enum: ['usd'] }) asset!: string;
  @ApiProperty({ enum: ['cash'] }) network!: string;
  @ApiProperty({ example: 'loc_01m846c3h4e06945jf6mfht9tc' }) cashLocationId!: string;
  @ApiProperty({ example: 'BIGMART-1001' }) cashLocationReference!: string;
  @ApiProperty() locationName!: string;
  @ApiProperty({ example: 'bigmart' }) locationProvider!: string;
  @ApiProperty({ example: 'CA', description: 'US state code' }) locationState!: string;
}

export class CashDepositDetailsResponse {
  @ApiProperty({ enum: ['usd'] }) asset!: string;
  @ApiProperty({ enum: ['cash'] }) network!: string;
  @ApiProperty({ example: 'loc_01m846c3h4e06945jf6mfht9tc' }) locationId!: string;
  @ApiProperty({ example: 'BIGMART-1001' }) locationReference!: string;
  @ApiProperty({ example: 'bigmart' }) locationProvider!: string;
}

/** The source of a virtual account deposit's transaction: the virtual account the bank credited. */
export class VirtualAccountDetailsResponse {
  @ApiProperty({ example: 'va_01m87f3k8dfvptagv2n4p6r8ts', description: 'the virtual account (va_)' }) id!: string;
  @ApiProperty({ enum: ['usd'] }) asset!: string;
  @ApiProperty({ enum: ['ach', 'wire', 'internationalWire'], description: 'the rail the transfer came by' })
  network!: string;
  @ApiPropertyOptional({ example: 'ACME PAYROLL', description: 'the sender as the bank named it, when it did' })
  senderName?: string;
  @ApiProperty({
    example: '021000089000123',
    description:
      "the bank's reference of the transfer: an ACH trace number, a wire's IMAD or an international wire's instruction id",
  })
  reference!: string;
}

const DETAILS = [
  WalletDetailsResponse,
  CardDetailsResponse,
  BankDetailsResponse,
  CashPickupDetailsResponse,
  CashDepositDetailsResponse,
  VirtualAccountDetailsResponse,
];

/** One side of a quote or transaction (spec: Transaction, source and destination). */
@ApiExtraModels(...PARTIES, ...DETAILS)
export class InstrumentSideResponse {
  @ApiProperty({
    enum: [
      'walletOms',
      'walletCrypto',
      'walletExternal',
      'bankUs',
      'bankIban',
      'bankCanada',
      'card',
      'cash',
      'virtualAccount',
    ],
  })
  type!: string;
  @ApiProperty({ enum: ['crypto', 'fiat', 'cash'] }) category!: 'crypto' | 'fiat' | 'cash';
  @ApiProperty({
    ...oneOfModels(...DETAILS),
    description:
      'the instrument, by kind: wallet, card, bank account, cash pickup or cash deposit location, or the virtual account an inbound transfer reached',
  })
  details!: Record<string, unknown>;
  @ApiProperty({
    ...oneOfModels(...PARTIES),
    discriminator: {
      propertyName: 'relationship',
      mapping: {
        customer: getSchemaPath(CustomerPartyResponse),
        otherCustomer: getSchemaPath(OtherCustomerPartyResponse),
        externalRegistered: getSchemaPath(ExternalRegisteredPartyResponse),
        externalUnregistered: getSchemaPath(ExternalUnregisteredPartyResponse),
      },
    },
    description: 'who is on this side (spec: Party)',
  })
  party!: Record<string, unknown>;
}

// An external account's details by type, as a read of the account shows them (never a full number):
// the external accounts service answers them, and a deposit address names its accounts with them.
export class BankUsDetailsResponse {
  @ApiProperty() holderName!: string;
  @ApiProperty({ nullable: true, type: String }) bankName!: string | null;
  @ApiProperty({ example: '021000021' }) routingNumber!: string;
  @ApiProperty({ example: '9012' }) accountNumberLast4!: string;
  @ApiProperty({ enum: ['checking', 'savings'] }) accountType!: 'checking' | 'savings';
}

export class BankIbanDetailsResponse {
  @ApiProperty() holderName!: string;
  @ApiProperty({ example: '3000' }) ibanLast4!: string;
  @ApiProperty({ example: 'COBADEFFXXX' }) bic!: string;
  @ApiProperty({ example: 'DE' }) countryCode!: string;
  @ApiProperty({ nullable: true, type: String }) bankAddress!: string | null;
}

export class BankCanadaDetailsResponse {
  @ApiProperty() holderName!: string;
  @ApiProperty({ nullable: true, type: String }) bankName!: string | null;
  @ApiProperty({ example: '001' }) institutionNumber!: string;
  @ApiProperty({ example: '12345' }) transitNumber!: string;
  @ApiProperty({ example: '4567' }) accountNumberLast4!: string;
}

export class WalletExternalDetailsResponse {
  @ApiProperty({ description: 'EIP-55 checksummed' }) address!: string;
  @ApiProperty({ example: 'ethereum' }) network!: string;
  @ApiProperty({ example: 'usdc' }) asset!: string;
}
