// The checker, itself checked against a deliberately broken build: checker.spec.ts plants anomalies in the data
// it judges; here the platform's own code is broken (sabotage.ts, preloaded into one platform process as
// workload-check.ts starts it) and the workload runs against it with no nemesis, so that whatever the checker
// reports is the break's doing. Each break must be named by the kinds it causes; the same workload on the
// unbroken platform must show none, or those kinds would prove nothing.
import { check, quiesce } from './checker';
import type { Operation } from './history';
import { runWorkload, setUpWorkload } from './workload';
import { startPlatform } from './workload-check';

const SEED = 20260315;
const CLIENTS = 3;
/** The operations that make a transaction when they succeed: a quote accepted, and each inlet's deposit. */
const MAKES_TRANSACTION = new Set(['createTransaction', 'inboundTransfer', 'cryptoDeposit', 'cashDeposit']);
/** The workload runs at least this long, and on until it has made enough transactions for a verdict to mean something. */
const SECONDS = 12;
const TRANSACTIONS = 6;
/** ...but no longer than this: a platform that cannot make them in that time fails the count below. */
const MAX_SECONDS = 90;
/** A platform's start, the workload, quiescence and the reads, with room to spare on two busy cores. */
const TIMEOUT_MS = 6 * 60_000;

type Sabotage = 'skip-event' | 'pay-twice';

/** The workload through one platform, `sabotage` preloaded if any, quiesced and checked: the anomalies' kinds. */
async function anomalyKinds(sabotage?: Sabotage): Promise<string[]> {
  const name = sabotage ?? 'unbroken';
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);
  const platform = await startPlatform({
    name,
    nodeArgs: sabotage ? ['-r', './tools/chaos/sabotage.ts'] : [],
    // An embedded database of its own, as `npm start` has, and the PostgreSQL log transport rather than the run's
    // Kafka broker (this process's KAFKA_BROKERS), where its topics would outlive it.
    env: { MM_CHAOS_SABOTAGE: sabotage ?? '', DATABASE_URL: '', KAFKA_BROKERS: '' },
    log,
  });
  try {
    const setup = await setUpWorkload(platform.target, { seed: SEED, log });
    try {
      const started = Date.now();
      // Operations rather than wall-clock time, so that a loaded machine makes as many transactions as an idle one.
      const enough = (history: readonly Operation[]) =>
        Date.now() - started > SECONDS * 1000 &&
        history.filter((op) => MAKES_TRANSACTION.has(op.kind) && op.outcome === 'ok').length >= TRANSACTIONS;
      const history = await runWorkload(setup, {
        seed: SEED,
        clients: CLIENTS,
        until: (history) => enough(history) || Date.now() - started > MAX_SECONDS * 1000,
      });
      await quiesce(setup, { timeoutMs: 120_000 });
      const { anomalies, counts } = await check(setup, history, { arrivalOrderIsAnomaly: true });
      const kinds = [...new Set(anomalies.map((a) => a.kind))].sort();
      process.stdout.write(
        `checker.e2e-spec: ${name}: ${counts.operations} operations, ${counts.transactions} transactions, ` +
          `${counts.events} events; anomalies: ${kinds.map((k) => `${k} ${counts[`anomalies.${k}`]}`).join(', ') || 'none'}` +
          `\n  first: ${anomalies[0]?.message ?? '-'}\n  platform output in ${platform.logFile}\n`,
      );
      // Without transactions and events to break, an empty verdict would say nothing.
      expect(counts.transactions).toBeGreaterThanOrEqual(TRANSACTIONS);
      return kinds;
    } finally {
      await setup.close();
    }
  } catch (error) {
    process.stdout.write(`checker.e2e-spec: ${name}:\n${lines.join('\n')}\n`);
    throw error;
  } finally {
    await platform.stop();
  }
}

describe('the fault run checker against a broken build', () => {
  it(
    'reports no anomaly on the unbroken platform',
    async () => {
      expect(await anomalyKinds()).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    'reports a log reader that skips every 5th partner event',
    async () => {
      // The skipped events are missing from the Events API and the deliveries: a resource's latest listed event
      // no longer shows it as it reads, or a delivery names an event the API does not list.
      expect(await anomalyKinds('skip-event')).toEqual(
        expect.arrayContaining([expect.stringMatching(/^(read-model-mismatch|events-mismatch|webhook-missing)$/)]),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "reports a payout's pull from the wallet made twice",
    async () => {
      expect(await anomalyKinds('pay-twice')).toEqual(
        expect.arrayContaining([expect.stringMatching(/^(balance-mismatch|ledger-imbalance)$/)]),
      );
    },
    TIMEOUT_MS,
  );
});
