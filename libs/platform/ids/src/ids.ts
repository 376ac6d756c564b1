// Public identifiers (spec: Resources and their fields / Identifiers): a
// lowercase prefix, an underscore, then a 26-character TypeID body or a UUID.
import { typeid } from 'typeid-js';

export const ID_PREFIXES = {
  project: 'prj',
  apiKey: 'key',
  customer: 'cst',
  wallet: 'wlt',
  quote: 'qt',
  transaction: 'txn',
  cashIn: 'ci',
  cashLocation: 'loc',
  depositAddress: 'da',
  virtualAccount: 'va',
  externalAccount: 'ext',
  counterparty: 'cpty',
  webhook: 'wh',
  webhookDelivery: 'whd',
  event: 'evt',
  posting: 'pst',
  signingKey: 'sig',
  auditEntry: 'aud',
  approval: 'apr',
  requestLog: 'rlog',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;
export type IdPrefix = (typeof ID_PREFIXES)[IdKind];

const TYPEID_BODY = '[0-9a-hjkmnp-tv-z]{26}';
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const PUBLIC_ID = new RegExp(`^([a-z]+)_(${TYPEID_BODY}|${UUID})$`);

/** A new, time-sortable public id for the given resource kind. */
export function newId(kind: IdKind): string {
  return typeid(ID_PREFIXES[kind]).toString();
}

/** True when `value` is a well-formed public id of exactly this kind. */
export function isId(kind: IdKind, value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const match = PUBLIC_ID.exec(value);
  if (!match) return false;
  // A TypeID body's first character encodes at most 3 bits (its first char is 0-7).
  if (match[2].length === 26 && match[2][0] > '7') return false;
  return match[1] === ID_PREFIXES[kind];
}

/** The regular expression of the spec, for OpenAPI documents. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_(${TYPEID_BODY}|${UUID})$`;
}
