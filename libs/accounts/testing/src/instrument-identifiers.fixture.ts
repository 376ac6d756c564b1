// Published identifiers and generators for tests (unit and e2e). Example IBANs
// are the SWIFT IBAN registry's examples; routing numbers are well-known
// Federal Reserve routing numbers of large banks.
import fc from 'fast-check';

export const EXAMPLE_IBANS: Array<{ country: string; iban: string }> = [
  { country: 'AD', iban: 'AD1200012030200359100100' },
  { country: 'AE', iban: 'AE070331234567890123456' },
  { country: 'AT', iban: 'AT611904300234573201' },
  { country: 'BE', iban: 'BE68539007547034' },
  { country: 'BG', iban: 'BG80BNBG96611020345678' },
  { country: 'CH', iban: 'CH9300762011623852957' },
  { country: 'CY', iban: 'CY17002001280000001200527600' },
  { country: 'CZ', iban: 'CZ6508000000192000145399' },
  { country: 'DE', iban: 'DE89370400440532013000' },
  { country: 'DK', iban: 'DK5000400440116243' },
  { country: 'EE', iban: 'EE382200221020145685' },
  { country: 'ES', iban: 'ES9121000418450200051332' },
  { country: 'FI', iban: 'FI2112345600000785' },
  { country: 'FR', iban: 'FR1420041010050500013M02606' },
  { country: 'GB', iban: 'GB29NWBK60161331926819' },
  { country: 'GI', iban: 'GI75NWBK000000007099453' },
  { country: 'GR', iban: 'GR1601101250000000012300695' },
  { country: 'HR', iban: 'HR1210010051863000160' },
  { country: 'HU', iban: 'HU42117730161111101800000000' },
  { country: 'IE', iban: 'IE29AIBK93115212345678' },
  { country: 'IL', iban: 'IL620108000000099999999' },
  { country: 'IS', iban: 'IS140159260076545510730339' },
  { country: 'IT', iban: 'IT60X0542811101000000123456' },
  { country: 'LI', iban: 'LI21088100002324013AA' },
  { country: 'LT', iban: 'LT121000011101001000' },
  { country: 'LU', iban: 'LU280019400644750000' },
  { country: 'LV', iban: 'LV80BANK0000435195001' },
  { country: 'MC', iban: 'MC5811222000010123456789030' },
  { country: 'MT', iban: 'MT84MALT011000012345MTLCAST001S' },
  { country: 'NL', iban: 'NL91ABNA0417164300' },
  { country: 'NO', iban: 'NO9386011117947' },
  { country: 'PL', iban: 'PL61109010140000071219812874' },
  { country: 'PT', iban: 'PT50000201231234567890154' },
  { country: 'RO', iban: 'RO49AAAA1B31007593840000' },
  { country: 'SA', iban: 'SA0380000000608010167519' },
  { country: 'SE', iban: 'SE4550000000058398257466' },
  { country: 'SI', iban: 'SI56263300012039086' },
  { country: 'SK', iban: 'SK3112000000198742637541' },
  { country: 'SM', iban: 'SM86U0322509800000000270100' },
  { country: 'TR', iban: 'TR330006100519786457841326' },
];

export const VALID_ABA_ROUTING_NUMBERS = [
  '021000021', // JPMorgan Chase, New York
  '011000015', // Federal Reserve Bank of Boston
  '026009593', // Bank of America, New York
  '121000358', // Bank of America, California
  '322271627', // Chase, California
  '111000025', // Bank of America, Texas
  '122105155', // Wells Fargo, Arizona
  '071000013', // JPMorgan Chase, Illinois
  '091000019', // Wells Fargo, Minnesota
  '061000052', // Bank of America, Georgia
  '031000503', // Wells Fargo, Pennsylvania
  '044000037', // JPMorgan Chase, Ohio
  '021000089', // Citibank, New York
  '121000248', // Wells Fargo, California
];

export const VALID_BICS = [
  'COBADEFFXXX',
  'DEUTDEFF',
  'NWBKGB2L',
  'BNPAFRPPXXX',
  'ABNANL2A',
  'CHASUS33',
  'BOFAUS3N',
  'RBOSGB2LXXX',
];

export const VALID_CARD_NUMBERS: Array<{ brand: string; number: string }> = [
  { brand: 'visa', number: '4242424242424242' },
  { brand: 'visa', number: '4000056655665556' },
  { brand: 'mastercard', number: '5555555555554444' },
  { brand: 'mastercard', number: '2223003122003222' },
  { brand: 'mastercard', number: '5200828282828210' },
  { brand: 'amex', number: '378282246310005' },
  { brand: 'amex', number: '371449635398431' },
  { brand: 'discover', number: '6011111111111117' },
  { brand: 'discover', number: '6011000990139424' },
  { brand: 'dinersClub', number: '3056930009020004' },
  { brand: 'dinersClub', number: '36227206271667' },
  { brand: 'jcb', number: '3566002020360505' },
  { brand: 'unionPay', number: '6200000000000005' },
];

/** EIP-55's own examples. */
export const VALID_EVM_ADDRESSES = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

/** Check digits by ISO 13616 / ISO 7064 mod-97-10. */
export function ibanWithCheckDigits(country: string, bban: string): string {
  const rearranged = `${bban}${country}00`.toUpperCase();
  const numeric = [...rearranged].map((c) => parseInt(c, 36).toString()).join('');
  let remainder = 0;
  for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}

/** Appends the Luhn check digit. */
export function luhnComplete(partialDigits: string): string {
  let sum = 0;
  // The check digit will sit at position 0 from the right, so the last given digit is doubled.
  [...partialDigits].reverse().forEach((c, i) => {
    let d = Number(c);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  });
  return `${partialDigits}${(10 - (sum % 10)) % 10}`;
}

export function abaComplete(eightDigits: string): string {
  const d = [...eightDigits].map(Number);
  const partial = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5]);
  return `${eightDigits}${(10 - (partial % 10)) % 10}`;
}

const digitString = (length: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: length, maxLength: length }).map((ds) => ds.join(''));
const upperAlnum = (length: number) =>
  fc
    .array(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'), { minLength: length, maxLength: length })
    .map((cs) => cs.join(''));

export function validAbaRoutingNumber(): fc.Arbitrary<string> {
  const prefixes = [
    ...Array.from({ length: 13 }, (_, i) => i),
    ...Array.from({ length: 12 }, (_, i) => 21 + i),
    ...Array.from({ length: 12 }, (_, i) => 61 + i),
    80,
  ];
  return fc
    .tuple(fc.constantFrom(...prefixes), digitString(6))
    .map(([prefix, rest]) => abaComplete(`${String(prefix).padStart(2, '0')}${rest}`));
}

/**
 * BBAN shapes of countries that have no national check digits beyond the IBAN's mod-97 (Belgium,
 * Spain, Poland and others have their own, so random BBANs of theirs are rightly refused).
 */
const IBAN_SHAPES: Record<string, fc.Arbitrary<string>> = {
  DE: digitString(18),
  AT: digitString(16),
  CH: digitString(17),
  DK: digitString(14),
  FI: digitString(14),
  SE: digitString(20),
  LT: digitString(16),
  NL: fc.tuple(fc.constantFrom('ABNA', 'INGB', 'RABO'), digitString(10)).map(([a, b]) => a + b),
  GB: fc.tuple(fc.constantFrom('NWBK', 'BARC', 'HBUK'), digitString(14)).map(([a, b]) => a + b),
  IE: fc.tuple(fc.constantFrom('AIBK', 'BOFI'), digitString(14)).map(([a, b]) => a + b),
  LU: fc.tuple(digitString(3), upperAlnum(13)).map(([a, b]) => a + b),
  LV: fc.tuple(fc.constantFrom('BANK', 'HABA', 'PARX'), upperAlnum(13)).map(([a, b]) => a + b),
  RO: fc.tuple(fc.constantFrom('AAAA', 'BTRL', 'RNCB'), upperAlnum(16)).map(([a, b]) => a + b),
};

/** Valid IBANs of many countries, with the national checks of those countries that have none beyond mod-97. */
export function validIban(): fc.Arbitrary<string> {
  return fc.oneof(
    ...Object.entries(IBAN_SHAPES).map(([country, bban]) => bban.map((b) => ibanWithCheckDigits(country, b))),
  );
}

/**
 * Issuer prefixes (the first six digits) that are Visa's or Mastercard's alone. Any 4… or 51…55… number is not:
 * card-validator names a few six-digit ranges inside them as brands we do not take (Elo's 401178 and 457631,
 * Naranja's 402918 and 527572, among others), which a random prefix met about once in ten thousand numbers.
 */
const VISA_AND_MASTERCARD_PREFIXES = [
  '400000',
  '411111',
  '424242',
  '444433',
  '476173',
  '510510',
  '520082',
  '530125',
  '545454',
  '555555',
];

/** Valid Visa (16) and Mastercard (16) numbers: a prefix of theirs, nine random digits, the Luhn check digit. */
export function validLuhnCardNumber(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...VISA_AND_MASTERCARD_PREFIXES), digitString(9))
    .map(([prefix, rest]) => luhnComplete(`${prefix}${rest}`));
}
