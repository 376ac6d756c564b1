// USDC on a real EVM chain (issue 45; docs/chain.md): the platform runs with ethereum on a local hardhat node
// carrying the test token, in either run mode. A transfer to a custodial wallet's derived address credits the
// wallet once it has the configured confirmations, once however often its log is read, and never when a
// reorganisation removed its block before then.
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { viem, viemAccounts } from '@mm/platform/chain';
import { DEV_ACCOUNTS, Devnet } from '@mm/platform/testing';
import { newTenant } from './support/tenant';
import { eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const CONFIRMATIONS = 3;
const FAUCET = DEV_ACCOUNTS[2];

describe('custodial wallets on a chain', () => {
  let devnet: Devnet;
  let platform: TestPlatform;
  let token: string;
  const get = (path: string) => platform.request('GET', `/v0.13${path}`, { token });

  beforeAll(async () => {
    devnet = await Devnet.start();
    // The sandbox's faucet: a development account with test USDC of its own.
    await devnet.mint(FAUCET.address, '1000');
    // Distributed, the services the chain touches (wallets, deposit addresses, quotes and transactions): the
    // others would only share the machine's two cores.
    platform = await TestPlatform.start(
      {
        ...devnet.settings('ETHEREUM', CONFIRMATIONS),
        MM_CHAIN_ETHEREUM_FAUCET_PRIVATE_KEY: FAUCET.privateKey,
        MM_CUSTODY_MNEMONIC: generateMnemonic(english),
        MM_CHAIN_POLL_INTERVAL_MS: '100',
        // Every test but the stuck payout's mines each transaction as it is sent: only that one waits this long.
        MM_CHAIN_REPLACE_AFTER_SECONDS: '2',
      },
      undefined,
      { services: ['accounts', 'quoting', 'transactions', 'deposit-addresses'] },
    );
    token = await platform.token();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await platform?.stop();
    await devnet?.stop();
  });

  const chains = async () => (await platform.admin('GET', '/chains')).body.data;

  // After each test, at rest (its transfers confirmed and recorded), the ledger accounts for every token the chain
  // holds: the customers', the operator's, nothing in flight, no difference.
  afterEach(async () => {
    await devnet.mine(CONFIRMATIONS + 1);
    let last: Record<string, unknown> = {};
    const atRest = (body: Record<string, unknown>) =>
      body.unexplainedDifference === '0.000000' && body.inFlight === '0.000000';
    await eventually(async () => {
      const res = await platform.admin('GET', '/reconciliation?network=ethereum');
      last = { status: res.status, ...res.body };
      return res.status === 200 && atRest(res.body) ? true : undefined;
    }, 20_000).catch(() => undefined);
    expect(last).toMatchObject({
      status: 200,
      network: 'ethereum',
      unexplainedDifference: '0.000000',
      inFlight: '0.000000',
    });
  });
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

  it('reconciles the ledger with the chain for a network on a chain, and refuses a simulated or unknown one', async () => {
    const res = await platform.admin('GET', '/reconciliation?network=ethereum');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      network: 'ethereum',
      chainId: 31337,
      atBlock: expect.any(Number),
      confirmedThrough: expect.any(Number),
      ledgerOwed: expect.stringMatching(/^-?\d+\.\d{6}$/),
      operatorFloat: expect.stringMatching(/^-?\d+\.\d{6}$/),
      inFlight: expect.stringMatching(/^-?\d+\.\d{6}$/),
      chainHeld: expect.stringMatching(/^\d+\.\d{6}$/),
      unexplainedDifference: expect.stringMatching(/^-?\d+\.\d{6}$/),
    });
    for (const query of ['?network=meridianchain', '?network=bitcoin', '']) {
      const refused = await platform.admin('GET', `/reconciliation${query}`);
      expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 400, error: 'InvalidRequest' });
    }
  });

  /** A sample of a Prometheus page: the value of the series with exactly these labels. */
  function sample(page: string, name: string, labels: Record<string, string>): number | undefined {
    const text = Object.entries(labels)
      .map(([k, v]) => `${k}="${v}"`)
      .join(',');
    const line = page.split('\n').find((l) => l.startsWith(`${name}{${text}} `));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  }

  it("shows each reader's place on the chain and the reconciliation's difference on /metrics", async () => {
    const confirmed = await caughtUp();
    const reconciled = await platform.admin('GET', '/reconciliation?network=ethereum');
    expect(reconciled.status).toBe(200);
    const accounts = await platform.metrics('accounts');
    const wallets = { reader: 'accounts.wallets', network: 'ethereum' };
    expect(sample(accounts, 'mm_chain_confirmed_through_block', wallets)).toBeGreaterThanOrEqual(confirmed);
    expect(sample(accounts, 'mm_chain_head_block', wallets)).toBeGreaterThanOrEqual(confirmed + CONFIRMATIONS - 1);
    expect(sample(accounts, 'mm_chain_reorganised', wallets)).toBe(0);
    expect(sample(accounts, 'mm_chain_unexplained_difference_usdc', { network: 'ethereum' })).toBe(
      Number(reconciled.body.unexplainedDifference),
    );
    const at = sample(accounts, 'mm_chain_reconciled_timestamp_seconds', { network: 'ethereum' })!;
    expect(Math.abs(at - Date.now() / 1000)).toBeLessThan(60);
    // The deposit addresses' reader, in its own service.
    const deposits = await platform.metrics('deposit-addresses');
    const reader = { reader: 'deposit-addresses', network: 'ethereum' };
    expect(sample(deposits, 'mm_chain_reorganised', reader)).toBe(0);
    expect(sample(deposits, 'mm_chain_confirmed_through_block', reader)).toEqual(expect.any(Number));
    // A simulated network has no series.
    expect(accounts).not.toContain('network="meridianchain"');
  });

  it('reports money that left custody behind the ledger as an unexplained difference, in the API and the metric', async () => {
    const wallet = await newWallet();
    await devnet.transfer(FAUCET, wallet.address, '4');
    await devnet.mine(CONFIRMATIONS);
    await eventually(async () => ((await balance(wallet.id)) === 4 ? true : undefined));
    const snapshot = await devnet.snapshot();
    // The wallet's tokens leave its address with no payout: the chain holds 4 less than the books explain.
    await devnet.transferAs(wallet.address, '0x000000000000000000000000000000000000dEaD', '4');
    const res = await platform.admin('GET', '/reconciliation?network=ethereum');
    expect(res.body).toMatchObject({ unexplainedDifference: '-4.000000', inFlight: '0.000000' });
    expect(
      sample(await platform.metrics('accounts'), 'mm_chain_unexplained_difference_usdc', { network: 'ethereum' }),
    ).toBe(-4);
    // That history undone (never confirmed), the books match again.
    await devnet.revert(snapshot);
    await devnet.mine(CONFIRMATIONS + 1);
    await caughtUp();
    expect((await platform.admin('GET', '/reconciliation?network=ethereum')).body.unexplainedDifference).toBe(
      '0.000000',
    );
    expect(
      sample(await platform.metrics('accounts'), 'mm_chain_unexplained_difference_usdc', { network: 'ethereum' }),
    ).toBe(0);
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

  /**
   * A tenant of its own with an endorsed customer, a bank account and an active deposit address on ethereum paying
   * out to it over ACH; with registeredSender, that address is the customer's own registered wallet (the deposit
   * is attributed at once: spec, Deposit address).
   */
  async function activeDepositAddress(name: string, options: { registeredSender?: string } = {}) {
    const base = await newTenant(platform, { name, settings: { features: { depositAddresses: true } } });
    const customer = await base.customer();
    const destination = await base.bankUs(customer.id);
    if (options.registeredSender) await base.externalWallet(customer.id, options.registeredSender, 'ethereum');
    const created = await base.post('/deposit-addresses', {
      customerId: customer.id,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'ethereum',
      destination: { externalAccountId: destination.id },
      payout: { rail: 'ach' },
    });
    expect(created.status).toBe(201);
    const address = await eventually(async () => {
      await base.advance(5);
      const got = (await base.get(`/deposit-addresses/${created.body.id}`)).body;
      return got.status === 'active' ? got : undefined;
    }, 30_000);
    return { base, customer, address };
  }

  describe('deposit addresses on ethereum', () => {
    const SENDER = DEV_ACCOUNTS[1];

    it('receives a confirmed transfer from a registered sender as one deposit, paid out once, with its hash', async () => {
      const { base, customer, address } = await activeDepositAddress('chain-deposits', {
        registeredSender: SENDER.address,
      });
      const at = address.depositInstructions.address as string;
      expect(at).toMatch(/^0x[0-9a-fA-F]{40}$/);
      // Derived and kept: asked again, the same address.
      expect((await base.get(`/deposit-addresses/${address.id}`)).body.depositInstructions.address).toBe(at);

      await devnet.mint(SENDER.address, '25');
      const hash = await devnet.transfer(SENDER, at, '25.00');
      const transactions = async () =>
        (await base.get(`/transactions?customerId=${customer.id}`)).body.data as Array<Record<string, any>>;
      await devnet.mine(CONFIRMATIONS - 2);
      await caughtUp();
      expect(await transactions()).toEqual([]);
      await devnet.mine(1);
      const [made] = await eventually(async () => {
        const list = await transactions();
        return list.length > 0 ? list : undefined;
      }, 30_000);
      const deposit = made.legs.find((l: { kind: string }) => l.kind === 'deposit');
      expect(deposit).toMatchObject({
        rail: 'crypto',
        network: 'ethereum',
        amount: '25',
        txHash: hash,
        status: 'settled',
      });
      // Paid out once, on the project's clock (the ACH leg settles a minute later in the sandbox).
      const done = await eventually(async () => {
        await base.advance(61);
        const txn = (await base.get(`/transactions/${made.id}`)).body;
        return txn.status === 'completed' ? txn : undefined;
      }, 30_000);
      expect(done.legs.filter((l: { kind: string }) => l.kind === 'payout')).toHaveLength(1);
      // Read again (the cursor back before the transfer): still one transaction.
      const { hash: before } = await devnet.reader.getBlock({ blockNumber: (await devnet.head()) - 5n });
      await platform.db.query(
        `UPDATE platform.chain_cursors SET block_number = $1, block_hash = $2 WHERE reader = 'deposit-addresses'`,
        [Number(await devnet.head()) - 5, before],
      );
      await devnet.mine(1);
      await eventually(async () => {
        const [cursor] = await platform.db.query<{ block_number: string }>(
          `SELECT block_number FROM platform.chain_cursors WHERE reader = 'deposit-addresses'`,
        );
        return Number(cursor.block_number) >= Number(await devnet.head()) - CONFIRMATIONS + 1 ? true : undefined;
      });
      expect(await transactions()).toHaveLength(1);
    });
  });

  describe('returns on ethereum', () => {
    it('returns a deposit to a frozen address to its sender with a real transfer from the treasury', async () => {
      const { base, customer, address } = await activeDepositAddress('chain-returns');
      expect((await base.post(`/deposit-addresses/${address.id}/simulate/freeze`, {})).status).toBe(200);
      const [ethereum] = await chains();
      await devnet.fundGas(ethereum.treasuryAddress);
      await devnet.mint(ethereum.treasuryAddress, '100');
      const sender = DEV_ACCOUNTS[1];
      await devnet.mint(sender.address, '6');
      const before = Number(await devnet.balance(sender.address));
      await devnet.transfer(sender, address.depositInstructions.address, '6');
      const done = await eventually(async () => {
        await devnet.mine(1);
        const [txn] = (await base.get(`/transactions?customerId=${customer.id}`)).body.data;
        return txn?.status === 'failed' &&
          txn.legs.some((l: { kind: string; status: string }) => l.kind === 'refund' && l.status === 'settled')
          ? txn
          : undefined;
      }, 30_000);
      const refund = done.legs.find((l: { kind: string }) => l.kind === 'refund');
      const receipt = await devnet.reader.getTransactionReceipt({ hash: refund.txHash });
      expect(receipt).toMatchObject({ status: 'success', from: ethereum.treasuryAddress.toLowerCase() });
      // The sender has its six back: what it held before the transfer.
      expect(Number(await devnet.balance(sender.address))).toBe(before);
    });
  });

  describe('payouts to external wallets on ethereum', () => {
    /** A wallet holding 50 USDC credited from chain, the treasury's float, and a quote of a payout to a new address. */
    async function payoutQuote(name: string) {
      const base = await newTenant(platform, { name });
      const customer = await base.customer();
      const wallet = await base.wallet(customer.id, { network: 'ethereum' });
      // The wallet's USDC arrives on chain; the treasury's own float (and gas) pays payouts.
      await devnet.mint(wallet.address, '50');
      await devnet.mine(CONFIRMATIONS);
      await eventually(async () => ((await base.balance(wallet.id)) === '50.00' ? true : undefined));
      const [ethereum] = await chains();
      await devnet.fundGas(ethereum.treasuryAddress);
      await devnet.mint(ethereum.treasuryAddress, '100');
      const recipient = viemAccounts.privateKeyToAccount(viemAccounts.generatePrivateKey()).address;
      const external = await base.externalWallet(customer.id, recipient, 'ethereum');
      const quote = await base.post('/quotes', {
        customerId: customer.id,
        source: { type: 'walletCrypto', details: { id: wallet.id }, amount: '10.123456' },
        destination: { type: 'walletExternal', details: { id: external.id } },
      });
      expect(quote.status).toBe(201);
      return { base, customer, wallet, ethereum, recipient, quote: quote.body };
    }

    it('lands one transfer from the treasury with the hash the API reports and the exact amount', async () => {
      const { base, wallet, ethereum, recipient, quote } = await payoutQuote('chain-payouts');
      const created = await base.post('/transactions', { quoteId: quote.id });
      expect(created.status).toBe(201);
      // Each block mined confirms the transfer a little more; the leg settles at the network's confirmations.
      const done = await eventually(async () => {
        await devnet.mine(1);
        const txn = (await base.get(`/transactions/${created.body.id}`)).body;
        return txn.status === 'completed' ? txn : undefined;
      }, 30_000);
      const [payout] = done.legs.filter((l: { kind: string }) => l.kind === 'payout');
      expect(payout).toMatchObject({ rail: 'crypto', network: 'ethereum', status: 'settled' });
      const receipt = await devnet.reader.getTransactionReceipt({ hash: payout.txHash });
      expect(receipt).toMatchObject({ status: 'success', from: ethereum.treasuryAddress.toLowerCase() });
      expect(await devnet.balance(recipient)).toBe(String(Number(quote.pricing.destination.amountNet)));
      expect(await base.balance(wallet.id)).toBe(String(50 - 10.123456));
    });

    it('gives twenty payouts accepted at once twenty consecutive nonces, each landing once to the unit', async () => {
      const { base, customer, wallet } = await payoutQuote('chain-concurrent-payouts');
      const [customerId, walletId] = [customer.id, wallet.id];
      const recipients = Array.from(
        { length: 20 },
        () => viemAccounts.privateKeyToAccount(viemAccounts.generatePrivateKey()).address,
      );
      const quotes = await Promise.all(
        recipients.map(async (recipient, i) => {
          const external = await base.externalWallet(customerId, recipient, 'ethereum');
          const quote = await base.post('/quotes', {
            customerId,
            source: { type: 'walletCrypto', details: { id: walletId }, amount: `1.00000${i % 10}` },
            destination: { type: 'walletExternal', details: { id: external.id } },
          });
          expect(quote.status).toBe(201);
          return quote.body;
        }),
      );
      const created = await Promise.all(quotes.map((q) => base.post('/transactions', { quoteId: q.id })));
      expect(created.map((c) => c.status)).toEqual(Array(20).fill(201));
      const done = await eventually(async () => {
        await devnet.mine(1);
        const all = await Promise.all(created.map((c) => base.get(`/transactions/${c.body.id}`)));
        return all.every((t) => t.body.status === 'completed') ? all.map((t) => t.body) : undefined;
      }, 60_000);
      const payouts = done.map((t) => t.legs.find((l: { kind: string }) => l.kind === 'payout'));
      // The treasury's nonces, as the chain holds the transfers that landed: twenty in a row, none shared.
      const nonces = await Promise.all(
        payouts.map(async (leg) => (await devnet.reader.getTransaction({ hash: leg.txHash })).nonce),
      );
      const sorted = [...nonces].sort((a, b) => a - b);
      expect(sorted).toEqual(Array.from({ length: 20 }, (_, i) => sorted[0] + i));
      for (const [i, recipient] of recipients.entries())
        expect(await devnet.balance(recipient)).toBe(String(Number(quotes[i].pricing.destination.amountNet)));
    });

    it('shows a payout not mined in time as unconfirmed, replaces it on its nonce, refuses to fail it, and lands one transfer', async () => {
      const { base, recipient, quote } = await payoutQuote('chain-stuck-payout');
      const transaction = (id: string) => base.get(`/transactions/${id}`).then((res) => res.body);
      // Nothing is mined until the test says so: the transfer waits in the node's pool past its time.
      await devnet.automine(false);
      let created: { id: string };
      try {
        created = (await base.post('/transactions', { quoteId: quote.id })).body;
        await eventually(async () => {
          const txn = await transaction(created.id);
          return txn.subStatus === 'processing.payoutUnconfirmed' ? txn : undefined;
        }, 30_000);
        // The sweep looks it up on chain: under way, so nothing is concluded; it asks again later (its timer set
        // anew, past the advanced clock).
        const payoutLeg = (await transaction(created.id)).legs.find((l: { kind: string }) => l.kind === 'payout');
        const now = await base.advance(3600);
        await eventually(async () => {
          const [timer] = await platform.running.dataSource.query(
            `SELECT due_at FROM platform.timers WHERE kind = 'transaction.unconfirmedSweep' AND key = $1 AND fired_at IS NULL`,
            [payoutLeg.id],
          );
          return timer && new Date(timer.due_at) > now ? true : undefined;
        });
        const mid = await transaction(created.id);
        expect(mid).toMatchObject({ status: 'processing', subStatus: 'processing.payoutUnconfirmed' });
        // An operator cannot fail it while it may land: a refund then would pay twice.
        const refused = await platform.admin('POST', `/transactions/${created.id}/mark-failed`, {
          body: { reason: 'stuck' },
        });
        expect({ status: refused.status, error: refused.body.error }).toEqual({
          status: 503,
          error: 'unconfirmedPayoutUnverifiable',
        });
        expect(refused.body.cause).toContain('may still land');
      } finally {
        await devnet.automine(true);
      }
      const done = await eventually(async () => {
        await devnet.mine(1);
        const txn = await transaction(created!.id);
        return txn.status === 'completed' ? txn : undefined;
      }, 30_000);
      const [payout] = done.legs.filter((l: { kind: string }) => l.kind === 'payout');
      // One transfer landed, of the exact amount, under the hash the API reports; the others were replaced.
      const rows = await platform.running.dataSource.query(
        `SELECT attempts FROM platform.chain_payouts WHERE id = $1`,
        [payout.id],
      );
      const hashes = (rows[0]?.attempts ?? []).map((a: { hash: string }) => a.hash);
      expect(hashes.length).toBeGreaterThanOrEqual(2);
      expect(hashes).toContain(payout.txHash);
      expect(await devnet.balance(recipient)).toBe(String(Number(quote.pricing.destination.amountNet)));
      const landed = await Promise.all(
        hashes.map((hash: `0x${string}`) => devnet.reader.getTransactionReceipt({ hash }).catch(() => undefined)),
      );
      expect(landed.filter(Boolean)).toHaveLength(1);
    });
  });

  describe('transfers between custodial wallets on ethereum', () => {
    it('move in the ledger alone: settled with no transaction hash, nothing sent on chain', async () => {
      const base = await newTenant(platform, { name: 'chain-internal' });
      const [ada, grace] = [await base.customer(), await base.customer({ lastName: 'Hopper' })];
      const from = await base.wallet(ada.id, { network: 'ethereum' });
      const to = await base.wallet(grace.id, { network: 'ethereum' });
      await devnet.mint(from.address, '9');
      await devnet.mine(CONFIRMATIONS);
      await eventually(async () => ((await base.balance(from.id)) === '9.00' ? true : undefined));
      const quote = await base.post('/quotes', {
        customerId: ada.id,
        source: { type: 'walletOms', details: { id: from.id }, amount: '4' },
        destination: { type: 'walletOms', details: { id: to.id } },
      });
      expect(quote.status).toBe(201);
      const created = await base.post('/transactions', { quoteId: quote.body.id });
      const done = await eventually(async () => {
        await base.advance(5);
        const txn = (await base.get(`/transactions/${created.body.id}`)).body;
        return txn.status === 'completed' ? txn : undefined;
      }, 30_000);
      expect(done.legs).toEqual([expect.objectContaining({ rail: 'crypto', status: 'settled', txHash: null })]);
      await eventually(async () => ((await base.balance(to.id)) === '4.00' ? true : undefined));
      // The chain still has the nine at the first wallet's address: custody holds it, the ledger says whose it is.
      expect(await devnet.balance(from.address)).toBe('9');
      expect(await devnet.balance(to.address)).toBe('0');
    });
  });

  describe('sweeps on ethereum', () => {
    it("sweeps a wallet's address holding the threshold into the treasury; the wallet's balance stays", async () => {
      const wallet = await newWallet();
      const [ethereum] = await chains();
      // The treasury pays the gas the address needs to send its tokens.
      await devnet.fundGas(ethereum.treasuryAddress);
      const units = async (address: string) => viem.parseUnits(await devnet.balance(address), 6);
      const before = await units(ethereum.treasuryAddress);
      // 100 USDC is the sweep threshold unless configured (MM_CHAIN_SWEEP_THRESHOLD).
      await devnet.mint(wallet.address, '120.5');
      await devnet.mine(CONFIRMATIONS);
      await eventually(async () => ((await balance(wallet.id)) === 120.5 ? true : undefined));
      // Gas to the address, then its tokens to the treasury: each confirmed as blocks come.
      await eventually(async () => {
        await devnet.mine(1);
        return (await devnet.balance(wallet.address)) === '0' ? true : undefined;
      }, 30_000);
      expect((await units(ethereum.treasuryAddress)) - before).toBe(viem.parseUnits('120.5', 6));
      expect(await balance(wallet.id)).toBe(120.5);
    });
  });

  describe('the sandbox on a chain', () => {
    it("funds a wallet with the faucet's real transfer, credited once confirmed", async () => {
      const wallet = await newWallet();
      const funded = await platform.request('POST', `/v0.13/sandbox/wallets/${wallet.id}/fund`, {
        token,
        body: { amount: '15.5' },
      });
      expect(funded.status).toBe(200);
      expect(funded.body).toEqual({
        data: expect.objectContaining({ walletId: wallet.id, network: 'ethereum' }),
        transfer: {
          network: 'ethereum',
          txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
          confirmations: CONFIRMATIONS,
        },
      });
      const receipt = await devnet.reader.waitForTransactionReceipt({ hash: funded.body.transfer.txHash });
      expect(receipt.from).toBe(FAUCET.address.toLowerCase());
      await devnet.mine(CONFIRMATIONS);
      await eventually(async () => ((await balance(wallet.id)) === 15.5 ? true : undefined));
      expect(await devnet.balance(wallet.address)).toBe('15.5');
    });

    it("simulates a deposit address's deposit with the faucet's real transfer; its transaction follows once confirmed", async () => {
      const { base, customer, address } = await activeDepositAddress('chain-faucet-deposits');
      const simulated = await base.post(`/deposit-addresses/${address.id}/simulate/crypto-deposit`, { amount: '8.00' });
      expect(simulated.status).toBe(201);
      expect(simulated.body).toMatchObject({
        object: 'depositAddressDeposit',
        senderAddress: FAUCET.address,
        transactionId: null,
        txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      // Another sender is refused, changing nothing: on a chain the simulation pays from the faucet.
      const other = await base.post(`/deposit-addresses/${address.id}/simulate/crypto-deposit`, {
        amount: '1.00',
        senderAddress: DEV_ACCOUNTS[1].address,
      });
      expect({ status: other.status, error: other.body.error }).toEqual({ status: 400, error: 'InvalidRequest' });
      await devnet.mine(CONFIRMATIONS);
      const [made] = await eventually(async () => {
        const list = (await base.get(`/transactions?customerId=${customer.id}`)).body.data;
        return list.length > 0 ? list : undefined;
      }, 30_000);
      expect(made.legs.find((l: { kind: string }) => l.kind === 'deposit')).toMatchObject({
        txHash: simulated.body.txHash,
        amount: '8',
      });
    });
  });
});
