// Which provider ports a deployment binds to a simulator (ARCHITECTURE: providers, real and simulated). The
// chain of a network with MM_CHAIN_<NETWORK>_* is real; every other rail is simulated here. Production refuses
// to start on simulators unless MM_ALLOW_SIMULATED_PROVIDERS=true, and then says so (banner, /readyz): a
// deployment that reports payouts settled that never left must be a choice somebody made.
import { CHAIN_NETWORKS, type ChainSettingsByNetwork } from './chain-settings';

/** The ports that have no real adapter in this repository: always simulated. */
const ALWAYS_SIMULATED = [
  'bank rails (ach, wire, swift, local transfers)',
  'card processor',
  'retail cash network',
  'identity verification',
  'payout screening',
  'usdc exchange rates',
] as const;

/** What each port is bound to, by the names operators read in the banner and /readyz. */
export function providersOnSimulators(chains: ChainSettingsByNetwork): string[] {
  const chainsSimulated = CHAIN_NETWORKS.filter((network) => !chains[network]).map(
    (network) => `chain ${network} (no MM_CHAIN_${network.toUpperCase()}_RPC_URL)`,
  );
  return [...chainsSimulated, ...ALWAYS_SIMULATED];
}
