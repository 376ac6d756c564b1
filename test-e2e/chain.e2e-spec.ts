// USDC on a real EVM chain (issue 45; docs/chain.md): the platform runs with ethereum on a local hardhat node
// carrying the test token, in either run mode. A transfer to a custodial wallet's derived address credits the
// wallet once it has the configured confirmations, once however often its log is read, and never when a
// reorganisation removed its block before then.
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { Devnet } from '@mm/platform/testing';
import { eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const CONFIRMATIONS = 3;

describe('custodial wallets on a chain', () => {
  let devnet: Devnet;
  let platform: TestPlatform;
  let token: string;
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });

  beforeAll(async () => {
    devnet = await Devnet.start();
    platform = await TestPlatform.start({
      ...devnet.settings('ETHEREUM', CONFIRMATIONS),
      MM_CUSTODY_MNEMONIC: generateMnemonic(english),
      MM_CHAIN_POLL_INTERVAL_MS: '100',
    });
    token = await platform.token();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await platform?.stop();
    await devnet?.stop();
  });

  const chains = async () => (await platform.admin('GET', '/chains')).body.data;
  /** Resolves once the watcher has read the chain's head as it is now, and credited all that head confirms. */
  async function caughtUp(): Promise<number> {
    const head = Number(await devnet.head());
    return eventually(async () => {
      const [ethereum] = await chains();
      return ethereum.head >= head && ethereum.confirmedThrough >= head - CONFIRMATIONS + 1
        ? (ethereum.confirmedThrough as number)
        : undefined;
    });
  }
  async function newWallet(): Promise<{ id: string; address: string }> {
    const customer = await platform.endorsedCustomer(token, {}, ['cryptoCustody']);
    const res = await platform.request('POST', `/v0.13/customers/${customer.id}/wallets`, {
      token,
      body: { asset: 'usdc', network: 'ethereum' },
    });
    expect(res.status).toBe(201);
    return res.body;
  }
  const balance = async (walletId: string) => Number((await get(`/wallets/${walletId}/balance`)).body.data.balance);

  it('lists each network: ethereum on the node (its chain id, head, treasury), meridianchain simulated', async () => {
    const head = Number(await devnet.head());
    const [ethereum, meridianchain] = await chains();
    expect(ethereum).toEqual({
      network: 'ethereum',
      chainId: 31337,
      mode: 'chain',
      treasuryAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      head: expect.any(Number),
      confirmedThrough: expect.any(Number),
      confirmations: CONFIRMATIONS,
    });
    expect(ethereum.head).toBeGreaterThanOrEqual(head);
    expect(meridianchain).toEqual({
      network: 'meridianchain',
      chainId: null,
      mode: 'simulated',
      treasuryAddress: null,
      head: null,
      confirmedThrough: null,
      confirmations: null,
    });
  });

  it('gives each wallet on ethereum an address of its own from the custody seed', async () => {
    const [a, b] = [await newWallet(), await newWallet()];
    expect(a.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(a.address).not.toBe(b.address);
    const [ethereum] = await chains();
    expect([a.address, b.address]).not.toContain(ethereum.treasuryAddress);
  });

  it('credits a transfer to the wallet once it has the confirmations, and only once', async () => {
    const wallet = await newWallet();
    await devnet.mint(wallet.address, '12.345678');
    // One confirmation (its own block), then one more: still short of three.
    await devnet.mine(CONFIRMATIONS - 2);
    await caughtUp();
    expect(await balance(wallet.id)).toBe(0);
    await devnet.mine(1);
    const credited = await eventually(async () => {
      const now = await balance(wallet.id);
      return now === 0 ? undefined : now;
    });
    expect(credited).toBe(12.345678);
    await devnet.mine(CONFIRMATIONS + 2);
    await caughtUp();
    expect(await balance(wallet.id)).toBe(12.345678);
  });

  it('credits nothing of a block that a reorganisation removed before its confirmations', async () => {
    const wallet = await newWallet();
    await caughtUp();
    const snapshot = await devnet.snapshot();
    await devnet.mint(wallet.address, '5');
    await devnet.mine(CONFIRMATIONS - 2);
    await caughtUp();
    // A different history from the block before: the transfer's block is gone, and more blocks than the
    // confirmations follow it.
    await devnet.revert(snapshot);
    await devnet.mine(CONFIRMATIONS + 3);
    await caughtUp();
    expect(await balance(wallet.id)).toBe(0);
    expect(await devnet.balance(wallet.address)).toBe('0');
  });

  it('credits a log read again (its cursor moved back, as after a restore) once', async () => {
    const wallet = await newWallet();
    const before = await caughtUp();
    await devnet.mint(wallet.address, '7.5');
    await devnet.mine(CONFIRMATIONS);
    await eventually(async () => ((await balance(wallet.id)) === 7.5 ? true : undefined));
    expect(await caughtUp()).toBeGreaterThan(before);
    // Back to the block before the transfer, with that block's hash (which the watcher checks).
    const { hash } = await devnet.reader.getBlock({ blockNumber: BigInt(before) });
    await platform.db.query(
      `UPDATE platform.chain_cursors SET block_number = $1, block_hash = $2 WHERE reader = 'accounts.wallets'`,
      [before, hash],
    );
    await devnet.mine(1);
    await caughtUp();
    expect(await balance(wallet.id)).toBe(7.5);
  });
});
