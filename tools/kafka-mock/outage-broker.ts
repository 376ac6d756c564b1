// A test broker that a test may take away (issue 42: a broker outage as the
// services log and measure it): the project's mock behind the stock-broker
// proxy, as the run's broker is, but of the test's own, in a process of its
// own that the test drives over stdin, so that taking it away disturbs no
// other test file.
//   node -r ./tools/register.js tools/kafka-mock/outage-broker.ts
// Prints the proxy's address (host:port) on its first line, or `unavailable:
// <why>` where the mock cannot be built. Then reads commands, one a line:
// `suspend` takes the broker away (no connection accepted, every one closed),
// `resume` brings it back on the same address; each is answered with its own
// word once done. It stops, with the mock, when its stdin closes (the test's
// process ending, however it ends).
import { createInterface } from 'node:readline';
import { startMockBroker } from '../jest/kafka-broker';
import { startStockBrokerProxy } from './stock-broker-proxy';

async function main(): Promise<void> {
  const failures: string[] = [];
  const mock = await startMockBroker((line) => failures.push(line));
  if (!mock) {
    process.stdout.write(`unavailable: ${failures.join('; ')}\n`);
    return;
  }
  const proxy = await startStockBrokerProxy({ upstream: mock.address });
  process.stdout.write(`${proxy.address}\n`);
  const commands = createInterface({ input: process.stdin });
  // One command at a time, in order.
  let queue = Promise.resolve();
  commands.on('line', (line) => {
    const command = line.trim();
    queue = queue.then(async () => {
      if (command === 'suspend') await proxy.suspend();
      else if (command === 'resume') await proxy.resume();
      else throw new Error(`unknown command ${command}: suspend or resume`);
      process.stdout.write(`${command}\n`);
    });
  });
  commands.on('close', () => {
    void queue
      .catch(() => undefined)
      .then(() => proxy.close())
      .then(() => mock.stop())
      .then(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`outage-broker: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
