// What an on-call engineer watches of the chains (docs/chain.md, Metrics), in the service's /metrics:
//   mm_chain_head_block{reader,network}               the node's head as the reader last read it
//   mm_chain_confirmed_through_block{reader,network}  the last block whose transfers the reader has taken
//   mm_chain_reorganised{reader,network}              1 once a confirmed block's hash changed: the reader stopped there
//   mm_chain_unexplained_difference_usdc{network}     the last reconciliation's difference (zero when the books match)
//   mm_chain_reconciled_timestamp_seconds{network}    when that reconciliation ran, so a stale figure shows as stale
//   mm_chain_sweep_passes_total{network}              the sweeper's passes over the derived addresses, finished
//   mm_chain_sweep_last_pass_timestamp_seconds{network}  when the last of them finished: a stalled sweeper stops it
//   mm_chain_sweeps_total{network}, mm_chain_swept_usdc_total{network}  sweeps queued, and the USDC they move
// The readers' figures are read at each scrape from where they stand; the reconciliation's are what its last
// run found (it reads every derived address's balance: too much for a scrape, so it runs on its own schedule).
import { Counter, Gauge, type Registry } from 'prom-client';
import type { WatcherStatus } from './chain-watcher';

export class ChainMetrics {
  private readonly readers = new Map<
    string,
    { reader: string; network: string; status: () => Promise<WatcherStatus> }
  >();
  private readonly difference: Gauge<'network'>;
  private readonly reconciledAt: Gauge<'network'>;
  private readonly passes: Counter<'network'>;
  private readonly lastPass: Gauge<'network'>;
  private readonly sweeps: Counter<'network'>;
  private readonly swept: Counter<'network'>;

  constructor(registry: Registry) {
    const readers = this.readers;
    type Read = { labels: { reader: string; network: string }; status?: WatcherStatus };
    // The three gauges of one scrape read each reader once: a read is shared for a second.
    let last: { at: number; reads: Promise<Read[]> } | undefined;
    const read = () => {
      if (!last || Date.now() - last.at > 1000)
        last = {
          at: Date.now(),
          reads: Promise.all(
            [...readers.values()].map(async ({ reader, network, status }) => ({
              labels: { reader, network },
              // A reader whose database cannot be read now shows nothing rather than failing the whole scrape.
              status: await status().catch(() => undefined),
            })),
          ),
        };
      return last.reads;
    };
    const perReader = async (set: (labels: { reader: string; network: string }, status: WatcherStatus) => void) => {
      for (const { labels, status } of await read()) if (status) set(labels, status);
    };
    new Gauge({
      name: 'mm_chain_head_block',
      help: "The node's latest block as the chain reader last read it",
      labelNames: ['reader', 'network'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        await perReader((labels, s) => {
          if (s.head !== null) this.set(labels, Number(s.head));
        });
      },
    });
    new Gauge({
      name: 'mm_chain_confirmed_through_block',
      help: 'The last block whose transfers the chain reader has taken (credited, or started as deposits)',
      labelNames: ['reader', 'network'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        await perReader((labels, s) => {
          if (s.confirmedThrough !== null) this.set(labels, Number(s.confirmedThrough));
        });
      },
    });
    new Gauge({
      name: 'mm_chain_reorganised',
      help: '1 when a block the reader took as confirmed changed its hash: the reader stopped there for an operator',
      labelNames: ['reader', 'network'] as const,
      registers: [registry],
      async collect() {
        this.reset();
        await perReader((labels, s) => this.set(labels, s.reorganised ? 1 : 0));
      },
    });
    this.difference = new Gauge({
      name: 'mm_chain_unexplained_difference_usdc',
      help: "The last reconciliation's difference between what the chain holds and what the ledger explains, in USDC",
      labelNames: ['network'] as const,
      registers: [registry],
    });
    this.reconciledAt = new Gauge({
      name: 'mm_chain_reconciled_timestamp_seconds',
      help: 'When the last reconciliation of the network with its chain ran (Unix time)',
      labelNames: ['network'] as const,
      registers: [registry],
    });
    const labelNames = ['network'] as const;
    this.passes = new Counter({
      name: 'mm_chain_sweep_passes_total',
      help: "The sweeper's finished passes over the network's derived addresses",
      labelNames,
      registers: [registry],
    });
    this.lastPass = new Gauge({
      name: 'mm_chain_sweep_last_pass_timestamp_seconds',
      help: "When the sweeper's last pass over the network's derived addresses finished (Unix time)",
      labelNames,
      registers: [registry],
    });
    this.sweeps = new Counter({
      name: 'mm_chain_sweeps_total',
      help: 'Sweeps of a derived address into the treasury queued by this process',
      labelNames,
      registers: [registry],
    });
    this.swept = new Counter({
      name: 'mm_chain_swept_usdc_total',
      help: 'USDC the sweeps this process queued move into the treasury',
      labelNames,
      registers: [registry],
    });
  }

  /** A sweep of `amount` (decimal USDC) queued. */
  sweepQueued(network: string, amount: string): void {
    this.sweeps.inc({ network });
    this.swept.inc({ network }, Number(amount));
  }

  /** A pass of the sweeper finished, now. */
  sweepPassed(network: string, at: Date): void {
    this.passes.inc({ network });
    this.lastPass.set({ network }, at.getTime() / 1000);
  }

  /** A reader's watcher of a network, reported at each scrape. */
  watching(reader: string, network: string, status: () => Promise<WatcherStatus>): void {
    this.readers.set(`${reader}/${network}`, { reader, network, status });
  }

  /** What a reconciliation of the network found (a decimal string), and when. */
  reconciled(network: string, unexplainedDifference: string, at: Date): void {
    this.difference.set({ network }, Number(unexplainedDifference));
    this.reconciledAt.set({ network }, at.getTime() / 1000);
  }
}
