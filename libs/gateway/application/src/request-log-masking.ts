// What a request log entry keeps of a body (docs/request-logs.md): the JSON as it went, with every field that can
// carry a secret or an account, card or tax number replaced whatever its depth (the same fields the process's logs
// and the audit log never show), and any run of 12 to 19 digits (a card or account number put where no field
// names it, in metadata or a label, say) cut to its last four. A body too long to keep whole is kept as
// a note of its size. JSON may carry what PostgreSQL's jsonb cannot store (a NUL character, half of a surrogate
// pair): those become U+FFFD, so that a hostile body is logged like any other.
import { SENSITIVE_FIELDS } from '@mm/platform/http';

/** The longest body an entry keeps, as JSON text. */
export const MAX_LOGGED_BODY_BYTES = 32 * 1024;

const REDACTED = new Set<string>(SENSITIVE_FIELDS);

/** 12 to 19 digits, spaces or dashes between them allowed, not inside a longer word (a TypeID's digits are). */
const LONG_NUMBER = /(?<![\p{L}\p{N}_])\p{Nd}(?:[ -]?\p{Nd}){11,18}(?![\p{L}\p{N}_])/gu;

/** A string with its long numbers cut to `••••` and their last four digits. */
export function maskLongNumbers(text: string): string {
  return text.length < 12 ? text : text.replace(LONG_NUMBER, (match) => `••••${match.replace(/\D/g, '').slice(-4)}`);
}

/** NUL, and a surrogate without its other half. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A string as jsonb can keep it, its long numbers cut. */
function kept(text: string): string {
  return maskLongNumbers(text.replace(UNSTORABLE, '\uFFFD'));
}

/**
 * How deep an entry follows a body. Deeper values are kept as a note: a hostile body of thousands of nested arrays
 * would otherwise overflow the walk's stack (and jsonb's), and no request the API takes nests a tenth as deep.
 */
export const MAX_LOGGED_DEPTH = 32;

const tooDeep = `(not kept: nested deeper than ${MAX_LOGGED_DEPTH} levels)`;

/** One walk of the body: sensitive fields redacted, long numbers cut, everything else as it was. */
function masked(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return kept(value);
  // A number sent as a JSON number is masked the same way (the API takes none this long).
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) >= 1e11) {
    const text = maskLongNumbers(String(Math.abs(value)));
    return text === String(Math.abs(value)) ? value : text;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_LOGGED_DEPTH) return tooDeep;
  if (Array.isArray(value)) return value.map((item) => masked(item, depth + 1));
  const fields: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value))
    fields[kept(key)] = REDACTED.has(key) ? '[redacted]' : masked(field, depth + 1);
  return fields;
}

const tooLong = (bytes: number) => `(not kept: ${bytes} bytes, over the ${MAX_LOGGED_BODY_BYTES} kept)`;

/** A parsed body as an entry keeps it (undefined: none, null); `bytes`, its size as sent, when known. */
export function loggedBody(body: unknown, bytes?: number): unknown {
  if (body === undefined || body === null) return null;
  if (bytes !== undefined && bytes > MAX_LOGGED_BODY_BYTES) return tooLong(bytes);
  const shown = masked(body);
  // Unknown, the size is that of the body as kept (at most MAX_LOGGED_DEPTH deep, so it always writes out).
  const size = bytes ?? Buffer.byteLength(JSON.stringify(shown));
  return size > MAX_LOGGED_BODY_BYTES ? tooLong(size) : shown;
}

/** A body's text as an entry keeps it: its JSON when it is JSON, else the text itself, masked and cut short. */
export function loggedText(text: string): unknown {
  if (text.length === 0) return null;
  if (text.length > MAX_LOGGED_BODY_BYTES) return tooLong(Buffer.byteLength(text));
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    const shown = kept(text.slice(0, 2048));
    return text.length > 2048 ? `${shown}… (${Buffer.byteLength(text)} bytes)` : shown;
  }
  return loggedBody(body, text.length);
}
