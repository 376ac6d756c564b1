// A parameterised statement written out with its parameters as SQL literals, so
// that several statements can travel in one simple-protocol query (UnitOfWork).
// Each value is prepared exactly as pg prepares a bound parameter (prepareValue)
// and quoted by pg's escapeLiteral, so PostgreSQL reads the same text either way
// and resolves its type from the context, as it does for an untyped parameter.
import { DatabaseError, escapeLiteral } from 'pg';
import { prepareValue } from 'pg/lib/utils';

/** SQLSTATE PostgreSQL answers for a 0x00 byte in a bound text parameter. */
const CHARACTER_NOT_IN_REPERTOIRE = '22021';

/** One parameter as a SQL literal (its type resolved from where it stands, as a bound parameter's is). */
export function literal(value: unknown): string {
  const prepared: unknown = prepareValue(value);
  if (prepared === null) return 'NULL';
  if (Buffer.isBuffer(prepared)) return `'\\x${prepared.toString('hex')}'`;
  const text = String(prepared);
  // A query string ends at its first NUL; as a bound parameter PostgreSQL refuses the byte.
  if (text.includes('\0')) {
    const error = new DatabaseError('invalid byte sequence for encoding "UTF8": 0x00', 0, 'error');
    error.code = CHARACTER_NOT_IN_REPERTOIRE;
    throw error;
  }
  return escapeLiteral(text);
}

/**
 * Replaces $1, $2, … outside quoted strings, quoted identifiers and comments. A statement that
 * names a parameter it was not given is a programming error, thrown at once.
 */
export function inlineParameters(sql: string, params: readonly unknown[]): string {
  const text = sql.trim().replace(/;+$/, '');
  if (params.length === 0) return text;
  const literals = new Map<number, string>();
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        const k = text.indexOf(c, j);
        if (k < 0) {
          j = text.length;
          break;
        }
        if (text[k + 1] === c) {
          j = k + 2;
          continue;
        }
        j = k + 1;
        break;
      }
      out += text.slice(i, j);
      i = j;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      const j = end < 0 ? text.length : end;
      out += text.slice(i, j);
      i = j;
    } else if (c === '$' && text[i + 1] >= '0' && text[i + 1] <= '9') {
      let j = i + 1;
      while (j < text.length && text[j] >= '0' && text[j] <= '9') j++;
      const n = Number(text.slice(i + 1, j));
      if (n < 1 || n > params.length) throw new Error(`statement refers to $${n} but has ${params.length} parameters`);
      let value = literals.get(n);
      if (value === undefined) {
        value = literal(params[n - 1]);
        literals.set(n, value);
      }
      out += value;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
