// Spec: External account (create fields per type); rule 9 (standard bank identifiers).
import fc from 'fast-check';
import {
  abaRoutingNumberProblem,
  bicProblem,
  canadianAccountNumberProblem,
  canadianInstitutionNumberProblem,
  canadianTransitNumberProblem,
  cardExpiryProblem,
  evmAddressProblem,
  ibanLast4,
  ibanProblem,
  inspectCardNumber,
  normalizeIban,
  toChecksumAddress,
  usAccountNumberProblem,
} from './instrument-identifiers';
import {
  EXAMPLE_IBANS,
  VALID_ABA_ROUTING_NUMBERS,
  VALID_BICS,
  VALID_CARD_NUMBERS,
  VALID_EVM_ADDRESSES,
  validAbaRoutingNumber,
  validIban,
  validLuhnCardNumber,
} from '@mm/accounts/testing';

/** Every string that differs from `value` in exactly one position, by another character of `alphabet`. */
const oneCharacterChanged = (value: string, alphabet: string) =>
  fc
    .tuple(fc.nat({ max: value.length - 1 }), fc.constantFrom(...alphabet))
    .filter(([i, c]) => value[i] !== c)
    .map(([i, c]) => value.slice(0, i) + c + value.slice(i + 1));

describe('ABA routing numbers', () => {
  it.each(VALID_ABA_ROUTING_NUMBERS)('accepts %s', (n) => expect(abaRoutingNumberProblem(n)).toBeUndefined());

  it.each([
    ['02100002', 'must be exactly 9 digits (got 8)'],
    ['0210000211', 'must be exactly 9 digits (got 10)'],
    ['02100002a', 'must contain digits only'],
    ['021000022', 'check digit does not match (ABA checksum)'],
    ['500000005', 'starts with a prefix no ABA routing number uses'],
    ['', 'must be exactly 9 digits (got 0)'],
  ])('refuses %p: %s', (n, problem) => expect(abaRoutingNumberProblem(n)).toBe(problem));

  it('accepts every generated routing number and refuses each with one digit changed', () =>
    fc.assert(
      fc.property(
        validAbaRoutingNumber().chain((n) => fc.tuple(fc.constant(n), oneCharacterChanged(n, '0123456789'))),
        ([valid, changed]) => {
          expect(abaRoutingNumberProblem(valid)).toBeUndefined();
          expect(abaRoutingNumberProblem(changed)).toBeDefined();
        },
      ),
    ));
});

describe('account numbers', () => {
  it('US: 4 to 17 digits', () => {
    expect(usAccountNumberProblem('1234')).toBeUndefined();
    expect(usAccountNumberProblem('12345678901234567')).toBeUndefined();
    expect(usAccountNumberProblem('123')).toBe('must be 4 to 17 digits (got 3)');
    expect(usAccountNumberProblem('123456789012345678')).toBe('must be 4 to 17 digits (got 18)');
    expect(usAccountNumberProblem('1234-5678')).toBe('must contain digits only');
  });

  it('Canada: institution 3 digits, transit 5, account 7 to 12', () => {
    expect(canadianInstitutionNumberProblem('001')).toBeUndefined();
    expect(canadianInstitutionNumberProblem('01')).toBe('must be exactly 3 digits (got 2)');
    expect(canadianTransitNumberProblem('00011')).toBeUndefined();
    expect(canadianTransitNumberProblem('0001a')).toBe('must contain digits only');
    expect(canadianAccountNumberProblem('1234567')).toBeUndefined();
    expect(canadianAccountNumberProblem('123456789012')).toBeUndefined();
    expect(canadianAccountNumberProblem('123456')).toBe('must be 7 to 12 digits (got 6)');
  });
});

describe('IBANs', () => {
  it.each(EXAMPLE_IBANS.map((e) => [e.country, e.iban]))('accepts the published example of %s', (_country, iban) =>
    expect(ibanProblem(iban)).toBeUndefined(),
  );

  it('normalises printed groups and case', () => {
    expect(normalizeIban('gb29 nwbk 6016 1331 9268 19')).toBe('GB29NWBK60161331926819');
    expect(ibanLast4('GB29NWBK60161331926819')).toBe('6819');
  });

  it.each([
    ['DE89370400440532013001', 'check digits do not match (mod-97)'],
    ['DE8937040044053201300', 'must be 22 characters for DE (got 21)'],
    ['DE893704004405320130000', 'must be 22 characters for DE (got 23)'],
    ['XX89370400440532013000', 'XX is not a country that uses IBANs'],
    ['US89370400440532013000', 'US is not a country that uses IBANs'],
    ['DE8937040044053201300A', 'the account part does not have the format of DE'],
    ['89DE370400440532013000', 'must be two letters of country, two check digits, then letters and digits'],
    ['DE89-3704-0044', 'must be two letters of country, two check digits, then letters and digits'],
  ])('refuses %p: %s', (iban, problem) => expect(ibanProblem(iban)).toBe(problem));

  // Mod-97 catches every change of one digit and every swap of two adjacent different digits; a letter
  // expands to two digits, so a letter changed for another letter escapes it about once in 97.
  it('accepts generated IBANs of many countries and refuses any single digit changed or adjacent digits swapped', () =>
    fc.assert(
      fc.property(validIban(), fc.nat(), fc.integer({ min: 1, max: 9 }), (valid, pick, delta) => {
        expect(ibanProblem(valid)).toBeUndefined();
        const digitsAt = [...valid].flatMap((c, i) => (i >= 2 && /\d/.test(c) ? [i] : []));
        const i = digitsAt[pick % digitsAt.length];
        const changed = valid.slice(0, i) + String((Number(valid[i]) + delta) % 10) + valid.slice(i + 1);
        expect(ibanProblem(changed)).toBeDefined();
        const pairs = digitsAt.filter((j) => /\d/.test(valid[j + 1] ?? '') && valid[j] !== valid[j + 1]);
        if (pairs.length > 0) {
          const j = pairs[pick % pairs.length];
          expect(ibanProblem(valid.slice(0, j) + valid[j + 1] + valid[j] + valid.slice(j + 2))).toBeDefined();
        }
      }),
      { numRuns: 500 },
    ));

  it('refuses random strings that are not IBANs', () =>
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (value) => {
        fc.pre(!EXAMPLE_IBANS.some((e) => e.iban === value));
        expect(ibanProblem(value)).toBeDefined();
      }),
    ));
});

describe('BICs', () => {
  it.each(VALID_BICS)('accepts %s', (bic) => expect(bicProblem(bic)).toBeUndefined());

  it.each([
    ['COBADEF', 'must be 8 or 11 characters (got 7)'],
    ['COBADEFFXX', 'must be 8 or 11 characters (got 10)'],
    ['cobadeff', 'must be upper case'],
    [
      'C0BADEFF',
      'must be 4 letters of bank code, 2 of country, 2 letters or digits of location, and an optional 3 of branch',
    ],
    ['COBAXXFF', 'XX is not an ISO 3166 country code'],
  ])('refuses %p: %s', (bic, problem) => expect(bicProblem(bic)).toBe(problem));
});

describe('EVM addresses (EIP-55)', () => {
  it.each(VALID_EVM_ADDRESSES)('accepts the checksummed %s', (address) => {
    expect(evmAddressProblem(address)).toBeUndefined();
    expect(toChecksumAddress(address.toLowerCase())).toBe(address);
  });

  it('accepts an address in one case, which carries no checksum', () => {
    expect(evmAddressProblem(VALID_EVM_ADDRESSES[0].toLowerCase())).toBeUndefined();
    expect(evmAddressProblem(`0x${VALID_EVM_ADDRESSES[0].slice(2).toUpperCase()}`)).toBeUndefined();
  });

  it.each([
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe'],
    ['5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg'],
  ])('refuses the malformed %p', (address) =>
    expect(evmAddressProblem(address)).toBe('must be 0x followed by 40 hexadecimal digits'),
  );

  it('refuses a checksummed address with the case of one letter flipped', () =>
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 15 }), { minLength: 40, maxLength: 40 }),
        fc.nat(),
        (nibbles, pick) => {
          const address = toChecksumAddress(`0x${nibbles.map((n) => n.toString(16)).join('')}`);
          const letters = [...address.slice(2)].flatMap((c, i) => (/[a-fA-F]/.test(c) ? [i + 2] : []));
          fc.pre(letters.length >= 2); // one case only would be all-lower or all-upper after the flip
          const i = letters[pick % letters.length];
          const flipped =
            address.slice(0, i) +
            (address[i] === address[i].toLowerCase() ? address[i].toUpperCase() : address[i].toLowerCase()) +
            address.slice(i + 1);
          const body = flipped.slice(2);
          fc.pre(body !== body.toLowerCase() && body !== body.toUpperCase());
          expect(evmAddressProblem(address)).toBeUndefined();
          expect(evmAddressProblem(flipped)).toBe('does not match its EIP-55 checksum; check the address for a typo');
        },
      ),
    ));
});

describe('card numbers', () => {
  it.each(VALID_CARD_NUMBERS.map((c) => [c.brand, c.number]))('detects %s for %s', (brand, number) =>
    expect(inspectCardNumber(number)).toEqual({ brand, last4: number.slice(-4) }),
  );

  it('accepts groups separated by spaces', () =>
    expect(inspectCardNumber('4242 4242 4242 4242')).toEqual({ brand: 'visa', last4: '4242' }));

  it.each([
    ['4242424242424241', 'fails the Luhn check; check the number for a typo'],
    ['4242-4242-4242-4242', 'must contain digits only (spaces between groups are allowed)'],
    ['424242424242', 'a Visa number has 16 or 18 or 19 digits (got 12)'],
    ['9999999999999995', 'is not the number of a card brand we recognise'],
    ['', 'must contain digits only (spaces between groups are allowed)'],
  ])('refuses %p: %s', (number, problem) => expect(inspectCardNumber(number)).toEqual({ problem }));

  it('accepts generated Luhn-valid numbers and refuses each with one digit changed', () =>
    fc.assert(
      fc.property(
        validLuhnCardNumber().chain((n) => fc.tuple(fc.constant(n), oneCharacterChanged(n, '0123456789'))),
        ([valid, changed]) => {
          expect(inspectCardNumber(valid)).toHaveProperty('brand');
          expect(inspectCardNumber(changed)).toHaveProperty('problem');
        },
      ),
    ));

  it('checks the expiry against the project clock: valid through the end of the month', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    expect(cardExpiryProblem(11, 2026, now)).toBeUndefined();
    expect(cardExpiryProblem(10, 2026, now)).toBe('the card has expired');
    expect(cardExpiryProblem(12, 2025, now)).toBe('the card has expired');
    expect(cardExpiryProblem(13, 2027, now)).toBe('expiryMonth must be 1 to 12');
    expect(cardExpiryProblem(1, 27, now)).toBe('expiryYear must have 4 digits');
    expect(cardExpiryProblem(1, 2047, now)).toBe('expiryYear is more than 20 years ahead');
  });
});

describe('totality', () => {
  it('answers every string with a problem or nothing, never an exception', () =>
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme', maxLength: 60 })),
        (value) => {
          for (const check of [
            abaRoutingNumberProblem,
            usAccountNumberProblem,
            ibanProblem,
            bicProblem,
            canadianAccountNumberProblem,
            evmAddressProblem,
          ]) {
            const problem = check(value);
            expect(problem === undefined || typeof problem === 'string').toBe(true);
            if (problem && value.length >= 6) expect(problem).not.toContain(value);
          }
          expect(inspectCardNumber(value)).toBeInstanceOf(Object);
        },
      ),
    ));
});
