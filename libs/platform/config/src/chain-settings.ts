// Which networks run on a real EVM chain, from MM_CHAIN_<NETWORK>_* (ADR 0064): a network with an RPC URL and
// a USDC address is on its chain; one with neither stays simulated, as a newcomer's `npm start` is. Every
// problem names its variable and never repeats the value (a faucet key is a secret).

/** The networks the spec names for `usdc`: Ethereum and the operator's own chain. */
export const CHAIN_NETWORKS = ['ethereum', 'meridianchain'] as const;
export type ChainNetwork = (typeof CHAIN_NETWORKS)[number];

export interface ChainSettings {
  network: ChainNetwork;
  /** The node's JSON-RPC endpoint, http(s). */
  rpcUrl: string;
  /** The USDC token contract on that chain. */
  usdcAddress: `0x${string}`;
  /** Blocks on top of a deposit's before it is credited (a block that changes before then is never credited). */
  confirmations: number;
  /** Sandbox only: the account the simulation routes pay test USDC from. */
  faucetPrivateKey?: `0x${string}`;
}

export type ChainSettingsByNetwork = Record<ChainNetwork, ChainSettings | undefined>;

/** Twelve blocks unless configured, on every network: the safe side until an operator says otherwise. */
export const DEFAULT_CONFIRMATIONS = 12;

const FIELDS = ['RPC_URL', 'USDC_ADDRESS', 'CONFIRMATIONS', 'FAUCET_PRIVATE_KEY'] as const;
const PREFIX = 'MM_CHAIN_';
/** Settings of every network's watcher, read with the rest of the configuration (PlatformConfig). */
const CHAIN_WIDE_SETTINGS = [
  'MM_CHAIN_POLL_INTERVAL_MS',
  'MM_CHAIN_REPLACE_AFTER_SECONDS',
  'MM_CHAIN_RECONCILE_INTERVAL_SECONDS',
  'MM_CHAIN_SWEEP_THRESHOLD',
];

/** Each network's settings, or the problems found (one line each, naming the variable). */
export function readChainSettings(
  env: Record<string, string | undefined>,
  sandbox: boolean,
): { chains: ChainSettingsByNetwork; problems: string[] } {
  const problems: string[] = [];
  const set = (name: string) => env[name] !== undefined && env[name] !== '';
  // A variable for a network that does not exist is a typo that would leave the network simulated unnoticed.
  for (const name of Object.keys(env).filter((key) => key.startsWith(PREFIX) && set(key))) {
    const known =
      CHAIN_WIDE_SETTINGS.includes(name) ||
      CHAIN_NETWORKS.some((network) => FIELDS.some((field) => name === `${PREFIX}${network.toUpperCase()}_${field}`));
    if (!known)
      problems.push(
        `${name}: not a chain setting (MM_CHAIN_<NETWORK>_{${FIELDS.join(',')}} with NETWORK one of ${CHAIN_NETWORKS.map((n) => n.toUpperCase()).join(', ')})`,
      );
  }
  const chains = {} as ChainSettingsByNetwork;
  for (const network of CHAIN_NETWORKS) {
    const name = (field: (typeof FIELDS)[number]) => `${PREFIX}${network.toUpperCase()}_${field}`;
    const value = (field: (typeof FIELDS)[number]) => (set(name(field)) ? env[name(field)]!.trim() : undefined);
    chains[network] = undefined;
    const rpcUrl = value('RPC_URL');
    const usdcAddress = value('USDC_ADDRESS');
    if (!rpcUrl) {
      const stray = FIELDS.filter((field) => field !== 'RPC_URL' && value(field) !== undefined);
      if (stray.length > 0)
        problems.push(
          `${stray.map(name).join(', ')}: set without ${name('RPC_URL')}; ${network} runs on a chain only with its RPC URL and USDC address`,
        );
      continue;
    }
    const before = problems.length;
    if (!isHttpUrl(rpcUrl)) problems.push(`${name('RPC_URL')}: must be an http:// or https:// URL of a JSON-RPC node`);
    if (!usdcAddress) problems.push(`${name('USDC_ADDRESS')}: is required with ${name('RPC_URL')}`);
    else if (!/^0x[0-9a-fA-F]{40}$/.test(usdcAddress))
      problems.push(`${name('USDC_ADDRESS')}: must be a contract address, 0x and 40 hexadecimal digits`);
    const confirmationsText = value('CONFIRMATIONS');
    const confirmations = confirmationsText === undefined ? DEFAULT_CONFIRMATIONS : Number(confirmationsText);
    if (
      !/^\d+$/.test(confirmationsText ?? '1') ||
      !Number.isInteger(confirmations) ||
      confirmations < 1 ||
      confirmations > 1000
    )
      problems.push(`${name('CONFIRMATIONS')}: must be a whole number of blocks from 1 to 1000`);
    const faucetPrivateKey = value('FAUCET_PRIVATE_KEY');
    if (faucetPrivateKey !== undefined && !sandbox)
      problems.push(`${name('FAUCET_PRIVATE_KEY')}: a sandbox setting; production has no faucet`);
    else if (faucetPrivateKey !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(faucetPrivateKey))
      problems.push(`${name('FAUCET_PRIVATE_KEY')}: must be a private key, 0x and 64 hexadecimal digits`);
    if (problems.length > before) continue;
    chains[network] = {
      network,
      rpcUrl,
      usdcAddress: usdcAddress as `0x${string}`,
      confirmations,
      ...(faucetPrivateKey ? { faucetPrivateKey: faucetPrivateKey as `0x${string}` } : {}),
    };
  }
  return { chains, problems };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
