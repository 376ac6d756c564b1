// docs/errors.md is generated from libs/contracts (the error catalogue), so
// the document, the OpenAPI document and the code cannot disagree.
// Regenerate with `npm run docs:errors`; a unit test fails when it is stale.
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
    'Every failure answers with the body `{error, code, msg, cause, status}` and the HTTP status of its row.',
    '`error` is the stable name to branch on, `code` its number, `msg` a fixed sentence for the code, and',
    '`cause` the reason for this request (which field, which id). Codes 1000, 10000, 10001, 10002, 10029 and',
    '10087 are numbered by the specification; the others are this project\'s own.',
    '',
    'Bearer-token failures also carry RFC 6750 fields: `error` is then the machine',
    'code (`invalid_token`, `invalid_request`, `temporarily_unavailable`), `error_description` the reason,',
    'and the response has a matching `WWW-Authenticate: Bearer error="…", error_description="…"` header;',
    '`code` is 1000 and `msg` is `unauthorized access`.',
    '',
    '| error | code | HTTP | msg | when |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    'The same table is in the OpenAPI document under `x-error-catalogue`.',
    '',
  ].join('\n');
}

if (require.main === module) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('node:fs').writeFileSync(require('node:path').join(__dirname, '..', '..', 'docs', 'errors.md'), renderErrorCatalogue());
}
