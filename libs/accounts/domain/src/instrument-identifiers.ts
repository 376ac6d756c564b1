// The checks a bank makes on instrument identifiers (spec: External account;
// rule 9: banks are identified by standard identifiers only). Each returns a
// problem worded for a partner developer, or undefined; none repeats the value
// it was given (it may be sensitive), and none throws, whatever the input.
import cardValidator from 'card-validator';
import type * as IbanTools from 'ibantools' with { 'resolution-mode': 'import' };

// ibantools is an ES module package with a CommonJS build, whose types TypeScript reads as ESM only.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { countrySpecs, isValidBIC, validateIBAN, ValidationErrorsIBAN } = require('ibantools') as typeof IbanTools;

export type Problem = string;

const digits = (value: string, min: number, max = min): Problem | undefined => {
  if (!/^\d*$/.test(value)) return 'must contain digits only';
  if (value.length < min || value.length > max)
    return min === max
      ? `must be exactly ${min} digits (got ${value.length})`
      : `must be ${min} to ${max} digits (got ${value.length})`;
  return undefined;
};

/** Federal Reserve routing symbol prefixes: 00-12 banks, 21-32 thrifts, 61-72 electronic, 80 traveller's cheques. */
function knownAbaPrefix(prefix: number): boolean {
  return prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) || prefix === 80;
}

export function abaRoutingNumberProblem(value: string): Problem | undefined {
  const format = digits(value, 9);
  if (format) return format;
  if (!knownAbaPrefix(Number(value.slice(0, 2)))) return 'starts with a prefix no ABA routing number uses';
  const d = [...value].map(Number);
  const sum = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5] + d[8]);
  return sum % 10 === 0 ? undefined : 'check digit does not match (ABA checksum)';
}

export function usAccountNumberProblem(value: string): Problem | undefined {
  return digits(value, 4, 17);
}

export function normalizeIban(value: string): string {
  return value.replace(/ /g, '').toUpperCase();
}

export function ibanCountry(normalizedIban: string): string {
  return normalizedIban.slice(0, 2);
}

export function ibanLast4(normalizedIban: string): string {
  return normalizedIban.slice(-4);
}

export function ibanProblem(value: string): Problem | undefined {
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(value))
    return 'must be two letters of country, two check digits, then letters and digits';
  const country = ibanCountry(value);
  const spec = countrySpecs[country];
  if (!spec?.chars) return `${country} is not a country that uses IBANs`;
  if (value.length !== spec.chars) return `must be ${spec.chars} characters for ${country} (got ${value.length})`;
  const { errorCodes } = validateIBAN(value);
  if (errorCodes.length === 0) return undefined;
  if (errorCodes.includes(ValidationErrorsIBAN.WrongBBANFormat))
    return `the account part does not have the format of ${country}`;
  if (
    errorCodes.includes(ValidationErrorsIBAN.WrongIBANChecksum) ||
    errorCodes.includes(ValidationErrorsIBAN.ChecksumNotNumber)
  )
    return 'check digits do not match (mod-97)';
  if (errorCodes.includes(ValidationErrorsIBAN.WrongAccountBankBranchChecksum))
    return `the national check digits of ${country} do not match`;
  return 'is not a valid IBAN';
}

const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

export function bicProblem(value: string): Problem | undefined {
  if (value.length !== 8 && value.length !== 11) return `must be 8 or 11 characters (got ${value.length})`;
  if (/[a-z]/.test(value)) return 'must be upper case';
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(value))
    return 'must be 4 letters of bank code, 2 of country, 2 letters or digits of location, and an optional 3 of branch';
  if (regions.of(bicCountry(value)) === undefined || !isValidBIC(value))
    return `${bicCountry(value)} is not an ISO 3166 country code`;
  return undefined;
}

export function bicCountry(bic: string): string {
  return bic.slice(4, 6);
}

export function canadianInstitutionNumberProblem(value: string): Problem | undefined {
  return digits(value, 3);
}

export function canadianTransitNumberProblem(value: string): Problem | undefined {
  return digits(value, 5);
}

export function canadianAccountNumberProblem(value: string): Problem | undefined {
  return digits(value, 7, 12);
}

// EVM addresses: one rule for every service (the contracts' EIP-55 check).
export { evmAddressProblem, toChecksumAddress } from '@mm/contracts';

export type CardBrand = 'visa' | 'mastercard' | 'amex' | 'discover' | 'dinersClub' | 'jcb' | 'unionPay' | 'maestro';

const BRANDS: Record<string, CardBrand> = {
  visa: 'visa',
  mastercard: 'mastercard',
  'american-express': 'amex',
  discover: 'discover',
  'diners-club': 'dinersClub',
  jcb: 'jcb',
  unionpay: 'unionPay',
  maestro: 'maestro',
};

export function inspectCardNumber(value: string): { brand: CardBrand; last4: string } | { problem: Problem } {
  if (!/^[\d ]+$/.test(value)) return { problem: 'must contain digits only (spaces between groups are allowed)' };
  const number = value.replace(/ /g, '');
  // Luhn for every brand: card-validator waives it for UnionPay unless told.
  const result = cardValidator.number(number, { maxLength: 19, luhnValidateUnionPay: true });
  const card = result.card;
  if (!card) return { problem: 'is not the number of a card brand we recognise' };
  const brand = BRANDS[card.type];
  if (!brand) return { problem: `${card.niceType} cards are not supported` };
  if (!card.lengths.includes(number.length))
    return { problem: `a ${card.niceType} number has ${card.lengths.join(' or ')} digits (got ${number.length})` };
  if (!result.isValid) return { problem: 'fails the Luhn check; check the number for a typo' };
  return { brand, last4: last4(number) };
}

/** A card is valid through the last day of its expiry month (UTC). */
export function cardExpiryProblem(month: number, year: number, now: Date): Problem | undefined {
  if (!Number.isInteger(month) || month < 1 || month > 12) return 'expiryMonth must be 1 to 12';
  if (!Number.isInteger(year) || year < 1000 || year > 9999) return 'expiryYear must have 4 digits';
  const thisYear = now.getUTCFullYear();
  if (year < thisYear || (year === thisYear && month < now.getUTCMonth() + 1)) return 'the card has expired';
  if (year > thisYear + 20) return 'expiryYear is more than 20 years ahead';
  return undefined;
}

export function last4(value: string): string {
  return value.replace(/\D/g, '').slice(-4);
}
