// Issue 20, "Done means": the crash test of virtual accounts. Spec: Virtual account (inbound transfers make
// transactions on their own, one each; the asynchronous delete), Transaction (failed deliveries held for
// review; the operator's refund over a bank rail), rule 6 (Idempotency-Key); docs/sandbox.md (the cents of
// the transfer choose the outcome); ARCHITECTURE: a crash leaves either everything or nothing, the
// double-entry ledger. The platform runs as `npm run start:distributed` does (events on the PostgreSQL log
// transport); 100 inbound transfers reach 10 virtual accounts from concurrent clients while the
// virtual-accounts process, then the transactions process, then virtual-accounts again are killed outright
// (SIGKILL) and started again alone (`npm run start:service`); the operator refunds held deposits meanwhile,
// and an eleventh account's DELETE is in flight when virtual-accounts dies the second time. An answer lost
// is asked again with the same Idempotency-Key and body until it comes. Afterwards every transfer has
// exactly one transaction, each terminal or visibly held, nothing was delivered or refunded twice, the
// wallet got exactly what completed, the ledger read straight from the database balances with the held
// money in transit, and the delete ended `deleted` or with the account as it was, never `deleting`.
import { randomUUID } from 'node:crypto';
import { crashRun, prng, units, type Sent } from './support/crash-run';
import { START_TIMEOUT_MS } from './support/distributed-processes';
import { until } from './support/platform-process';
import { ADMIN_TOKEN } from './support/settings';

/** The mix is the same on every run. */
const SEED = 0x20_fa_c4a5;
const TRANSFERS = 100;
const ACCOUNTS = 10;
const CONCURRENCY = 12;
/** Which process is killed once how many transfers have been answered: each started again at once, alone. */
const KILLS: ReadonlyArray<[number, 'virtual-accounts' | 'transactions']> = [
  [30, 'virtual-accounts'],
  [65, 'transactions'],
  [85, 'virtual-accounts'],
];
/** The eleventh account's DELETE is sent just before this kill of virtual-accounts. */
const DELETE_BEFORE_KILL = 85;
/** A refund of a held deposit is sent just before this kill of transactions. */
const REFUND_BEFORE_KILL = 65;
/** Once this many have been answered the operator refunds a held deposit (as soon as one is held). */
const REFUNDS_AT = [40, 55, 75];
/** Every this many answered transfers the project's clock moves on this many seconds, so deposits settle and deliveries fail while transfers arrive. */
const NUDGE_EVERY = 10;
const NUDGE_SECONDS = 20;
const NETWORK = 'ethereum';
/** Accounts 0 to 6 are paid into on ach, 7 to 9 on wire (the rail is the transfer's). */
const rail = (i: number) => (i >= 7 ? 'wire' : 'ach');

/** What a transfer's amount says becomes of it; `refunded` is a held one the operator refunded during the run. */
type Outcome = 'completed' | 'refused' | 'returned' | 'underReview' | 'refunded';

interface Transfer extends Sent {
  account: number;
  amount: string;
  expected: Outcome;
}

const startCrashRun = crashRun('mm-va-crash');

test(
  'SIGKILL of the virtual-accounts and transactions processes while transfers arrive: one transaction per transfer, each terminal or visibly held, nothing credited or refunded twice, the ledger balanced, the delete in flight ended',
  async () => {
    const random = prng(SEED);
    const crash = await startCrashRun();
    const { call, ok } = crash;
    expect([...crash.services.keys()]).toEqual(expect.arrayContaining(['gateway', 'transactions', 'virtual-accounts']));
    await crash.project('virtual-account-crash');

    // An endorsed customer, its custodial USDC wallet every account delivers to, and the bank account refunds go back to.
    const customer = (
      await ok('POST', '/customers', {
        type: 'individual',
        firstName: 'Ada',
        lastName: 'Crash',
        endorsements: ['basic', 'cryptoCustody', 'usd'],
      })
    ).id as string;
    await until(
      async () =>
        (await call('GET', `/customers/${customer}`)).body?.endorsements?.every(
          (e: { status: string }) => e.status === 'active',
        )
          ? true
          : undefined,
      30_000,
      () => `the customer's endorsements active`,
    );
    const walletId = (await ok('POST', `/customers/${customer}/wallets`, { asset: 'usdc', network: NETWORK }))
      .id as string;
    const returnBank = (
      await ok('POST', '/external-accounts', {
        owner: { kind: 'customer', customerId: customer },
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      })
    ).id as string;
    await until(
      async () =>
        (await call('GET', `/external-accounts/${returnBank}`)).body?.status === 'active' ? true : undefined,
      30_000,
      () => 'the return bank account active',
    );
    // Ten accounts for the transfers and an eleventh that is deleted while they arrive.
    const accounts: string[] = [];
    for (let i = 0; i <= ACCOUNTS; i++) {
      const va = await ok('POST', '/virtual-accounts', {
        customerId: customer,
        source: { asset: 'usd', network: 'ach' },
        destination: { type: 'walletOms', walletId },
        accountHolder: 'customer',
        type: 'bankUs',
        returnDestination: { externalAccountId: returnBank },
        returnPayout: { rail: 'ach' },
        label: `crash ${i}`,
      });
      accounts.push(va.id);
    }
    const deleted = accounts[ACCOUNTS];
    // The simulated bank provisions them a few seconds of project time later.
    await until(
      async () => {
        await crash.advance(5);
        return (await Promise.all(accounts.map((id) => call('GET', `/virtual-accounts/${id}`)))).every(
          (r) => r.body?.status === 'active',
        )
          ? true
          : undefined;
      },
      30_000,
      () => 'virtual accounts active',
    );

    // The seeded mix: about one in twelve refused by the bank (.91), one in twelve returned by it after it
    // arrived (.92), one in six delivered into a failure (.94: held for review), the rest delivered.
    const transfers: Transfer[] = Array.from({ length: TRANSFERS }, (_, n) => {
      const account = n % ACCOUNTS;
      const whole = 1 + Math.floor(random() * 500);
      const pick = random();
      const cents = pick < 0.08 ? 91 : pick < 0.16 ? 92 : pick < 0.32 ? 94 : Math.floor(random() * 90);
      const expected: Outcome =
        cents === 91 ? 'refused' : cents === 92 ? 'returned' : cents === 94 ? 'underReview' : 'completed';
      return {
        n,
        account,
        amount: `${whole}.${String(cents).padStart(2, '0')}`,
        expected,
        key: `va-crash-${SEED}-${n}-${randomUUID()}`,
        lost: [],
      };
    });

    /** Sends a transfer until it is answered (the same key and body after a lost answer). */
    const send = (t: Transfer) =>
      crash.send('transfer', t, `/virtual-accounts/${accounts[t.account]}/simulate/inbound-transfer`, {
        amount: t.amount,
        rail: rail(t.account),
      });

    /** The operator's refunds: the transfer, each answer lost before the 200, the answer. */
    const refunds: Array<{
      transfer: Transfer;
      lost: string[];
      answer?: { status: number; result?: string; replayed: boolean };
    }> = [];
    /** The earliest deposit held after its delivery failed and not refunded yet, taken for a refund; the clock moves on while none is held. */
    const takeHeld = () =>
      until(
        async () => {
          for (const t of transfers) {
            if (t.expected !== 'underReview' || !t.transactionId) continue;
            const seen = await call('GET', `/transactions/${t.transactionId}`).catch(() => undefined);
            // Taken by nothing else meanwhile.
            if (seen?.body?.subStatus !== 'processing.underReview' || t.expected !== 'underReview') continue;
            t.expected = 'refunded';
            return t;
          }
          await call('POST', '/sandbox/clock/advance', { seconds: 5 }).catch(() => undefined);
          return undefined;
        },
        90_000,
        () => 'a deposit held for review',
      );
    /** The operator refunds it, its answer asked again with the same key and body when lost. */
    const refund = async (t: Transfer): Promise<void> => {
      const entry: (typeof refunds)[number] = { transfer: t, lost: [] };
      refunds.push(entry);
      const { answer, lost } = await crash.retried(
        'POST',
        `/admin/transactions/${t.transactionId}/refund`,
        { reason: 'the customer asked for the money back' },
        `va-crash-refund-${t.n}-${randomUUID()}`,
        ADMIN_TOKEN,
      );
      entry.lost = lost;
      entry.answer = answer && { status: answer.status, result: answer.body?.result, replayed: answer.replayed };
    };
    const refunding: Array<Promise<unknown>> = [];
    /** A refund sent, then the transactions process killed as soon as the refund is recorded (or answered); resolves once it is killed, with its restart. */
    const refundThenKill = async (): Promise<{ restarted: Promise<void> }> => {
      const t = await takeHeld();
      let answered = false;
      const sent = refund(t).finally(() => (answered = true));
      await until(
        async () => {
          const [recorded] = await crash.db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM transactions.events WHERE stream_id = $1 AND type = 'transaction.refundInitiated'`,
            [`transaction-${t.transactionId}`],
          );
          return recorded.n > 0 || answered ? true : undefined;
        },
        10_000,
        () => 'the refund recorded or answered',
        // As soon as it is committed, before its answer is back if it can be.
        0,
      );
      refunding.push(sent);
      return { restarted: crash.killAndRestart('transactions') };
    };

    /** The eleventh account's DELETE, sent just before virtual-accounts is killed: what it answered, and its status when the process died. */
    let deletion: { answer?: number; atKill?: string } | undefined;
    const deleteThenKill = async (): Promise<{ restarted: Promise<void> }> => {
      const sent: { answer?: number } = {};
      void call('DELETE', `/virtual-accounts/${deleted}`).then(
        (res) => (sent.answer = res.status),
        () => (sent.answer = 0),
      );
      // Killed as soon as the delete request is recorded (or answered), so the bank's close is likely not asked yet.
      const atKill = await until(
        async () => {
          const [row] = await crash.db.query<{ status: string }>(
            `SELECT status FROM virtual_accounts.accounts WHERE id = $1`,
            [deleted],
          );
          return row.status === 'deleting' || sent.answer !== undefined ? row.status : undefined;
        },
        10_000,
        () => 'the delete recorded or answered',
        // As soon as it is committed, before the bank is asked if it can be.
        0,
      );
      deletion = { answer: sent.answer, atKill };
      return { restarted: crash.killAndRestart('virtual-accounts') };
    };

    // The transfers, concurrently; the kills, the delete, the refunds and the clock's nudges at their counts.
    // No transfer is sent between a kill's count and the kill itself, so some always arrive while it is down.
    let answered = 0;
    let next = 0;
    const restarts: Array<Promise<unknown>> = [];
    let killed: Promise<unknown> = Promise.resolve();
    const worker = async () => {
      for (;;) {
        await killed;
        if (next >= TRANSFERS) return;
        const t = transfers[next++];
        await send(t);
        if (!t.transactionId) continue;
        answered++;
        if (REFUNDS_AT.includes(answered)) refunding.push(takeHeld().then(refund));
        for (const [after, name] of KILLS) {
          if (answered !== after) continue;
          // A kill (the SIGKILL is sent before killAndRestart's first await) and its restart.
          const kill =
            after === DELETE_BEFORE_KILL
              ? deleteThenKill()
              : after === REFUND_BEFORE_KILL
                ? refundThenKill()
                : Promise.resolve({ restarted: crash.killAndRestart(name) });
          killed = kill;
          restarts.push(kill.then((k) => k.restarted));
        }
        if (answered % NUDGE_EVERY === 0) await crash.advance(NUDGE_SECONDS);
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    await Promise.all([...restarts, ...refunding]);
    process.stdout.write(
      `virtual-account-crash: ${TRANSFERS} transfers answered in ${((Date.now() - started) / 1000).toFixed(1)} s, ${transfers.filter((t) => t.lost.length).length} after lost answers\n`,
    );
    expect(crash.problems).toEqual([]);
    expect(restarts).toHaveLength(KILLS.length);
    // The kills really were in the middle of it: some transfers had their answer lost and were sent again.
    expect(transfers.filter((t) => t.lost.length > 0).length).toBeGreaterThan(0);
    // Transfers went on while the transactions process was down: the virtual-accounts service answered them,
    // and their transactions were made from its log once the transactions process was back.
    const handedOver = crash.restartedLines('virtual-accounts', /the transactions service did not take it at once/);
    expect(handedOver).toBeGreaterThan(0);
    // Every transfer was answered with a transaction, each its own.
    expect(transfers.filter((t) => !t.transactionId).map((t) => t.n)).toEqual([]);
    expect(new Set(transfers.map((t) => t.transactionId)).size).toBe(TRANSFERS);
    // The operator's refunds were taken, each once (a lost answer replayed).
    expect(refunds).toHaveLength(REFUNDS_AT.length + 1);
    for (const r of refunds)
      expect({ n: r.transfer.n, answer: r.answer && { status: r.answer.status, result: r.answer.result } }).toEqual({
        n: r.transfer.n,
        answer: { status: 200, result: 'refunding' },
      });
    expect(deletion).toBeDefined();

    // The clock goes on past every rail until each transaction is where its amount (and the operator) put it.
    const final: Record<Outcome, [string, string | null]> = {
      completed: ['completed', null],
      refused: ['failed', 'failed.providerDeclined'],
      returned: ['failed', 'failed.inboundFailed'],
      underReview: ['processing', 'processing.underReview'],
      refunded: ['failed', 'failed.returnedToSender'],
    };
    const views = await crash.settle(transfers, [customer], final, 61);
    // None is left in plain processing once the clock passed every rail.
    expect(
      [...views.values()]
        .filter((v) => v.status === 'processing' && v.subStatus !== 'processing.underReview')
        .map((v) => v.id),
    ).toEqual([]);

    // Each transfer made exactly one transaction, and nothing else was made.
    expect([...views.keys()].sort()).toEqual(transfers.map((t) => t.transactionId!).sort());
    for (const t of transfers) {
      const res = await call('GET', `/transactions/${t.transactionId}`);
      const v = res.body;
      const legs = (kind: string) =>
        v.legs.filter((l: any) => l.kind === kind).map((l: any) => [l.rail, l.asset, l.amount, l.status]);
      const deposited = t.expected === 'refused' ? 'failed' : t.expected === 'returned' ? 'failed' : 'settled';
      expect({
        n: t.n,
        status: res.status,
        outcome: [v.status, v.subStatus],
        customer: v.customerId,
        precursor: v.precursor,
        amount: v.pricing.source.amountGross,
        deposit: legs('deposit'),
        payouts: legs('payout'),
        refunds: legs('refund'),
        refund: v.error?.refund ? [v.error.refund.status, v.error.refund.amount] : null,
      }).toEqual({
        n: t.n,
        status: 200,
        outcome: final[t.expected],
        customer,
        precursor: { type: 'virtualAccount', id: accounts[t.account] },
        amount: t.amount,
        deposit: [[rail(t.account), 'usd', t.amount, deposited]],
        payouts:
          t.expected === 'completed'
            ? [['crypto', 'usdc', t.amount, 'settled']]
            : t.expected === 'underReview' || t.expected === 'refunded'
              ? [['crypto', 'usdc', t.amount, 'failed']]
              : [],
        refunds: t.expected === 'refunded' ? [['ach', 'usd', t.amount, 'settled']] : [],
        refund: t.expected === 'refunded' ? ['completed', t.amount] : null,
      });
    }

    const db = crash.db;
    // The virtual-accounts service recorded each transfer once, to the account it was sent to; none to the deleted one.
    const recorded = await db.query<{
      transaction_id: string;
      virtual_account_id: string;
      amount: string;
      rail: string;
      disposition: string;
    }>(
      `SELECT transaction_id, virtual_account_id, amount::text AS amount, rail, disposition FROM virtual_accounts.deposits`,
    );
    expect(recorded.map((r) => r.transaction_id).sort()).toEqual(transfers.map((t) => t.transactionId!).sort());
    const byTransaction = new Map(recorded.map((r) => [r.transaction_id, r]));
    for (const t of transfers) {
      const r = byTransaction.get(t.transactionId!)!;
      expect({
        n: t.n,
        account: r.virtual_account_id,
        amount: units(r.amount),
        rail: r.rail,
        disposition: r.disposition,
      }).toEqual({
        n: t.n,
        account: accounts[t.account],
        amount: units(t.amount),
        rail: rail(t.account),
        disposition: 'deliver',
      });
    }
    const received = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM virtual_accounts.events WHERE type = 'virtualAccount.depositReceived'`,
    );
    expect(received[0].n).toBe(TRANSFERS);

    // The transactions service made each transaction once; started one delivery per delivered transfer (no
    // operator retried any) and one refund per refunded one; ended each leg once.
    /** How many events of this kind each transaction's stream has. */
    const perStream = async (where: string) =>
      (
        await db.query<{ stream_id: string; n: number }>(
          `SELECT stream_id, count(*)::int AS n FROM transactions.events WHERE ${where} GROUP BY stream_id`,
        )
      )
        .map((r) => [r.stream_id, r.n])
        .sort();
    const once = (xs: Transfer[]) => xs.map((t) => [`transaction-${t.transactionId}`, 1]).sort();
    expect(await perStream(`type = 'transaction.created'`)).toEqual(once(transfers));
    const delivered = transfers.filter((t) => ['completed', 'underReview', 'refunded'].includes(t.expected));
    expect(await perStream(`type = 'transaction.legInitiated' AND data->'leg'->>'kind' = 'payout'`)).toEqual(
      once(delivered),
    );
    const refunded = transfers.filter((t) => t.expected === 'refunded');
    expect(await perStream(`type = 'transaction.refundInitiated'`)).toEqual(once(refunded));
    const legEnds = await db.query<{ leg: string; n: number }>(
      `SELECT stream_id || '/' || (data->>'legId') AS leg, count(*)::int AS n FROM transactions.events WHERE type IN ('transaction.legSettled', 'transaction.legFailed') GROUP BY 1 HAVING count(*) > 1`,
    );
    expect(legEnds).toEqual([]);

    // The ledger, once the accounts service has posted every settled deposit, delivery and refund.
    const completed = transfers.filter((t) => t.expected === 'completed');
    const held = transfers.filter((t) => t.expected === 'underReview');
    const depositsIn = [...completed, ...held, ...refunded];
    const postingsOf = async () =>
      (
        await db.query<{ deposits: number; payouts: number; refunds: number }>(
          `SELECT count(DISTINCT posting_id) FILTER (WHERE posting_id LIKE '%:deposit:%')::int AS deposits,
                count(DISTINCT posting_id) FILTER (WHERE posting_id LIKE '%:payout:%')::int AS payouts,
                count(DISTINCT posting_id) FILTER (WHERE posting_id LIKE '%:refund:%')::int AS refunds
           FROM accounts.ledger_entries`,
        )
      )[0];
    await until(
      async () => {
        const counts = await postingsOf();
        return counts.deposits === depositsIn.length &&
          counts.payouts === completed.length &&
          counts.refunds === refunded.length
          ? true
          : undefined;
      },
      30_000,
      () => 'every settled deposit, delivery and refund posted',
    );
    // Every posting sums to zero in each asset.
    expect(
      await db.query(
        `SELECT posting_id, asset, sum(amount)::text AS total FROM accounts.ledger_entries GROUP BY posting_id, asset HAVING sum(amount) <> 0`,
      ),
    ).toEqual([]);
    expect(
      await db.query(
        `SELECT asset, sum(amount)::text AS total FROM accounts.ledger_entries GROUP BY asset HAVING sum(amount) <> 0`,
      ),
    ).toEqual([]);
    // Each transaction's postings: its deposit once; a completed one's conversion and delivery once each, a
    // refunded one's refund once; nothing else, and nothing for a transfer the bank refused or returned.
    const postings = await db.query<{ posting_id: string; entries: number }>(
      `SELECT posting_id, count(*)::int AS entries FROM accounts.ledger_entries GROUP BY posting_id`,
    );
    const steps = new Map<string, string[]>();
    for (const p of postings) {
      const [transactionId, step] = p.posting_id.split(':');
      steps.set(transactionId, [...(steps.get(transactionId) ?? []), `${step}/${p.entries}`].sort());
    }
    expect([...steps.keys()].sort()).toEqual(depositsIn.map((t) => t.transactionId!).sort());
    const expectedSteps: Record<Outcome, string[] | undefined> = {
      completed: ['convert/2', 'deposit/2', 'payout/2'],
      underReview: ['deposit/2'],
      refunded: ['deposit/2', 'refund/2'],
      refused: undefined,
      returned: undefined,
    };
    for (const t of transfers)
      expect({ n: t.n, expected: t.expected, steps: steps.get(t.transactionId!) }).toEqual({
        n: t.n,
        expected: t.expected,
        steps: expectedSteps[t.expected],
      });
    // Each transit account: empty once the transaction ended, exactly the deposit while held.
    const transit = new Map(
      (
        await db.query<{ account: string; total: string }>(
          `SELECT account, sum(amount)::text AS total FROM accounts.ledger_entries WHERE account LIKE 'transit:%' GROUP BY account`,
        )
      ).map((r) => [r.account, units(r.total)]),
    );
    for (const t of transfers) {
      expect({ n: t.n, expected: t.expected, transit: transit.get(`transit:${t.transactionId}`) ?? 0n }).toEqual({
        n: t.n,
        expected: t.expected,
        transit: t.expected === 'underReview' ? units(t.amount) : 0n,
      });
    }
    // Each bank rail gave what was deposited on it and took back what was refunded (on ach); the wallet got
    // what completed, once; the conversion desk nets to nothing.
    const sum = (xs: Transfer[]) => xs.reduce((total, t) => total + units(t.amount), 0n);
    const accountsTotals = Object.fromEntries(
      (
        await db.query<{ account: string; total: string }>(
          `SELECT account, sum(amount)::text AS total FROM accounts.ledger_entries WHERE account NOT LIKE 'transit:%' GROUP BY account`,
        )
      ).map((r) => [r.account, units(r.total)]),
    );
    expect(accountsTotals).toEqual({
      'rail:usd:ach': -sum(depositsIn.filter((t) => rail(t.account) === 'ach')) + sum(refunded),
      'rail:usd:wire': -sum(depositsIn.filter((t) => rail(t.account) === 'wire')),
      'conversion:usd': sum(completed),
      'conversion:usdc': -sum(completed),
      [`wallet:${walletId}`]: sum(completed),
    });
    const balance = await call('GET', `/wallets/${walletId}/balance`);
    expect(units(balance.body.data.balance)).toBe(sum(completed));

    // The delete in flight across the crash ends: deleted, or the account as it was; never left deleting.
    // The service's delete sweeper looks every 600 s of project time.
    const ended = await until(
      async () => {
        await crash.advance(301);
        const status = (await call('GET', `/virtual-accounts/${deleted}`)).body?.status;
        return status === 'deleted' || status === 'active' ? status : undefined;
      },
      60_000,
      () => `the deleted account's delete ended (answered ${deletion?.answer}, ${deletion?.atKill} when killed)`,
    );
    expect(['deleted', 'active']).toContain(ended);
    // A delete recorded before the kill is finished by the service: deleted.
    if (deletion!.atKill === 'deleting') expect(ended).toBe('deleted');

    process.stdout.write(
      `virtual-account-crash: ${completed.length} completed, ${held.length} held for review, ${refunded.length} refunded, ${transfers.filter((t) => t.expected === 'refused').length} refused, ${
        transfers.filter((t) => t.expected === 'returned').length
      } returned; the delete answered ${deletion!.answer ?? 'nothing'}, was ${deletion!.atKill} at the kill, ended ${ended}; refunds: ${refunds
        .map((r) => `#${r.transfer.n} ${r.lost.length} lost${r.answer?.replayed ? ' (replayed)' : ''}`)
        .join(', ')}; lost answers: ${transfers
        .filter((t) => t.lost.length)
        .map((t) => `#${t.n} ${t.lost.length} × ${[...new Set(t.lost)].join(',')}${t.replayed ? ' (replayed)' : ''}`)
        .join('; ')}; ${handedOver} made from the log\n`,
    );
  },
  3 * START_TIMEOUT_MS,
);
