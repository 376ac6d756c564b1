// One file-naming rule (CONTRIBUTING: File names): `kebab-case.ts` for a module of functions and types,
// `kebab-case.<kind>.ts` for a file whose role has a name, that name spelled one way across the repository,
// and always after the dot (`accounts.event-store.ts`, never `accounts-event-store.ts`), so a file's role is
// read from its name and found with one glob.
import { execFileSync } from 'node:child_process';
import { basename, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** The kinds, each spelled once. */
const KINDS = new Set([
  'cache',
  'commands',
  'config',
  'contract',
  'controller',
  'decider',
  'dto',
  'error',
  'event-store',
  'factory',
  'filter',
  'fixture',
  'guard',
  'handler',
  'interceptor',
  'listener',
  'mappers',
  'metrics',
  'migration',
  'module',
  'pipe',
  'port',
  'projection',
  'providers',
  'queries',
  'repository',
  'resolver',
  'server',
  'service',
  'step',
  'timers',
  'transport',
  'worker',
]);
/** Kinds that name a role only after the dot. */
const SUFFIX_ONLY = ['event-store', 'port', 'worker', 'repository', 'controller', 'module', 'decider', 'migration'];
const TESTS = /\.(spec|int-spec|e2e-spec|container-spec|browser-spec)$/;

function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', 'libs', 'apps'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => /\.tsx?$/.test(f) && !f.endsWith('.d.ts') && !f.includes('/generated/'));
}

/** A file's name without its extension and test suffix, split at its dots. */
function parts(file: string): string[] {
  return basename(file)
    .replace(/\.tsx?$/, '')
    .replace(TESTS, '')
    .split('.');
}

describe('file names', () => {
  const files = sourceFiles();

  it('finds the source', () => {
    expect(files.length).toBeGreaterThan(300);
  });

  it('are kebab-case, with at most one kind after the name', () => {
    const wrong = files.filter((f) => {
      const p = parts(f);
      return p.length > 2 || !p.every((s) => /^[a-z0-9]+(-[a-z0-9]+)*$/.test(s));
    });
    expect(wrong).toEqual([]);
  });

  it('spell each kind one way', () => {
    const unknown = files.filter((f) => {
      const p = parts(f);
      return p.length === 2 && !KINDS.has(p[1]) && f.split('/')[0] !== 'apps';
    });
    expect(unknown).toEqual([]);
  });

  it('put a role after the dot, not after a hyphen', () => {
    const hyphenated = files.filter((f) => {
      const [name] = parts(f);
      return SUFFIX_ONLY.some((kind) => name.endsWith(`-${kind}`));
    });
    expect(hyphenated).toEqual([]);
  });
});
