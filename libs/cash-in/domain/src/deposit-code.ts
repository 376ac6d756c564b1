// The one-time deposit code (spec: Cash-in, depositInstructions.code): two
// groups of three digits separated by a space, valid one hour from issue or
// refresh on the project's clock (spec: Limits / Cash-in). Uniqueness among
// live codes is the database's to enforce (ADR 0020); this is the format.

/** Code validity: 1 hour from issue or refresh. */
export const DEPOSIT_CODE_TTL_SECONDS = 3600;

export const DEPOSIT_CODE_FORMAT = /^[0-9]{3} [0-9]{3}$/;

/** How many codes there are: the application draws one uniformly from [0, DEPOSIT_CODE_SPACE). */
export const DEPOSIT_CODE_SPACE = 1_000_000;

/** The code of a number drawn in [0, 1,000,000): leading zeros kept, e.g. 4521 is "004 521". */
export function formatDepositCode(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= DEPOSIT_CODE_SPACE)
    throw new RangeError(`a deposit code is drawn from [0, ${DEPOSIT_CODE_SPACE})`);
  const digits = String(n).padStart(6, '0');
  return `${digits.slice(0, 3)} ${digits.slice(3)}`;
}

export function isDepositCode(value: unknown): value is string {
  return typeof value === 'string' && DEPOSIT_CODE_FORMAT.test(value);
}

/** When a code issued or refreshed at `at` lapses. */
export function codeExpiresAt(at: string): string {
  return new Date(Date.parse(at) + DEPOSIT_CODE_TTL_SECONDS * 1000).toISOString();
}
