// The documentation stands alone: a partner or an operator reads the README and
// docs/ without the source and without the documents the team works from, which
// they do not have. So those pages link only to files of this repository that are
// not source, and name no source file or directory, no module, no internal symbol
// and no outside document: a rule that matters is stated in the page, in its own
// words. The decision records (docs/adr) are engineering records of how the code
// is built, and may name modules and files; CONTRIBUTING.md and docs/architecture.md
// (the map from each section of the spec to its files) are for the people who change
// the source. None of them is covered.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const SKIPPED_DIRS = new Set(['node_modules', '.git', '.data', '.nx', 'dist', 'coverage']);
const SOURCE_DIRS = ['apps', 'libs', 'tools', 'test-e2e'];
const SOURCE_FILE = /\.(?:ts|js|mjs|cjs|c|h|sh)$/;

function walk(dir: string, keep: (path: string) => boolean, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) walk(path, keep, into);
    } else if (keep(path)) into.push(path);
  }
  return into;
}

/** The pages the rule covers: the README and every page under docs/, but the decision records. */
function coveredPages(): string[] {
  const docs = walk(join(ROOT, 'docs'), (p) => p.endsWith('.md')).filter((p) => {
    const page = relative(ROOT, p);
    return !page.startsWith(`docs${sep}adr${sep}`) && page !== join('docs', 'architecture.md');
  });
  return [join(ROOT, 'README.md'), ...docs].map((p) => relative(ROOT, p)).sort();
}

function isSource(repoPath: string): boolean {
  const [top] = repoPath.split(/[\\/]/);
  return SOURCE_DIRS.includes(top) || SOURCE_FILE.test(repoPath);
}

/** Names the source exports (classes, functions, constants, types): internal symbols a reader does not have. */
function exportedSymbols(): Set<string> {
  const names = new Set<string>();
  for (const file of walk(join(ROOT, 'libs'), (p) => p.endsWith('.ts')).concat(
    walk(join(ROOT, 'apps'), (p) => p.endsWith('.ts')),
  )) {
    for (const m of readFileSync(file, 'utf8').matchAll(
      /export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:const|let|function|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g,
    ))
      names.add(m[1]);
  }
  // Only names that read as code (camelCase, PascalCase of two words or more, SCREAMING_CASE): a symbol named
  // with one English word (`price`) says nothing about the source. And fields of the API that a source
  // symbol happens to share.
  for (const name of names) if (!/[a-z0-9][A-Z]|_/.test(name)) names.delete(name);
  for (const word of ['ibanLast4', 'billingAddress']) names.delete(word);
  // What the client package exports is what partners program against: its names are public (docs/sdk.md).
  for (const name of clientPackageNames()) names.delete(name);
  return names;
}

/** The names the client package exports from its entry point (and the types module it re-exports whole). */
function clientPackageNames(): Set<string> {
  const source = join(ROOT, 'packages', 'client', 'src');
  const index = readFileSync(join(source, 'index.ts'), 'utf8');
  const names = new Set<string>();
  for (const list of index.matchAll(/export\s+(?:type\s+)?\{([^}]+)\}/g)) {
    for (const item of list[1].split(','))
      names.add(
        item
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .pop()!,
      );
  }
  for (const star of index.matchAll(/export\s+(?:type\s+)?\*\s+from\s+'\.\/([\w-]+)'/g)) {
    for (const m of readFileSync(join(source, `${star[1]}.ts`), 'utf8').matchAll(
      /export\s+(?:type|interface)\s+([A-Za-z_$][\w$]*)/g,
    ))
      names.add(m[1]);
  }
  return names;
}

/** File names of the repository's source (a page that names one sends the reader into the code). */
function sourceFileNames(): Set<string> {
  const names = new Set<string>();
  for (const dir of SOURCE_DIRS)
    for (const file of walk(join(ROOT, dir), (p) => SOURCE_FILE.test(p))) names.add(file.split(sep).pop()!);
  return names;
}

/** Why each line of a page breaks the rule. */
function violations(page: string, text: string, symbols: Set<string>, sourceFiles: Set<string>): string[] {
  const found: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const at = `${page}:${i + 1}`;
    for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (target.startsWith('#')) continue;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        found.push(
          `${at}: links outside the repository (${target}): link to a page of the repository, or say it in words`,
        );
        continue;
      }
      const path = resolve(dirname(join(ROOT, page)), decodeURIComponent(target.split('#')[0]));
      const inRepo = relative(ROOT, path);
      if (inRepo.startsWith('..') || isAbsolute(inRepo)) found.push(`${at}: links outside the repository (${target})`);
      else if (!existsSync(path)) found.push(`${at}: links to ${target}, which does not exist`);
      else if (statSync(path).isFile() && isSource(inRepo)) found.push(`${at}: links into the source (${target})`);
      else if (statSync(path).isDirectory() && SOURCE_DIRS.includes(inRepo.split(sep)[0]))
        found.push(`${at}: links into the source (${target})`);
    }
    const checks: Array<[RegExp, string]> = [
      [/\.\.\/shared\b|\/work\//, 'points outside the repository'],
      [/@mm\//, 'names a module of the source'],
      [/\bAPI-CONTRACT\b|\bARCHITECTURE(?:\.md|:)|\bSTYLE(?:\.md|:)/, 'cites a document the reader does not have'],
      [/\bspec\b/i, 'cites the specification the reader does not have: state the rule itself'],
      [new RegExp(`(?<![\\w.-])(?:${SOURCE_DIRS.join('|')})/`), 'names a directory of the source'],
    ];
    for (const [pattern, why] of checks) {
      const m = pattern.exec(line);
      if (m) found.push(`${at}: ${why} ("${m[0]}")`);
    }
    for (const m of line.matchAll(/[\w.-]+\.(?:ts|js|mjs|cjs|c|h|sh)\b/g)) {
      if (sourceFiles.has(m[0])) found.push(`${at}: names a source file ("${m[0]}")`);
    }
    for (const word of new Set(line.split(/[^\w$]+/))) {
      if (symbols.has(word)) found.push(`${at}: names an internal symbol ("${word}"): say what it means instead`);
    }
  });
  return found;
}

describe('the README and docs/ stand alone', () => {
  const symbols = exportedSymbols();
  const sourceFiles = sourceFileNames();

  it('covers the README and every page of docs/ but the decision records', () => {
    const pages = coveredPages();
    expect(pages).toEqual(
      expect.arrayContaining(['README.md', 'docs/sandbox.md', 'docs/webhooks.md', 'docs/guides/README.md']),
    );
    expect(pages.filter((p) => p.startsWith('docs/adr/'))).toEqual([]);
  });

  it.each(coveredPages())(
    '%s links only to pages of the repository, and names no source, symbol or outside document',
    (page) => {
      expect(violations(page, readFileSync(join(ROOT, page), 'utf8'), symbols, sourceFiles)).toEqual([]);
    },
  );

  it('catches each kind of reference (the rule itself)', () => {
    const page = 'docs/example.md';
    const flagged = (line: string) => violations(page, line, symbols, sourceFiles);
    expect(flagged('See [the spec](../../shared/spec/money-movement-service.md).')).not.toEqual([]);
    expect(flagged('[errors](errors.md) and [the sandbox](sandbox.md#the-clock)')).toEqual([]);
    expect(flagged('[a guide](guides/README.md)')).toEqual([]);
    expect(flagged('[missing](nowhere.md)')).toEqual([expect.stringContaining('does not exist')]);
    expect(flagged('[the code](../libs/contracts/src/errors.ts)')).not.toEqual([]);
    expect(flagged('[elsewhere](https://example.com/docs)')).toEqual([
      expect.stringContaining('outside the repository'),
    ]);
    expect(flagged('names of the catalogue (`PARTNER_EVENT_CATALOGUE` in `libs/contracts`)')).toHaveLength(2);
    expect(flagged("import { constructWebhookEvent } from '@mm/contracts';")).toHaveLength(2);
    expect(flagged('(API-CONTRACT: Webhooks on the wire)')).toHaveLength(1);
    expect(flagged('screened (spec rule 9)')).toHaveLength(1);
    expect(flagged('see `tools/bench/webhooks.ts`')).not.toEqual([]);
    expect(flagged('`deploy.spec.ts` checks it')).not.toEqual([]);
    expect(flagged('save it as `receiver.cjs`, then `node receiver.cjs`')).toEqual([]);
    expect(flagged('`last4`, `ibanLast4` and `billingAddress` fields')).toEqual([]);
    // The client package's own names are its public interface.
    expect(flagged('catch the `ApiError`, or the `WebhookVerificationError` of `verifyWebhook`')).toEqual([]);
  });
});
