// Builds the dashboard (apps/dashboard, ADR 0038) when its build is missing or older than its sources:
// before `npm start` and `npm run start:distributed` (their pre-scripts) and before the browser tests, so a
// changed page is what they serve. Installs build it anyway (the workspace's prepare script). Without
// Vite (a production install), it says so and leaves the build as it is.
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const APP = join(ROOT, 'apps', 'dashboard');
const INDEX = join(APP, 'dist', 'index.html');

function newestSource(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

function stale() {
  if (!existsSync(INDEX)) return 'not built';
  const builtAt = statSync(INDEX).mtimeMs;
  const sources = ['src', 'index.html', 'vite.config.ts', 'package.json'].map((p) => join(APP, p)).filter(existsSync);
  return Math.max(...sources.map(newestSource)) > builtAt ? 'older than its sources' : undefined;
}

function buildIfStale({ quiet = false } = {}) {
  const why = stale();
  if (!why) return false;
  let vite;
  try {
    vite = join(require.resolve('vite/package.json', { paths: [APP, ROOT] }), '..', 'bin', 'vite.js');
  } catch {
    if (!quiet)
      process.stderr.write(
        `dashboard ${why}, and Vite is not installed here: npm install, then npm run dashboard:build\n`,
      );
    return false;
  }
  if (!quiet) process.stdout.write(`dashboard ${why}: building it (apps/dashboard)\n`);
  const built = spawnSync(process.execPath, [vite, 'build', '--logLevel', 'warn'], { cwd: APP, stdio: 'inherit' });
  if (built.status !== 0) throw new Error(`the dashboard's build failed (exit ${built.status ?? built.signal})`);
  return true;
}

module.exports = { buildIfStale };
if (require.main === module) buildIfStale();
