// The Node versions the project runs on (issue 18 item 8): package.json's
// `engines` and the README's statement are one range, and every package
// `npm ci` installs (the lockfile: dependencies of dependencies, dev and
// optional ones included) accepts every version in it, so `npm install` on a
// version the README admits shows no engine warning.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { intersects, subset, validRange } from 'semver';

const ROOT = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: Record<string, string> | string[] }>;
};
const declared = manifest.engines.node;

/** Each locked package's own Node range, where it states one. */
function lockedRanges(): Array<{ name: string; node: string }> {
  return Object.entries(lock.packages).flatMap(([path, entry]) => {
    // The root is this project; an `engines` array is the long-retired form npm no longer checks.
    if (path === '' || !entry.engines || Array.isArray(entry.engines) || entry.engines.node === undefined) return [];
    return [{ name: `${path.replace(/^.*node_modules\//, '')}@${entry.version ?? '?'}`, node: entry.engines.node }];
  });
}

describe('the Node versions the project runs on', () => {
  it('is a range package.json states', () => {
    expect(validRange(declared)).not.toBeNull();
  });

  it('is a range every installed package accepts, whole', () => {
    const ranges = lockedRanges();
    expect(ranges.length).toBeGreaterThan(100);
    const rejecting = ranges
      .filter(({ node }) => !subset(declared, node))
      .map(({ name, node }) => `${name} wants node ${node}`);
    expect(rejecting).toEqual([]);
  });

  it('is the range the README states', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const stated = [...readme.matchAll(/Node\.js `([^`]+)`/g)].map((m) => m[1]);
    expect(stated).toEqual([declared]);
  });

  it('takes in the Node the Docker image is built on, from either kind of base', () => {
    const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8');
    // The official Node image's line (its latest patch release), and the exact release installed on a plain Debian base.
    const line = /^ARG BASE_IMAGE=node:(\d+)-/m.exec(dockerfile)?.[1];
    const release = /^ARG NODE_VERSION=(\d+\.\d+\.\d+)$/m.exec(dockerfile)?.[1];
    expect([line, release]).toEqual([expect.any(String), expect.any(String)]);
    expect(intersects(`^${line}`, declared)).toBe(true);
    expect(intersects(release!, declared)).toBe(true);
  });
});
