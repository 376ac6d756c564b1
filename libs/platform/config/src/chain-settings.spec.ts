import { readChainSettings } from './chain-settings';

const ADDRESS = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const KEY = `0x${'ab'.repeat(32)}`;

describe('chain settings (MM_CHAIN_<NETWORK>_*)', () => {
  it('leaves every network simulated without any', () => {
    expect(readChainSettings({}, true)).toEqual({
      chains: { ethereum: undefined, meridianchain: undefined },
      problems: [],
    });
  });

  it('puts a network on its chain with an RPC URL and a USDC address, twelve confirmations unless told', () => {
    const { chains, problems } = readChainSettings(
      { MM_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:8545', MM_CHAIN_ETHEREUM_USDC_ADDRESS: ADDRESS },
      true,
    );
    expect(problems).toEqual([]);
    expect(chains).toEqual({
      ethereum: { network: 'ethereum', rpcUrl: 'http://127.0.0.1:8545', usdcAddress: ADDRESS, confirmations: 12 },
      meridianchain: undefined,
    });
  });

  it('reads the confirmations and, in sandbox, the faucet key', () => {
    const { chains } = readChainSettings(
      {
        MM_CHAIN_MERIDIANCHAIN_RPC_URL: 'https://rpc.example.org/v1',
        MM_CHAIN_MERIDIANCHAIN_USDC_ADDRESS: ADDRESS,
        MM_CHAIN_MERIDIANCHAIN_CONFIRMATIONS: '3',
        MM_CHAIN_MERIDIANCHAIN_FAUCET_PRIVATE_KEY: KEY,
      },
      true,
    );
    expect(chains.meridianchain).toEqual({
      network: 'meridianchain',
      rpcUrl: 'https://rpc.example.org/v1',
      usdcAddress: ADDRESS,
      confirmations: 3,
      faucetPrivateKey: KEY,
    });
  });

  it.each([
    [{ MM_CHAIN_ETHEREUM_RPC_URL: 'http://node:8545' }, 'MM_CHAIN_ETHEREUM_USDC_ADDRESS: is required'],
    [
      { MM_CHAIN_ETHEREUM_USDC_ADDRESS: ADDRESS },
      'MM_CHAIN_ETHEREUM_USDC_ADDRESS: set without MM_CHAIN_ETHEREUM_RPC_URL',
    ],
    [
      { MM_CHAIN_ETHEREUM_RPC_URL: 'ftp://node', MM_CHAIN_ETHEREUM_USDC_ADDRESS: ADDRESS },
      'MM_CHAIN_ETHEREUM_RPC_URL: must be',
    ],
    [
      { MM_CHAIN_ETHEREUM_RPC_URL: 'http://node', MM_CHAIN_ETHEREUM_USDC_ADDRESS: '0x12' },
      'MM_CHAIN_ETHEREUM_USDC_ADDRESS: must be',
    ],
    [
      {
        MM_CHAIN_ETHEREUM_RPC_URL: 'http://node',
        MM_CHAIN_ETHEREUM_USDC_ADDRESS: ADDRESS,
        MM_CHAIN_ETHEREUM_CONFIRMATIONS: '0',
      },
      'MM_CHAIN_ETHEREUM_CONFIRMATIONS: must be',
    ],
    [
      {
        MM_CHAIN_ETHEREUM_RPC_URL: 'http://node',
        MM_CHAIN_ETHEREUM_USDC_ADDRESS: ADDRESS,
        MM_CHAIN_ETHEREUM_CONFIRMATIONS: '2.5',
      },
      'MM_CHAIN_ETHEREUM_CONFIRMATIONS: must be',
    ],
    [{ MM_CHAIN_ETHERIUM_RPC_URL: 'http://node' }, 'MM_CHAIN_ETHERIUM_RPC_URL: not a chain setting'],
  ])('refuses %j, naming the variable', (env, problem) => {
    const { chains, problems } = readChainSettings(env, true);
    expect(problems).toEqual([expect.stringContaining(problem)]);
    expect(chains.ethereum).toBeUndefined();
  });

  it('refuses a faucet in production, and never repeats a key it refuses', () => {
    const env = { MM_CHAIN_ETHEREUM_RPC_URL: 'http://node', MM_CHAIN_ETHEREUM_USDC_ADDRESS: ADDRESS };
    expect(readChainSettings({ ...env, MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: KEY }, false).problems).toEqual([
      expect.stringContaining('a sandbox setting; production has no faucet'),
    ]);
    const { problems } = readChainSettings({ ...env, MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: `${KEY}zz` }, true);
    expect(problems).toEqual([expect.stringContaining('MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: must be')]);
    expect(problems.join('')).not.toContain('abab');
  });
});
