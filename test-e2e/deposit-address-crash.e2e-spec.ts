// Issue 19, "Done means": the crash test of deposit addresses. Spec: Deposit address (deposits make
// transactions on their own, one each), Transaction (holds; failed payouts of this flow held for review),
// rule 6 (Idempotency-Key); docs/sandbox.md (the cents of the deposit choose the payout's outcome);
// ARCHITECTURE: a crash leaves either everything or nothing, the double-entry ledger. The platform runs as
// `npm run start:distributed` does (events on the PostgreSQL log transport); 100 deposits reach 10
// addresses from concurrent clients while the deposit-addresses process and then the transactions
// process are killed outright (SIGKILL) and started again alone (`npm run start:service`). A deposit
// whose answer was lost is sent again with the same Idempotency-Key and body until it is answered.
// Afterwards every deposit has exactly one transaction, each ends as its amount and sender say
// (completed, held for review, or held for its sender), no payout was sent or posted twice, and the
// ledger read straight from the database balances: the crypto in, the fiat out, the held money in transit.
import { randomUUID } from 'node:crypto';
import { crashRun, prng, units, type Sent } from './support/crash-run';
import { START_TIMEOUT_MS } from './support/distributed-processes';
import { until } from './support/platform-process';

/** The mix is the same on every run. */
const SEED = 0x19_da_c4a5;
const DEPOSITS = 100;
const ADDRESSES = 10;
/** Two addresses per customer: deposits to one customer's addresses are decided one at a time (under its lock), so several customers keep several in the middle of it when a process dies. */
const CUSTOMERS = 5;
const customerOf = (address: number) => Math.floor(address / 2);
const CONCURRENCY = 12;
/** Which process is killed once how many deposits have been answered: each started again at once, alone. */
const KILLS: ReadonlyArray<[number, 'deposit-addresses' | 'transactions']> = [
  [30, 'deposit-addresses'],
  [60, 'transactions'],
  [85, 'deposit-addresses'],
];
/** The sender the registration-only address waits for is registered once this many have been answered. */
const REGISTER_AFTER = 45;
/** Every this many answered deposits the project's clock moves on this many seconds, so payouts settle while deposits arrive. */
const NUDGE_EVERY = 10;
const NUDGE_SECONDS = 20;
const NETWORK = 'ethereum';
/** Senders on the registration-only address: one registered during the run, one never. */
const REGISTERED_LATER = '0x5151515151515151515151515151515151515151';
const NEVER_REGISTERED = '0x7777777777777777777777777777777777777777';
const SENDERS = [
  '0x1111111111111111111111111111111111111111',
  '0x2222222222222222222222222222222222222222',
  '0x3333333333333333333333333333333333333333',
];
/** Addresses 0 to 5 pay on ach, 6 to 8 on wire, 9 on ach and only for registered senders. */
const rail = (i: number) => (i >= 6 && i <= 8 ? 'wire' : 'ach');
const REGISTRATION_ONLY = 9;

/** What a deposit's amount and sender say becomes of it. */
type Outcome = 'completed' | 'underReview' | 'awaitingSenderAttribution';

interface Deposit extends Sent {
  address: number;
  sender: string;
  amount: string;
  expected: Outcome;
}

const startCrashRun = crashRun('mm-da-crash');

test(
  'SIGKILL of the deposit-addresses and transactions processes while deposits arrive: one transaction per deposit, each terminal or visibly held, no payout twice, the ledger balanced',
  async () => {
    const random = prng(SEED);
    const crash = await startCrashRun();
    const { call, ok } = crash;
    expect([...crash.services.keys()]).toEqual(
      expect.arrayContaining(['deposit-addresses', 'gateway', 'transactions']),
    );

    // A project of its own with deposit addresses enabled, and a key pair for it.
    await crash.project('deposit-address-crash', { depositAddresses: true });
    const advance = (seconds: number) => crash.advance(seconds);

    // Endorsed customers, an active bank account each, two active addresses each.
    const customers: string[] = [];
    for (let c = 0; c < CUSTOMERS; c++) {
      customers.push(
        (
          await ok('POST', '/customers', {
            type: 'individual',
            firstName: 'Ada',
            lastName: `Crash${c}`,
            endorsements: ['basic', 'cryptoCustody', 'usd'],
          })
        ).id,
      );
    }
    await until(
      async () =>
        (await Promise.all(customers.map((id) => call('GET', `/customers/${id}`)))).every((r) =>
          r.body?.endorsements?.every((e: { status: string }) => e.status === 'active'),
        )
          ? true
          : undefined,
      30_000,
      () => `the customers' endorsements active`,
    );
    const banks: string[] = [];
    for (let c = 0; c < CUSTOMERS; c++) {
      banks.push(
        (
          await ok('POST', '/external-accounts', {
            owner: { kind: 'customer', customerId: customers[c] },
            type: 'bankUs',
            bankUs: { accountNumber: `${c + 1}23456789012`, routingNumber: '021000021' },
          })
        ).id,
      );
    }
    await until(
      async () =>
        (await Promise.all(banks.map((id) => call('GET', `/external-accounts/${id}`)))).every(
          (r) => r.body?.status === 'active',
        )
          ? true
          : undefined,
      30_000,
      () => 'bank accounts active',
    );
    const addresses: string[] = [];
    for (let i = 0; i < ADDRESSES; i++) {
      const address = await ok('POST', '/deposit-addresses', {
        customerId: customers[customerOf(i)],
        expectedSourceAsset: 'usdc',
        expectedSourceNetwork: NETWORK,
        destination: { externalAccountId: banks[customerOf(i)] },
        payout: { rail: rail(i) },
        label: `crash ${i}`,
        ...(i === REGISTRATION_ONLY ? { requiresCounterpartyWalletRegistration: true } : {}),
      });
      addresses.push(address.id);
    }
    // The simulated custodian provisions them a few seconds of project time later.
    await until(
      async () => {
        await advance(5);
        return (await Promise.all(addresses.map((id) => call('GET', `/deposit-addresses/${id}`)))).every(
          (r) => r.body?.status === 'active',
        )
          ? true
          : undefined;
      },
      30_000,
      () => 'deposit addresses active',
    );

    // The seeded mix: one in ten refused by the bank (.91), one in ten returned after it was sent (.94), the
    // rest paid; on the registration-only address, a third from a sender nobody registers.
    const deposits: Deposit[] = Array.from({ length: DEPOSITS }, (_, n) => {
      const address = n % ADDRESSES;
      const whole = 1 + Math.floor(random() * 500);
      const pick = random();
      const cents = pick < 0.1 ? 91 : pick < 0.2 ? 94 : Math.floor(random() * 90);
      const sender =
        address === REGISTRATION_ONLY
          ? random() < 1 / 3
            ? NEVER_REGISTERED
            : REGISTERED_LATER
          : SENDERS[Math.floor(random() * SENDERS.length)];
      const expected: Outcome =
        sender === NEVER_REGISTERED ? 'awaitingSenderAttribution' : cents >= 90 ? 'underReview' : 'completed';
      return {
        n,
        address,
        sender,
        amount: `${whole}.${String(cents).padStart(2, '0')}`,
        expected,
        key: `da-crash-${SEED}-${n}-${randomUUID()}`,
        lost: [],
      };
    });

    /** Sends a deposit until it is answered (the same key and body after a lost answer). */
    const send = (d: Deposit) =>
      crash.send('deposit', d, `/deposit-addresses/${addresses[d.address]}/simulate/crypto-deposit`, {
        amount: d.amount,
        senderAddress: d.sender,
      });
    const killAndRestart = (name: string) => crash.killAndRestart(name);

    // The deposits, concurrently; the kills, the registration and the clock's nudges at their counts.
    let answered = 0;
    let next = 0;
    const restarts: Array<Promise<unknown>> = [];
    let registration: Promise<string> | undefined;
    const register = async () => {
      const counterparty = await ok('POST', '/counterparties', {
        customerId: customers[customerOf(REGISTRATION_ONLY)],
        entityType: 'individual',
        firstName: 'Grace',
        lastName: 'Hopper',
      });
      return (
        await ok('POST', '/external-accounts', {
          owner: { kind: 'counterparty', counterpartyId: counterparty.id },
          type: 'walletExternal',
          walletExternal: { address: REGISTERED_LATER, network: NETWORK },
        })
      ).id as string;
    };
    const worker = async () => {
      while (next < DEPOSITS) {
        const d = deposits[next++];
        await send(d);
        if (!d.transactionId) continue;
        answered++;
        for (const [after, name] of KILLS) if (answered === after) restarts.push(killAndRestart(name));
        if (answered === REGISTER_AFTER) registration = register();
        if (answered % NUDGE_EVERY === 0) await advance(NUDGE_SECONDS);
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await Promise.all(restarts);
    const walletId = await registration;
    process.stdout.write(
      `deposit-address-crash: ${DEPOSITS} deposits answered in ${((Date.now() - started) / 1000).toFixed(1)} s, ${deposits.filter((d) => d.lost.length).length} after lost answers\n`,
    );
    expect(crash.problems).toEqual([]);
    expect(restarts).toHaveLength(KILLS.length);
    expect(walletId).toEqual(expect.stringMatching(/^ext_/));
    // The kills really were in the middle of it: some deposits had their answer lost and were sent again.
    expect(deposits.filter((d) => d.lost.length > 0).length).toBeGreaterThan(0);
    // Deposits went on while the transactions process was down: the deposit-addresses service answered
    // them, and their transactions were made from its log once the transactions process was back.
    const handedOver = crash.restartedLines('deposit-addresses', /the transactions service did not take it at once/);
    expect(handedOver).toBeGreaterThan(0);
    // Every deposit was answered with a transaction, each its own.
    expect(deposits.filter((d) => !d.transactionId).map((d) => d.n)).toEqual([]);
    expect(new Set(deposits.map((d) => d.transactionId)).size).toBe(DEPOSITS);

    // The clock goes on past every rail until each transaction is where its amount and sender put it.
    const final: Record<Outcome, [string, string | null]> = {
      completed: ['completed', null],
      underReview: ['processing', 'processing.underReview'],
      awaitingSenderAttribution: ['awaitingAction', 'awaitingAction.awaitingSenderAttribution'],
    };
    const views = await crash.settle(deposits, customers, final, 61);

    // Each deposit made exactly one transaction, and nothing else was made.
    expect([...views.keys()].sort()).toEqual(deposits.map((d) => d.transactionId!).sort());
    for (const d of deposits) {
      const res = await call('GET', `/transactions/${d.transactionId}`);
      const t = res.body;
      const payouts = t.legs.filter((l: any) => l.kind === 'payout');
      expect({
        n: d.n,
        status: res.status,
        outcome: [t.status, t.subStatus],
        customer: t.customerId,
        precursor: t.precursor,
        amount: t.pricing.source.amountGross,
        deposit: t.legs.filter((l: any) => l.kind === 'deposit').map((l: any) => [l.amount, l.status]),
        payouts: payouts.map((l: any) => [l.rail, l.amount, l.status]),
        hold: t.hold?.code ?? null,
      }).toEqual({
        n: d.n,
        status: 200,
        outcome: final[d.expected],
        customer: customers[customerOf(d.address)],
        precursor: { type: 'depositAddress', id: addresses[d.address] },
        amount: d.amount,
        deposit: [[d.amount, 'settled']],
        payouts:
          d.expected === 'awaitingSenderAttribution'
            ? []
            : [[rail(d.address), d.amount, d.expected === 'completed' ? 'settled' : 'failed']],
        hold: d.expected === 'awaitingSenderAttribution' ? 'senderAttribution' : null,
      });
    }

    const db = crash.db;
    // The deposit-addresses service recorded each deposit once, to the address it was sent to.
    const recorded = await db.query<{
      transaction_id: string;
      deposit_address_id: string;
      amount: string;
      sender_address: string;
      held: string | null;
    }>(
      `SELECT transaction_id, deposit_address_id, amount::text AS amount, sender_address, held FROM deposit_addresses.deposits`,
    );
    expect(recorded.map((r) => r.transaction_id).sort()).toEqual(deposits.map((d) => d.transactionId!).sort());
    const byTransaction = new Map(recorded.map((r) => [r.transaction_id, r]));
    for (const d of deposits) {
      const r = byTransaction.get(d.transactionId!)!;
      expect({
        n: d.n,
        address: r.deposit_address_id,
        amount: units(r.amount),
        sender: r.sender_address.toLowerCase(),
        held: r.held,
      }).toEqual({
        n: d.n,
        address: addresses[d.address],
        amount: units(d.amount),
        sender: d.sender,
        held: d.expected === 'awaitingSenderAttribution' ? 'attribution' : null,
      });
    }
    const received = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM deposit_addresses.events WHERE type = 'depositAddress.depositReceived'`,
    );
    expect(received[0].n).toBe(DEPOSITS);

    // The transactions service made each transaction once, and started at most one payout per transaction
    // (no operator retried any), each settled or failed once.
    const created = await db.query<{ stream_id: string; n: number }>(
      `SELECT stream_id, count(*)::int AS n FROM transactions.events WHERE type = 'transaction.created' GROUP BY stream_id`,
    );
    expect(created.map((r) => [r.stream_id, r.n]).sort()).toEqual(
      deposits.map((d) => [`transaction-${d.transactionId}`, 1]).sort(),
    );
    const payoutsStarted = await db.query<{ stream_id: string; n: number }>(
      `SELECT stream_id, count(*)::int AS n FROM transactions.events WHERE type = 'transaction.legInitiated' AND data->'leg'->>'kind' = 'payout' GROUP BY stream_id HAVING count(*) > 1`,
    );
    expect(payoutsStarted).toEqual([]);
    const legEnds = await db.query<{ leg: string; n: number }>(
      `SELECT data->>'legId' AS leg, count(*)::int AS n FROM transactions.events WHERE type IN ('transaction.legSettled', 'transaction.legFailed') GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(legEnds).toEqual([]);

    // The ledger, once the accounts service has posted every deposit and every settled payout.
    const completed = deposits.filter((d) => d.expected === 'completed');
    await until(
      async () => {
        const [counts] = await db.query<{ deposits: number; payouts: number }>(
          `SELECT count(DISTINCT posting_id) FILTER (WHERE posting_id LIKE '%:deposit:%')::int AS deposits,
                count(DISTINCT posting_id) FILTER (WHERE posting_id LIKE '%:payout:%')::int AS payouts
           FROM accounts.ledger_entries`,
        );
        return counts.deposits === DEPOSITS && counts.payouts === completed.length ? true : undefined;
      },
      30_000,
      () => 'every deposit and settled payout posted',
    );
    // Every posting sums to zero in each asset.
    expect(
      await db.query(
        `SELECT posting_id, asset, sum(amount)::text AS total FROM accounts.ledger_entries GROUP BY posting_id, asset HAVING sum(amount) <> 0`,
      ),
    ).toEqual([]);
    // Each transaction's postings: its deposit once; a completed one's conversion and payout once each; nothing else.
    const postings = await db.query<{ posting_id: string; entries: number }>(
      `SELECT posting_id, count(*)::int AS entries FROM accounts.ledger_entries GROUP BY posting_id`,
    );
    const steps = new Map<string, string[]>();
    for (const p of postings) {
      const [transactionId, step] = p.posting_id.split(':');
      steps.set(transactionId, [...(steps.get(transactionId) ?? []), `${step}/${p.entries}`].sort());
    }
    expect([...steps.keys()].sort()).toEqual(deposits.map((d) => d.transactionId!).sort());
    for (const d of deposits) {
      expect({ n: d.n, expected: d.expected, steps: steps.get(d.transactionId!) }).toEqual({
        n: d.n,
        expected: d.expected,
        steps: d.expected === 'completed' ? ['convert/2', 'deposit/2', 'payout/2'] : ['deposit/2'],
      });
    }
    // Each transit account: empty once paid out, exactly the deposit while held.
    const transit = new Map(
      (
        await db.query<{ account: string; total: string }>(
          `SELECT account, sum(amount)::text AS total FROM accounts.ledger_entries WHERE account LIKE 'transit:%' GROUP BY account`,
        )
      ).map((r) => [r.account, units(r.total)]),
    );
    for (const d of deposits) {
      expect({ n: d.n, expected: d.expected, transit: transit.get(`transit:${d.transactionId}`) }).toEqual({
        n: d.n,
        expected: d.expected,
        transit: d.expected === 'completed' ? 0n : units(d.amount),
      });
    }
    // The chain gave what was deposited; each bank rail took what was paid on it, once; the conversion desk nets to nothing.
    const sum = (xs: Deposit[]) => xs.reduce((total, d) => total + units(d.amount), 0n);
    const accounts = Object.fromEntries(
      (
        await db.query<{ account: string; total: string }>(
          `SELECT account, sum(amount)::text AS total FROM accounts.ledger_entries WHERE account NOT LIKE 'transit:%' GROUP BY account`,
        )
      ).map((r) => [r.account, units(r.total)]),
    );
    expect(accounts).toEqual({
      [`rail:usdc:${NETWORK}`]: -sum(deposits),
      'rail:usd:ach': sum(completed.filter((d) => rail(d.address) === 'ach')),
      'rail:usd:wire': sum(completed.filter((d) => rail(d.address) === 'wire')),
      'conversion:usdc': sum(completed),
      'conversion:usd': -sum(completed),
    });
    process.stdout.write(
      `deposit-address-crash: ${completed.length} completed, ${deposits.filter((d) => d.expected === 'underReview').length} held for review, ${deposits.filter((d) => d.expected === 'awaitingSenderAttribution').length} held for their sender; lost answers: ${deposits
        .filter((d) => d.lost.length)
        .map((d) => `#${d.n} ${d.lost.length} × ${[...new Set(d.lost)].join(',')}${d.replayed ? ' (replayed)' : ''}`)
        .join('; ')}; ${handedOver} made from the log\n`,
    );
  },
  3 * START_TIMEOUT_MS,
);
