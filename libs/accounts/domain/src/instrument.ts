// From a registration request to an instrument (spec: External account;
// rules 5 and 9): every identifier checked as a bank would check it, with an
// error naming the field; the public details a read and a transaction show;
// the write-only values that go to the provider and nowhere else; and the
// {asset, network} destinations the instrument can receive.
import {
  ApiError,
  CHAIN_L2,
  type BillingAddress,
  type ErrorName,
  type ExternalAccountDetails,
  type ExternalAccountType,
  type InstrumentDestination,
} from '@mm/contracts';
import {
  abaRoutingNumberProblem,
  bicProblem,
  canadianAccountNumberProblem,
  canadianInstitutionNumberProblem,
  canadianTransitNumberProblem,
  cardExpiryProblem,
  evmAddressProblem,
  ibanCountry,
  ibanLast4,
  ibanProblem,
  inspectCardNumber,
  last4,
  normalizeIban,
  toChecksumAddress,
  usAccountNumberProblem,
} from './instrument-identifiers';

export interface BankUsInput {
  accountNumber: string;
  routingNumber: string;
  accountType?: 'checking' | 'savings';
  bankName?: string;
}

export interface BankIbanInput {
  iban: string;
  BIC: string;
  bankAddress?: string;
  countryCode?: string;
}

export interface BankCanadaInput {
  institutionNumber: string;
  transitNumber: string;
  accountNumber: string;
  bankName?: string;
}

export interface WalletExternalInput {
  address: string;
  network: string;
  asset?: string;
}

export interface CardInput {
  cardNumber: string;
  expiryMonth: number;
  expiryYear: number;
  cvc?: string;
  holderName?: string;
  billingAddress: Partial<Record<keyof BillingAddress, unknown>> | undefined;
}

export type InstrumentInput =
  | { type: 'bankUs'; bankUs: BankUsInput }
  | { type: 'bankIban'; bankIban: BankIbanInput }
  | { type: 'bankCanada'; bankCanada: BankCanadaInput }
  | { type: 'walletExternal'; walletExternal: WalletExternalInput }
  | { type: 'card'; card: CardInput };

export interface Instrument {
  type: ExternalAccountType;
  details: ExternalAccountDetails;
  /** Write-only: handed to the provider at registration, never stored, logged or published. */
  sensitive: Record<string, string>;
  supportedDestinations: InstrumentDestination[];
  /** Names the payout screening checks (rule 9: every bank beneficiary); none for cards and wallets. */
  screenedNames: string[];
}

/** Networks a `walletExternal` can be on, and the assets it receives there (rule 5). */
export const EXTERNAL_WALLET_NETWORKS: Record<string, readonly string[]> = { ethereum: ['usdc'], [CHAIN_L2]: ['usdc'] };

/** A region code that names a country (ISO 3166-1 alpha-2), not a grouping such as EU or UN. */
const NOT_COUNTRIES = new Set(['ZZ', 'EU', 'EZ', 'UN', 'QO', 'UK']);
const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
export function isCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value) && !NOT_COUNTRIES.has(value) && regions.of(value) !== undefined;
}

function refuse(error: ErrorName, field: string, problem: string): never {
  throw new ApiError(error, `${field}: ${problem}`);
}

function check(error: ErrorName, field: string, problem: string | undefined): void {
  if (problem) refuse(error, field, problem);
}

const BILLING_FIELDS = ['addressLine1', 'city', 'state', 'country', 'zipCode'] as const;

/** Spec Errors: billing_address_invalid for a missing or blank billing address field. */
export function billingAddress(input: CardInput['billingAddress'], field = 'billingAddress'): BillingAddress {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) {
    refuse('billing_address_invalid', field, 'required, with addressLine1, city, state, country and zipCode');
  }
  for (const key of Object.keys(input)) {
    if (!(BILLING_FIELDS as readonly string[]).includes(key) && key !== 'addressLine2')
      refuse('billing_address_invalid', `${field}.${key}`, 'unknown field');
  }
  for (const name of BILLING_FIELDS) {
    const value = input[name];
    if (typeof value !== 'string' || !/[^\s\p{Cc}\p{Cf}]/u.test(value))
      refuse('billing_address_invalid', `${field}.${name}`, 'required and must not be blank');
  }
  const line2 = input.addressLine2;
  if (line2 !== undefined && line2 !== null && typeof line2 !== 'string')
    refuse('billing_address_invalid', `${field}.addressLine2`, 'must be a string');
  const country = (input.country as string).trim().toUpperCase();
  if (!isCountryCode(country))
    refuse('billing_address_invalid', `${field}.country`, 'must be an ISO 3166-1 alpha-2 country code, for example US');
  return {
    addressLine1: (input.addressLine1 as string).trim(),
    addressLine2: typeof line2 === 'string' && line2.trim() !== '' ? line2.trim() : null,
    city: (input.city as string).trim(),
    state: (input.state as string).trim(),
    country,
    zipCode: (input.zipCode as string).trim(),
  };
}

/**
 * Checks a registration and splits it into what is kept and what only the provider sees.
 * `holderName` is the owner's name (the customer's, or the counterparty's); `now` is the
 * project clock, for card expiry.
 */
export function describeInstrument(input: InstrumentInput, holderName: string, now: Date): Instrument {
  switch (input.type) {
    case 'bankUs': {
      const b = input.bankUs;
      check('InvalidRoutingNumber', 'bankUs.routingNumber', abaRoutingNumberProblem(b.routingNumber));
      check('InvalidAccountNumber', 'bankUs.accountNumber', usAccountNumberProblem(b.accountNumber));
      return {
        type: 'bankUs',
        details: {
          holderName,
          bankName: b.bankName?.trim() || null,
          routingNumber: b.routingNumber,
          accountNumberLast4: last4(b.accountNumber),
          accountType: b.accountType ?? 'checking',
        },
        sensitive: { accountNumber: b.accountNumber, routingNumber: b.routingNumber },
        supportedDestinations: [
          { asset: 'usd', network: 'ach' },
          { asset: 'usd', network: 'achSameDay' },
          { asset: 'usd', network: 'wire' },
        ],
        screenedNames: [holderName],
      };
    }
    case 'bankIban': {
      const b = input.bankIban;
      const iban = normalizeIban(b.iban);
      check('InvalidIban', 'bankIban.iban', ibanProblem(iban));
      check('InvalidBic', 'bankIban.BIC', bicProblem(b.BIC));
      const derived = ibanCountry(iban);
      if (b.countryCode !== undefined && b.countryCode !== null) {
        const given = b.countryCode.trim().toUpperCase();
        if (!isCountryCode(given))
          refuse('CountryCodeMismatch', 'bankIban.countryCode', 'must be an ISO 3166-1 alpha-2 country code');
        if (given !== derived)
          refuse(
            'CountryCodeMismatch',
            'bankIban.countryCode',
            `is ${given} but the IBAN is of ${derived}; omit countryCode to derive it from the IBAN`,
          );
      }
      return {
        type: 'bankIban',
        details: {
          holderName,
          ibanLast4: ibanLast4(iban),
          bic: b.BIC,
          countryCode: derived,
          bankAddress: b.bankAddress?.trim() || null,
        },
        sensitive: { iban, bic: b.BIC },
        supportedDestinations: [{ asset: 'usd', network: 'swift' }],
        screenedNames: [holderName],
      };
    }
    case 'bankCanada': {
      const b = input.bankCanada;
      check(
        'InvalidInstitutionNumber',
        'bankCanada.institutionNumber',
        canadianInstitutionNumberProblem(b.institutionNumber),
      );
      check('InvalidTransitNumber', 'bankCanada.transitNumber', canadianTransitNumberProblem(b.transitNumber));
      check('InvalidAccountNumber', 'bankCanada.accountNumber', canadianAccountNumberProblem(b.accountNumber));
      return {
        type: 'bankCanada',
        details: {
          holderName,
          bankName: b.bankName?.trim() || null,
          institutionNumber: b.institutionNumber,
          transitNumber: b.transitNumber,
          accountNumberLast4: last4(b.accountNumber),
        },
        sensitive: {
          institutionNumber: b.institutionNumber,
          transitNumber: b.transitNumber,
          accountNumber: b.accountNumber,
        },
        supportedDestinations: [
          { asset: 'usd', network: 'swift' },
          { asset: 'cad', network: 'local' },
        ],
        screenedNames: [holderName],
      };
    }
    case 'walletExternal': {
      const w = input.walletExternal;
      const assets = Object.hasOwn(EXTERNAL_WALLET_NETWORKS, w.network)
        ? EXTERNAL_WALLET_NETWORKS[w.network]
        : undefined;
      if (!assets)
        refuse(
          'UnsupportedAssetNetwork',
          'walletExternal.network',
          `must be one of ${Object.keys(EXTERNAL_WALLET_NETWORKS).join(', ')}`,
        );
      const asset = w.asset ?? assets[0];
      if (!assets.includes(asset))
        refuse(
          'UnsupportedAssetNetwork',
          'walletExternal.asset',
          `on ${w.network} must be one of ${assets.join(', ')}`,
        );
      // Both networks are EVM chains: one address format, with the EIP-55 checksum.
      check('InvalidWalletAddress', 'walletExternal.address', evmAddressProblem(w.address));
      const address = toChecksumAddress(w.address);
      return {
        type: 'walletExternal',
        details: { address, network: w.network, asset },
        sensitive: {},
        supportedDestinations: [{ asset, network: w.network }],
        screenedNames: [],
      };
    }
    case 'card': {
      const c = input.card;
      const inspected = inspectCardNumber(c.cardNumber);
      if ('problem' in inspected) refuse('InvalidCardNumber', 'card.cardNumber', inspected.problem);
      check('InvalidCardExpiry', 'card.expiry', cardExpiryProblem(c.expiryMonth, c.expiryYear, now));
      const billing = billingAddress(c.billingAddress);
      const digits = c.cardNumber.replace(/ /g, '');
      return {
        type: 'card',
        details: {
          holderName: c.holderName?.trim() || holderName,
          brand: inspected.brand,
          last4: inspected.last4,
          expiryMonth: c.expiryMonth,
          expiryYear: c.expiryYear,
          billingAddress: billing,
        },
        sensitive: { cardNumber: digits, ...(c.cvc === undefined ? {} : { cvc: c.cvc }) },
        supportedDestinations: [{ asset: 'usd', network: 'card' }],
        screenedNames: [],
      };
    }
  }
}
