// Issue 21, item 1: the client package is generated from the OpenAPI document
// the platform serves, and `npm test` fails when what is committed is stale
// against it. The generator's check builds the document as platform mode
// serves it and the types openapi-typescript makes of it, in a process of its
// own (openapi-typescript needs Node's own module loader), and compares both
// with the committed files. The served document, in both modes, is held to the
// same file by test-e2e/client-flows.e2e-spec.ts.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_LABEL } from '@meridian/money-movement';

const ROOT = join(__dirname, '..', '..');
const CLIENT_ROOT = join(ROOT, 'packages', 'client');
const committedDocument = () =>
  JSON.parse(readFileSync(join(CLIENT_ROOT, 'openapi.json'), 'utf8')) as { info: { version: string } };

describe('the generated client package', () => {
  it('is what `npm run client:generate` makes of the OpenAPI document the platform serves', () => {
    const check = spawnSync(
      process.execPath,
      ['-r', './tools/register.js', 'tools/client/generate-client.ts', '--check'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect({ status: check.status, stderr: check.stderr }).toEqual({ status: 0, stderr: '' });
    expect(check.stdout).toContain('up to date');
  }, 120_000);

  it('is labelled with the contract v26.09.30-0002 and versioned 107.1.0 in its own package.json', () => {
    expect(committedDocument().info.version).toBe('v26.09.30-0002');
    expect(CONTRACT_LABEL).toBe(committedDocument().info.version);
    const manifest = JSON.parse(readFileSync(join(CLIENT_ROOT, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
    };
    expect(manifest).toMatchObject({ name: '@meridian/money-movement', version: '107.1.0' });
  });
});
