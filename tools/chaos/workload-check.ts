// The workload and the checker of the fault run against a healthy platform, with no nemesis: a healthy
// platform must show no anomaly, so anything reported here is the workload's, the checker's or the
// platform's own fault, never a fault the nemesis caused. One platform process (as `npm start` runs it, on an
// embedded PostgreSQL in a temporary data directory, on a port of its own) is much cheaper than the cluster.
//
//   node -r ./tools/register.js tools/chaos/workload-check.ts
//
// CHAOS_SEED (1), CHAOS_CLIENTS (4) and CHAOS_SECONDS (30) shape the run. CHAOS_GATEWAY and CHAOS_ADMIN_TOKEN
// point it at a platform already running instead. Exits 1 when the checker reports an anomaly.
// startPlatform is exported for checker.e2e-spec.ts, which starts the platform with a sabotage preloaded.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { LIFELINE_VARIABLE } from '@mm/runtime/platform';
import { check, quiesce } from './checker';
import type { ChaosTarget } from './target';
import { runWorkload, setUpWorkload } from './workload';

const ROOT = resolve(__dirname, '..', '..');
const SEED = Number(process.env.CHAOS_SEED ?? 1);
const CLIENTS = Number(process.env.CHAOS_CLIENTS ?? 4);
const SECONDS = Number(process.env.CHAOS_SECONDS ?? 30);

const log = (line: string) => process.stdout.write(`${line}\n`);

export interface Platform {
  target: Pick<ChaosTarget, 'gateways' | 'adminToken'>;
  /** Where stop() leaves the platform's output. */
  logFile?: string;
  stop(): Promise<void>;
}

export interface PlatformOptions {
  /** Node options after the preloads `npm start` uses and before main.ts: more preloads (`-r file`). */
  nodeArgs?: string[];
  /** Variables over this process's own (an empty one counts as unset: loadConfig). */
  env?: Record<string, string>;
  /** Names its output file, mm-chaos-check-<name>.log in the temporary directory ('platform'). */
  name?: string;
  log?: (line: string) => void;
}

/**
 * Resolves once the platform prints its address; rejects with its output if it exits first or takes longer than
 * the e2e suite allows a start (a first start makes its PostgreSQL cluster: over a minute on two busy cores).
 */
function listening(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the platform printed no address in time:\n${output()}`)), 150_000);
    child.stdout!.on('data', () => {
      const url = /API\s+(http:\/\/\S+)\/v0\.13/.exec(output())?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the platform exited (${code ?? signal}) before listening:\n${output()}`));
    });
  });
}

/** apps/platform as `npm start` runs it, on a data directory of its own; stopped (and the directory removed) by stop(). */
export async function startPlatform(options: PlatformOptions = {}): Promise<Platform> {
  const { nodeArgs = [], env = {}, name = 'platform' } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'mm-chaos-check-'));
  const logFile = join(tmpdir(), `mm-chaos-check-${name}.log`);
  const adminToken = `chaos-check-${randomBytes(12).toString('hex')}`;
  const child = spawn(
    process.execPath,
    ['-r', './tools/register.js', '-r', './apps/platform/src/instrument.ts', ...nodeArgs, 'apps/platform/src/main.ts'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...env,
        MM_DATA_DIR: dataDir,
        PORT: '0',
        HOST: '127.0.0.1',
        MM_ADMIN_TOKEN: adminToken,
        MM_LOG_LEVEL: 'warn',
        // stdin is its lifeline (never written): should this script die, the platform stops too.
        [LIFELINE_VARIABLE]: 'true',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    writeFileSync(logFile, output);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const url = await listening(child, () => output);
    (options.log ?? log)(`workload-check: platform at ${url} (pid ${child.pid}, data ${dataDir})`);
    return { target: { gateways: [url], adminToken }, logFile, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

function runningPlatform(): Platform | undefined {
  const gateway = process.env.CHAOS_GATEWAY;
  if (!gateway) return undefined;
  const adminToken = process.env.CHAOS_ADMIN_TOKEN;
  if (!adminToken) throw new Error('CHAOS_GATEWAY needs CHAOS_ADMIN_TOKEN, the operator token of that platform');
  return { target: { gateways: [gateway], adminToken }, stop: async () => undefined };
}

async function main(): Promise<number> {
  const platform = runningPlatform() ?? (await startPlatform());
  try {
    const setup = await setUpWorkload(platform.target, { seed: SEED, log });
    try {
      const end = Date.now() + SECONDS * 1000;
      const history = await runWorkload(setup, { seed: SEED, clients: CLIENTS, until: () => Date.now() > end, log });
      await quiesce(setup, { log });
      // One process, no kills: nothing the docs name may reorder a resource's deliveries.
      const { anomalies, counts } = await check(setup, history, { arrivalOrderIsAnomaly: true });
      log(`workload-check: counts ${JSON.stringify(counts, null, 1)}`);
      for (const a of anomalies) log(`workload-check: ${a.kind}: ${a.message}`);
      const report = join(tmpdir(), `mm-chaos-check-${SEED}.json`);
      // The arrivals without their bodies (the Events API has those): when and in which order each came.
      const received = setup.receiver.deliveries.map(({ body: _, ...arrival }) => arrival);
      writeFileSync(report, JSON.stringify({ counts, anomalies, history, received }, null, 1));
      log(`workload-check: ${anomalies.length} anomalies (history, counts and anomalies in ${report})`);
      return anomalies.length === 0 ? 0 : 1;
    } finally {
      await setup.close();
    }
  } finally {
    await platform.stop();
  }
}

// Run as a script only: the spec imports startPlatform.
if (require.main === module)
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`workload-check: ${(error as Error).stack ?? error}\n`);
      process.exit(2);
    },
  );
