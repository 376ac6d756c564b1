// The e2e projects' test environment: Node's, plus one duty. When a file's run has finished (after
// every hook of its own), whatever it started and did not stop is stopped: a platform whose start
// outlived its hook's timeout, a test that failed before its clean-up. Nothing runs on into the
// next file (test-e2e/support/distributed-processes.ts keeps the list).
const { TestEnvironment } = require('jest-environment-node');

// The Kafka names of the platforms a file started are deleted here, once it has stopped them: the file's modules
// are gone by then (the Kafka client loads more of its own as it works), so in this context, through SWC as the
// global setup loads TypeScript.
function removeKafkaNames(brokers, prefix) {
  require('../register');
  return require('../../libs/platform/testing/src/kafka-names.ts').removeKafkaNames(brokers, prefix);
}

const LIMIT_MS = 60_000;

class E2eEnvironment extends TestEnvironment {
  async handleTestEvent(event) {
    if (event.name !== 'run_finish' || typeof this.global.__mmStopLeftovers !== 'function') return;
    let timer;
    const limit = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), LIMIT_MS)));
    const cleanUp = async () => {
      for (const { prefix, brokers } of await this.global.__mmStopLeftovers()) {
        // What cannot be deleted is named by the run's global teardown too, which fails the run.
        await removeKafkaNames(brokers, prefix).catch((error) =>
          process.stderr.write(`e2e: ${error instanceof Error ? error.message : String(error)}\n`),
        );
      }
      return 'stopped';
    };
    const outcome = await Promise.race([cleanUp(), limit]);
    clearTimeout(timer);
    // Each tied process group is killed outright when this worker exits, so a hung stop only costs time.
    if (outcome === 'timeout')
      process.stderr.write(`e2e: what the file left running did not stop within ${LIMIT_MS / 1000} s\n`);
  }
}

module.exports = E2eEnvironment;
