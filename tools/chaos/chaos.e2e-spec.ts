// The fault run in the test suite (docs/reliability.md): a short `npm run chaos` (45 s of faults: seven of six kinds with the seed below, a database crash among them) of
// the distributed platform, two replicas of every service behind fault proxies, over the run's Kafka broker,
// with a fixed seed, so that a failure replays with the command it prints. Distributed mode's project only
// (jest.config.js): it starts its own cluster and PostgreSQL, which it kills and restarts. The run is the
// command itself, in a process of its own tied to this one by its stdin.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { LIFELINE_VARIABLE } from '@mm/runtime/platform';

const ROOT = resolve(__dirname, '..', '..');
const SEED = process.env.MM_CHAOS_SEED ?? '20261205';
const SECONDS = process.env.MM_CHAOS_SECONDS ?? '45';
const brokers = process.env.KAFKA_BROKERS ?? '';

if (!brokers) process.stderr.write('chaos.e2e-spec: skipped: the run has no Kafka broker (KAFKA_BROKERS)\n');

/** `npm run chaos -- …` to its end: its exit code and output. */
function chaos(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/chaos/run.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, KAFKA_BROKERS: brokers, [LIFELINE_VARIABLE]: 'true' },
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
      // The whole output on failure: the faults, the anomalies with the first few in full.
      expect({ code, verdict: verdict?.[1], output: code === 0 && verdict ? '' : output }).toEqual({
        code: 0,
        verdict: 'valid',
        output: '',
      });
      // A verdict over some work: at least an operation a second (four clients make several a second on an idle
      // machine; while the container tests play their manifests beside this run, fewer).
      expect(Number(verdict![2])).toBeGreaterThanOrEqual(Number(SECONDS));
      expect(Number(verdict![3])).toBeGreaterThan(3);
      expect(verdict![5]).toBe(SEED);
    },
    15 * 60_000,
  );
});
