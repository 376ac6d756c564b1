// The networks of this deployment that run on a real chain (MM_CHAIN_<NETWORK>_*), each with its node client,
// and the custody signer that derives their addresses. A network without settings stays simulated; the signer
// (and a sandbox's generated seed) exists only once some network is on a chain.
import { Registry } from 'prom-client';
import { CHAIN_NETWORKS, PlatformConfig, type ChainNetwork } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { ChainClient } from './chain-client';
import { ChainFaucet } from './chain-faucet';
import { ChainMetrics } from './chain-metrics';
import { custodyMnemonic, HdCustody, type CustodySigner } from './custody';
import { CustodyRegistry } from './custody-registry';

/** Made by the application's core module, with the application's metrics registry. */
export class ChainNetworks {
  private readonly clients = new Map<ChainNetwork, ChainClient>();
  private signer?: CustodySigner;
  private readonly faucets = new Map<string, ChainFaucet>();

  /** Every derived address, by network. */
  readonly registry: CustodyRegistry;
  /** The chains' figures in the application's /metrics. */
  readonly metrics: ChainMetrics;

  constructor(
    private readonly config: PlatformConfig,
    uow: UnitOfWork,
    metrics: Registry = new Registry(),
  ) {
    this.registry = new CustodyRegistry(uow);
    this.metrics = new ChainMetrics(metrics);
    for (const network of CHAIN_NETWORKS) {
      const settings = config.chains[network];
      if (settings) this.clients.set(network, new ChainClient(settings));
    }
  }

  /** The networks on a chain, in the spec's order. */
  get onChain(): ChainNetwork[] {
    return [...this.clients.keys()];
  }

  /** The node clients of the networks on a chain. */
  get clientsOnChain(): ChainClient[] {
    return [...this.clients.values()];
  }

  /** The node client of a network on a chain; undefined for a simulated one (or a name that is no network). */
  client(network: string): ChainClient | undefined {
    return this.clients.get(network as ChainNetwork);
  }

  /** A sandbox network's faucet on its chain (MM_CHAIN_<NETWORK>_FAUCET_PRIVATE_KEY); undefined without one. */
  faucet(network: string): ChainFaucet | undefined {
    const client = this.client(network);
    const key = client?.settings.faucetPrivateKey;
    if (!client || !key) return undefined;
    let faucet = this.faucets.get(network);
    if (!faucet) this.faucets.set(network, (faucet = new ChainFaucet(client, key)));
    return faucet;
  }

  /** The signer; only asked for where a network is on a chain. */
  custody(): CustodySigner {
    if (this.clients.size === 0) throw new Error('no network is on a chain: nothing to sign for');
    this.signer ??= new HdCustody(custodyMnemonic(this.config));
    return this.signer;
  }
}
