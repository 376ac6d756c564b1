// What a request costs PostgreSQL in round trips, counted on the connection that ran it (docs/performance.md:
// round trips, not statements, are what a loaded platform pays for most). Platform mode only (jest.config.js):
// the statements and socket writes of this process are watched, and the services share its transaction.
// A transaction made from a quote made in the same process reads the quote, its accounts and the wallet it
// debits in one round trip (the quote's lock first), and writes everything with its COMMIT in the second;
// what it answers is the same as when it reads them one after another (the e2e suites of both modes). An
// inbound transfer to a virtual account reads the account and its history in one, and writes in the second;
// a deposit to an address reads the address under its customer's lock and its own in one, then its sender.
import { Socket } from 'node:net';
import { Client } from 'pg';
import { newTenant } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

/** The statements each PostgreSQL connection sent in each of its writes, while fn ran. */
async function roundTripsByConnection(fn: () => Promise<void>): Promise<string[][][]> {
  const issued = new Map<Client, string[]>();
  const trips = new Map<Client, string[][]>();
  const clientOf = new Map<Socket, Client>();
  const original = Client.prototype.query;
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const socket = (this as unknown as { connection?: { stream?: Socket } }).connection?.stream;
    if (socket) clientOf.set(socket, this);
    // A text, a query config, or a batch of statements (the UnitOfWork's own).
    const config = args[0] as string | { text?: string; statements?: Array<{ sql: string }> };
    const texts =
      typeof config === 'string'
        ? [config]
        : config.text !== undefined
          ? [config.text]
          : (config.statements ?? []).map((s) => s.sql);
    issued.set(this, [...(issued.get(this) ?? []), ...texts]);
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  const written = (write: (...a: unknown[]) => unknown) =>
    function (this: Socket, ...args: unknown[]) {
      const client = clientOf.get(this);
      const pending = client && issued.get(client);
      if (client && pending && pending.length > 0) {
        trips.set(client, [...(trips.get(client) ?? []), pending]);
        issued.set(client, []);
      }
      return write.apply(this, args);
    };
  const { _write: write, _writev: writev } = Socket.prototype as unknown as Record<
    '_write' | '_writev',
    (...a: unknown[]) => unknown
  >;
  Object.assign(Socket.prototype, { _write: written(write), _writev: written(writev) });
  try {
    await fn();
    return [...trips.values()];
  } finally {
    Client.prototype.query = original;
    Object.assign(Socket.prototype, { _write: write, _writev: writev });
  }
}

/** The round trips of the one transaction that wrote `marker`: from its BEGIN to its COMMIT. */
function transactionWriting(byConnection: string[][][], marker: RegExp): string[][] {
  const found: string[][][] = [];
  for (const trips of byConnection) {
    const end = trips.findIndex((trip) => trip.some((sql) => marker.test(sql)) && trip.includes('COMMIT'));
    if (end < 0) continue;
    let begin = end;
    while (!trips[begin].includes('BEGIN')) begin--;
    found.push(trips.slice(begin, end + 1));
  }
  expect(found).toHaveLength(1);
  return found[0];
}

const position = (trip: string[], pattern: RegExp) => trip.findIndex((sql) => pattern.test(sql));

/** Where in the round trip each named statement went; every one of them must be in it. */
function sentIn<K extends string>(trip: string[], patterns: Record<K, RegExp>): Record<K, number> {
  const at = Object.fromEntries(
    Object.entries<RegExp>(patterns).map(([name, pattern]) => [name, position(trip, pattern)]),
  ) as Record<K, number>;
  for (const [name, i] of Object.entries<number>(at)) expect({ name, sent: i >= 0 }).toEqual({ name, sent: true });
  return at;
}

/** Moves the project's clock on until the simulated provider has made the resource at `path` active. */
async function activeAfterAdvances(
  call: (method: string, path: string, body?: unknown) => Promise<{ status: number; body: { status?: string } }>,
  path: string,
): Promise<void> {
  await eventually(async () => {
    expect((await call('POST', '/sandbox/clock/advance', { seconds: 5 })).status).toBe(200);
    return (await call('GET', path)).body.status === 'active' ? true : undefined;
  });
}

describe('round trips of a request, platform mode', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await TestPlatform.start();
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await platform?.stop();
  });

  /** A project of its own, a customer with a funded wallet and a bank account to pay out to. */
  async function tenant(name: string, funding: string) {
    const t = await newTenant(platform, { name });
    const ada = await t.customer();
    const wallet = await t.wallet(ada.id, { funding });
    const bank = await t.bankUs(ada.id);
    const quote = async (amount: string) => {
      const res = await t.post('/quotes', {
        customerId: ada.id,
        source: { type: 'walletOms', details: { id: wallet.id }, amount },
        destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
      });
      expect(res.status).toBe(201);
      return res.body as { id: string };
    };
    return { ...t, wallet, quote };
  }

  it('makes a transaction from a quote made here in two: the quote, its account and the wallet read together, then the writes with COMMIT', async () => {
    const t = await tenant('two-trips', '500');
    // The project's first transaction reads its limits, which the process then keeps in memory.
    expect((await t.post('/transactions', { quoteId: (await t.quote('1.00')).id })).status).toBe(201);
    const quote = await t.quote('100.00');
    let res: Awaited<ReturnType<typeof t.post>> | undefined;
    const byConnection = await roundTripsByConnection(async () => {
      res = await t.post('/transactions', { quoteId: quote.id });
    });
    expect(res!.status).toBe(201);
    expect(res!.body).toMatchObject({
      status: 'processing',
      subStatus: 'processing.fundsPulled',
      precursor: { type: 'quote', id: quote.id },
    });
    const trips = transactionWriting(byConnection, /INSERT INTO transactions\.transactions/);
    expect(trips).toHaveLength(2);
    const [first, second] = trips;
    const { claim, quoteRead, walletRead } = sentIn(first, {
      claim: /platform\.idempotency_keys|claim_idempotency_key/,
      quoteRead: /FROM quoting\.events/,
      accountRead: /FROM accounts\.external_accounts/,
      walletRead: /FROM accounts\.events/,
    });
    expect(claim).toBeLessThan(quoteRead);
    // The wallet's lock comes after the quote's, as when they are taken one round trip apart.
    const locks = first.flatMap((sql, i) => (/pg_advisory_xact_lock/.test(sql) ? [i] : []));
    expect(locks).toHaveLength(2);
    expect(locks[0]).toBeLessThan(quoteRead);
    expect(quoteRead).toBeLessThan(locks[1]);
    expect(locks[1]).toBeLessThan(walletRead);
    expect(second).toContain('COMMIT');
    expect(second.filter((sql) => /^SELECT|^\(SELECT/.test(sql.trim()) && !/pg_notify/.test(sql))).toEqual([]);
    expect((await t.get(`/wallets/${t.wallet.id}/balance`)).body.data.balance).toBe('399.00');
  });

  it('records an inbound transfer to a virtual account in two: the account and its history under its lock together, then the writes with COMMIT', async () => {
    const t = await newTenant(platform, { name: 'inbound' });
    const { call } = t;
    const customer = await t.customer();
    const wallet = await t.wallet(customer.id);
    const account = await call('POST', '/virtual-accounts', {
      customerId: customer.id,
      source: { asset: 'usd', network: 'ach' },
      destination: { type: 'walletOms', walletId: wallet.id },
      accountHolder: 'customer',
      type: 'bankUs',
    });
    expect(account.status).toBe(201);
    await activeAfterAdvances(call, `/virtual-accounts/${account.body.id}`);
    // After the clock's last advance, the process reads the project's offset once, then keeps it.
    expect(
      (await call('POST', `/virtual-accounts/${account.body.id}/simulate/inbound-transfer`, { amount: '1.00' })).status,
    ).toBe(201);
    let res: Awaited<ReturnType<typeof call>> | undefined;
    const byConnection = await roundTripsByConnection(async () => {
      res = await call('POST', `/virtual-accounts/${account.body.id}/simulate/inbound-transfer`, { amount: '1.00' });
    });
    expect(res!.status).toBe(201);
    const trips = transactionWriting(byConnection, /INSERT INTO virtual_accounts\.deposits/);
    expect(trips).toHaveLength(2);
    const [first, second] = trips;
    const { lock, history } = sentIn(first, {
      row: /FROM virtual_accounts\.accounts/,
      lock: /pg_advisory_xact_lock/,
      history: /FROM virtual_accounts\.events/,
    });
    expect(lock).toBeLessThan(history);
    expect(second).toContain('COMMIT');
    // The transaction it names exists when it answers.
    expect((await call('GET', `/transactions/${res!.body.transactionId}`)).body).toMatchObject({
      status: 'processing',
      precursor: { type: 'virtualAccount', id: account.body.id },
    });
    // An unknown account of the right shape is still a 404, and a malformed id a 400, with nothing recorded.
    expectError(
      await call('POST', `/virtual-accounts/va_01h2xcejqtf2nbrexx3vqjhp41/simulate/inbound-transfer`, {
        amount: '1.00',
      }),
      404,
      'VirtualAccountNotFound',
    );
    expectError(
      await call('POST', `/virtual-accounts/nope/simulate/inbound-transfer`, { amount: '1.00' }),
      400,
      'InvalidVirtualAccountID',
    );
  });

  it("records a deposit to an address in three: the address, its customer's lock and its own with its history; the sender; the writes with COMMIT", async () => {
    const t = await newTenant(platform, { name: 'deposit', settings: { features: { depositAddresses: true } } });
    const { call } = t;
    const customer = await t.customer();
    const bank = await t.bankUs(customer.id);
    const address = await call('POST', '/deposit-addresses', {
      customerId: customer.id,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: { externalAccountId: bank.id },
      payout: { rail: 'ach' },
    });
    expect(address.status).toBe(201);
    await activeAfterAdvances(call, `/deposit-addresses/${address.body.id}`);
    expect(
      (await call('POST', `/deposit-addresses/${address.body.id}/simulate/crypto-deposit`, { amount: '1.00' })).status,
    ).toBe(201);
    let res: Awaited<ReturnType<typeof call>> | undefined;
    const byConnection = await roundTripsByConnection(async () => {
      res = await call('POST', `/deposit-addresses/${address.body.id}/simulate/crypto-deposit`, { amount: '1.00' });
    });
    expect(res!.status).toBe(201);
    const trips = transactionWriting(byConnection, /INSERT INTO deposit_addresses\.deposits/);
    expect(trips).toHaveLength(3);
    const [first, second, third] = trips;
    const { customerLock, streamLock, history } = sentIn(first, {
      row: /^SELECT \* FROM deposit_addresses\.addresses/,
      customerLock: /INSERT INTO deposit_addresses\.customer_locks/,
      streamLock: /pg_advisory_xact_lock/,
      history: /FROM deposit_addresses\.events/,
    });
    // The customer's lock before the address's (as a sender's registration takes it), and before the sender is asked.
    expect(customerLock).toBeLessThan(streamLock);
    expect(streamLock).toBeLessThan(history);
    expect(position(second, /FROM accounts\.external_accounts/)).toBeGreaterThanOrEqual(0);
    expect(third).toContain('COMMIT');
    expect((await call('GET', `/transactions/${res!.body.transactionId}`)).body).toMatchObject({
      precursor: { type: 'depositAddress', id: address.body.id },
    });
    expectError(
      await call('POST', `/deposit-addresses/da_01h2xcejqtf2nbrexx3vqjhp41/simulate/crypto-deposit`, {
        amount: '1.00',
      }),
      404,
      'DepositAddressNotFound',
    );
    expectError(
      await call('POST', `/deposit-addresses/nope/simulate/crypto-deposit`, { amount: '1.00' }),
      400,
      'InvalidDepositAddressID',
    );
  });

  it('refuses as before when the wallet read with the quote is short: nothing moves, the quote stays open', async () => {
    const t = await tenant('short', '50');
    const quote = await t.quote('100.00');
    expectError(await t.post('/transactions', { quoteId: quote.id }), 422, 'InsufficientFunds');
    expect((await t.get(`/quotes/${quote.id}`)).body.status).toBe('open');
    expect((await t.get(`/wallets/${t.wallet.id}/balance`)).body.data.balance).toBe('50.00');
    expect((await t.post(`/sandbox/wallets/${t.wallet.id}/fund`, { amount: '50' })).status).toBe(200);
    expect((await t.post('/transactions', { quoteId: quote.id })).status).toBe(201);
    expect((await t.get(`/wallets/${t.wallet.id}/balance`)).body.data.balance).toBe('0.00');
  });
});
