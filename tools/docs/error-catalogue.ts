// docs/errors.md is generated from libs/contracts (the error catalogue), so
// the document, the OpenAPI document and the code cannot disagree.
// Regenerate with `npm run docs:errors`; a unit test fails when it is stale.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE } from '@mm/contracts';

export function renderErrorCatalogue(): string {
  const rows = Object.entries(ERROR_CATALOGUE)
    .sort(([, a], [, b]) => a.code - b.code)
    .map(([name, d]) => `| \`${name}\` | ${d.code} | ${d.status} | ${d.msg} | ${d.when} |`);
  return [
    '# Error catalogue',
    '',
    '<!-- generated from the error catalogue by npm run docs:errors; do not edit by hand -->',
    '',
    'Every failure answers with the body `{error, code, msg, cause, status, requestId}` and the HTTP status of its row.',
    '`error` is the stable name to branch on, `code` its number, `msg` a fixed sentence for the code, and',
    '`cause` the reason for this request (which field, which id). Codes 1000, 10000, 10001, 10002, 10029 and',
    "10087 are numbered by the specification; the others are this project's own.",
    '',
    ...specSpelledNames(),
    '`requestId` is the id of the request, the same as the `X-Request-Id` header that every response carries,',
    'successes included: quote it when you ask about a request, and the operator finds every log line it wrote.',
    'Send your own id in an `X-Request-Id` header and it is used when it is 1 to 128 characters, each a letter, a',
    'digit or one of `- . _ ~ : + = @ /`; otherwise (or without the header) the request gets a new id of the form',
    '`req_…`, and what was sent is not echoed.',
    '',
    'Bearer-token failures also carry RFC 6750 fields: `error` is then the machine',
    'code (`invalid_token`, `invalid_request`, `temporarily_unavailable`), `error_description` the reason,',
    'and the response has a matching `WWW-Authenticate: Bearer error="…", error_description="…"` header;',
    '`code` is 1000 and `msg` is `unauthorized access`.',
    '',
    '`POST /auth/token` refuses a key pair with `Unauthorized`, `cause` `signature` (as the specification has it) and',
    'an `error_description` that says what to fix: a key of the other environment, an invalid key or secret (one',
    'answer for both, so that nobody learns which keys exist), or, to a caller holding the right secret, a revoked key.',
    '',
    '| error | code | HTTP | msg | when |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    'The same table is in the OpenAPI document under `x-error-catalogue`.',
    '',
  ].join('\n');
}

/**
 * The names that are not PascalCase: each is spelled as the specification spells it (a partner's code may
 * already match on it), so the document says so rather than leave them looking like slips.
 */
function specSpelledNames(): string[] {
  const names = Object.keys(ERROR_CATALOGUE)
    .filter((name) => !/^[A-Z][A-Za-z0-9]*$/.test(name))
    .map((name) => `\`${name}\``);
  if (names.length === 0) return [];
  const words = [
    'Names are PascalCase, except these',
    String(names.length),
    'that keep the spelling the specification gives them (camelCase or snake_case):',
    `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}.`,
    'Compare `error` as a whole string, as it is written here.',
  ].join(' ');
  return [...wrap(words, 120), ''];
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

if (require.main === module) {
  writeFileSync(join(__dirname, '..', '..', 'docs', 'errors.md'), renderErrorCatalogue());
}
