// Production on simulators is a choice somebody makes, by name (ARCHITECTURE: providers, real and simulated).
import { randomBytes } from 'node:crypto';
import { ConfigError, loadConfig } from './platform-config';

const PRODUCTION = {
  MM_ENVIRONMENT: 'production',
  MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
};
const CHAIN = {
  MM_CHAIN_ETHEREUM_RPC_URL: 'http://127.0.0.1:8545',
  MM_CHAIN_ETHEREUM_USDC_ADDRESS: `0x${'ab'.repeat(20)}`,
};
// The BIP-39 test vector's words (all "abandon" but the checksum word): a valid phrase nobody holds money with.
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('provider bindings', () => {
  it('refuses production on simulators, naming each, until MM_ALLOW_SIMULATED_PROVIDERS=true', () => {
    expect(() => loadConfig(PRODUCTION)).toThrow(ConfigError);
    expect(() => loadConfig(PRODUCTION)).toThrow(
      /production binds simulated providers: chain ethereum \(no MM_CHAIN_ETHEREUM_RPC_URL\); chain meridianchain .*bank rails.*card processor.*MM_ALLOW_SIMULATED_PROVIDERS=true/,
    );
    const allowed = loadConfig({ ...PRODUCTION, MM_ALLOW_SIMULATED_PROVIDERS: 'true' });
    expect(allowed.simulatedProviders).toContain('chain ethereum (no MM_CHAIN_ETHEREUM_RPC_URL)');
    expect(() => loadConfig({ ...PRODUCTION, MM_ALLOW_SIMULATED_PROVIDERS: 'yes' })).toThrow(
      /MM_ALLOW_SIMULATED_PROVIDERS/,
    );
  });

  it('counts a configured chain as real, and leaves the other network simulated', () => {
    const config = loadConfig({
      ...PRODUCTION,
      ...CHAIN,
      MM_CUSTODY_MNEMONIC: MNEMONIC,
      MM_ALLOW_SIMULATED_PROVIDERS: 'true',
    });
    expect(config.chains.ethereum).toEqual({
      network: 'ethereum',
      rpcUrl: 'http://127.0.0.1:8545',
      usdcAddress: CHAIN.MM_CHAIN_ETHEREUM_USDC_ADDRESS,
      confirmations: 12,
    });
    expect(config.chains.meridianchain).toBeUndefined();
    expect(config.simulatedProviders.some((p) => p.startsWith('chain ethereum'))).toBe(false);
    expect(config.simulatedProviders.some((p) => p.startsWith('chain meridianchain'))).toBe(true);
  });

  it('leaves a sandbox on simulators without asking', () => {
    const config = loadConfig({});
    expect(config.chains).toEqual({ ethereum: undefined, meridianchain: undefined });
    expect(config.simulatedProviders.length).toBeGreaterThan(0);
  });

  it('reports a bad chain variable with the others, never echoing its value', () => {
    const secret = `0x${'12'.repeat(31)}`;
    let message = '';
    try {
      loadConfig({ PORT: 'x', ...CHAIN, MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: secret });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: must be a private key/);
    expect(message).not.toContain(secret);
  });
});

describe('MM_CUSTODY_MNEMONIC', () => {
  it('is required in production with a chain configured', () => {
    expect(() => loadConfig({ ...PRODUCTION, ...CHAIN, MM_ALLOW_SIMULATED_PROVIDERS: 'true' })).toThrow(
      /MM_CUSTODY_MNEMONIC is required in production with a chain configured/,
    );
  });

  it('takes BIP-39 words however spaced or cased, and refuses a bad checksum without echoing the words', () => {
    expect(
      loadConfig({ MM_CUSTODY_MNEMONIC: `  ${MNEMONIC.toUpperCase().replace(/ /g, '   ')} ` }).MM_CUSTODY_MNEMONIC,
    ).toBe(MNEMONIC);
    const wrong = MNEMONIC.replace(/about$/, 'abandon');
    let message = '';
    try {
      loadConfig({ MM_CUSTODY_MNEMONIC: wrong });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/MM_CUSTODY_MNEMONIC must be 12 to 24 English BIP-39 words with a valid checksum/);
    expect(message).not.toContain('abandon');
  });
});
