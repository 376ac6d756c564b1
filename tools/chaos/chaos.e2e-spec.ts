// The fault run in the test suite (docs/reliability.md): a short `npm run chaos` (45 s of faults: seven of six kinds
// with the seed below, a database crash and the chain sender cut off from the node among them) of
// the distributed platform, two replicas of every service behind fault proxies, with a fixed seed, so that a
// failure replays with the command it prints. Distributed mode's project only (jest.config.js): it starts its own
// cluster, PostgreSQL and test broker, which it kills and restarts, as `npm run chaos` does when run by hand. Its
// broker is not the suite's: by the time the run starts, the suite's mock broker has seen half an hour of other
// tests' consumer groups come and go, and a verdict on the platform must not turn on a test broker's history
// (docs/reliability.md). The run is the command itself, in a process of its own tied to this one by its stdin.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { LIFELINE_VARIABLE } from '@mm/runtime/platform';
import { anomalyLines } from './run';

const ROOT = resolve(__dirname, '..', '..');
const SEED = process.env.MM_CHAOS_SEED ?? '20261276';
const SECONDS = process.env.MM_CHAOS_SECONDS ?? '45';
// The suite has a broker where the test broker can be built, and only there can the run build one of its own.
const brokers = process.env.KAFKA_BROKERS ?? '';

if (!brokers) process.stderr.write('chaos.e2e-spec: skipped: the run has no Kafka broker (KAFKA_BROKERS)\n');

/** `npm run chaos -- …` to its end: its exit code and output. */
function chaos(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/chaos/run.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, KAFKA_BROKERS: '', [LIFELINE_VARIABLE]: 'true' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk));
  child.stdin.on('error', () => undefined);
  return new Promise((done) => child.once('exit', (code) => done({ code, output })));
}

(brokers ? describe : describe.skip)('the fault run', () => {
  it(
    `finds no anomaly after ${SECONDS} s of faults (seed ${SEED})`,
    async () => {
      const { code, output } = await chaos(['--seconds', SECONDS, '--seed', SEED, '--clients', '4']);
      const verdict = /^chaos: (valid|invalid), (\d+) operations, (\d+) faults, (\d+) anomalies, seed (\d+)$/m.exec(
        output,
      );
      // On failure, the whole output (the faults, the anomalies with the first few in full), then what trails and
      // the first anomalies again, last: a report that cuts a long output keeps its ends.
      if (!(code === 0 && verdict))
        throw new Error(`${output}\n----- the run failed (exit ${code}); in short:\n${anomalyLines(output, 8)}`);
      // A verdict over some work: at least an operation a second (four clients make several a second on an idle
      // machine; while the container tests play their manifests beside this run, fewer).
      expect(Number(verdict![2])).toBeGreaterThanOrEqual(Number(SECONDS));
      expect(Number(verdict![3])).toBeGreaterThan(3);
      expect(verdict![5]).toBe(SEED);
      // Its network ran on the chain: the checker read the token's transfers from the node.
      expect(Number(/chain\.transfers (\d+)/.exec(output)?.[1] ?? 0)).toBeGreaterThan(0);
    },
    15 * 60_000,
  );
});
