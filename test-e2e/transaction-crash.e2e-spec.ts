// Spec: Transaction, States / Transaction, rules 2 and 6 (Idempotency-Key);
// docs/sandbox.md (magic cents); ARCHITECTURE: a crash leaves either everything
// or nothing, and the double-entry ledger behind every wallet balance. The
// platform process as `npm start` runs it is killed outright (SIGKILL) while
// wallet-to-wallet transfers are in flight, then started again on the same
// data: every request whose answer was lost is retried with the same
// Idempotency-Key and body, every transfer ends terminal exactly once, and the
// ledger read straight from the database balances, matches every wallet and
// conserves the money funded.
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { freeLoopbackPort } from '@mm/runtime/platform';
import { prng, units } from './support/crash-run';
import { START_TIMEOUT_MS } from './support/distributed-processes';
import {
  dataDirs,
  newDataDir,
  platformDatabase,
  start,
  stop,
  stopEverything,
  token,
  until,
  type Launched,
} from './support/platform-process';

/** The mix is the same on every run. */
const SEED = 0x5eed_2024;
const TRANSFERS = 240;
const CONCURRENCY = 12;
/** Kill once this many transfers have been answered: with the others in flight. */
const KILL_AFTER = 90;
/** Before the kill, every this many answered transfers the clock moves on a little, so payouts settle while transfers are made. */
const NUDGE_EVERY = 30;
/** Seconds of each nudge: past the chain's 5 s settlement, well inside the quotes' 60 s. */
const NUDGE_SECONDS = 6;
/** The second kill: this long after the clock is advanced past every payout, while the due timers fire. */
const SETTLEMENT_KILL_AFTER_MS = 300;
const SENDERS = 4;
const RECEIVERS = 3;
const WALLETS_PER_RECEIVER = 2;
/** Each sender's source wallet: more than its transfers can take (at most 60 × 40.99). */
const FUNDING = '5000.00';
const TERMINAL = ['completed', 'failed'];

type Outcome = 'completed' | 'returnedToSender' | 'outboundFailed';

interface Transfer {
  n: number;
  senderId: string;
  sourceWalletId: string;
  destinationWalletId: string;
  amount: string;
  expected: Outcome;
  quoteKey: string;
  transactionKey: string;
  quoteId?: string;
  transactionId?: string;
  /** The request whose answer was lost to the kill, if any. */
  unknown?: 'quote' | 'transaction';
  /** How the retry of that request was answered (status, and whether it was a stored replay). */
  retried?: string;
}

interface Answer {
  status: number;
  body: any;
  replayed: boolean;
}

async function call(
  url: string,
  bearer: string,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
): Promise<Answer> {
  const res = await fetch(`${url}/v0.13${path}`, {
    method,
    headers: {
      authorization: `Bearer ${bearer}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(method === 'POST' ? { 'idempotency-key': key ?? randomUUID() } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: await res.json().catch(() => undefined),
    replayed: res.headers.get('idempotent-replayed') === 'true',
  };
}

/** The embedded PostgreSQL of a data directory, as the platform reaches it (its port is in postmaster.pid). */
function embeddedDatabaseUrl(dataDir: string): string {
  const password = readFileSync(join(dataDir, 'pg-password'), 'utf8').trim();
  const port = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/money_movement`;
}

afterAll(async () => {
  await stopEverything();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}, START_TIMEOUT_MS);

test(
  'SIGKILL while transfers are in flight: after a restart and retries with the same keys, each transfer ends once and the ledger balances',
  async () => {
    const random = prng(SEED);
    const dataDir = newDataDir();
    const port = String(await freeLoopbackPort());
    const database = await platformDatabase();
    let platform: Launched = await start(dataDir, { PORT: port, ...database });
    let bearer = await token(platform.url);
    const post = async (path: string, body: unknown) => {
      const res = await call(platform.url, bearer, 'POST', path, body);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: path.startsWith('/sandbox/') ? 200 : 201,
        body: expect.anything(),
      });
      return res.body;
    };

    /** A customer who may hold wallets: its cryptoCustody endorsement active (the sandbox approves it a moment later). */
    const custodian = async (firstName: string, lastName: string) => {
      const customer = await post('/customers', {
        type: 'individual',
        firstName,
        lastName,
        endorsements: ['cryptoCustody'],
      });
      await until(
        async () =>
          (await call(platform.url, bearer, 'GET', `/customers/${customer.id}`)).body.endorsements[0].status ===
          'active'
            ? true
            : undefined,
        30_000,
        () => `customer ${customer.id}'s cryptoCustody endorsement active`,
      );
      return customer;
    };

    // Senders with a funded source wallet each; receivers with destination wallets.
    const senders: Array<{ customerId: string; walletId: string }> = [];
    for (let i = 0; i < SENDERS; i++) {
      const customer = await custodian('Sender', `Crash${i}`);
      const wallet = await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' });
      await post(`/sandbox/wallets/${wallet.id}/fund`, { amount: FUNDING });
      senders.push({ customerId: customer.id, walletId: wallet.id });
    }
    const destinations: string[] = [];
    for (let i = 0; i < RECEIVERS; i++) {
      const customer = await custodian('Receiver', `Crash${i}`);
      for (let w = 0; w < WALLETS_PER_RECEIVER; w++)
        destinations.push(
          (await post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' })).id,
        );
    }
    const totalFunded = units(FUNDING) * BigInt(SENDERS);

    // The seeded mix: one in six declined (.91, refunded), one in eight failed after sending (.92), the rest plain.
    const transfers: Transfer[] = Array.from({ length: TRANSFERS }, (_, n) => {
      const sender = senders[Math.floor(random() * SENDERS)];
      const destinationWalletId = destinations[Math.floor(random() * destinations.length)];
      const whole = 1 + Math.floor(random() * 40);
      const pick = random();
      const [cents, expected]: [number, Outcome] =
        pick < 1 / 6
          ? [91, 'returnedToSender']
          : pick < 1 / 6 + 1 / 8
            ? [92, 'outboundFailed']
            : [Math.floor(random() * 90), 'completed'];
      return {
        n,
        senderId: sender.customerId,
        sourceWalletId: sender.walletId,
        destinationWalletId,
        amount: `${whole}.${String(cents).padStart(2, '0')}`,
        expected,
        quoteKey: `crash-quote-${SEED}-${n}-${randomUUID()}`,
        transactionKey: `crash-txn-${SEED}-${n}-${randomUUID()}`,
      };
    });

    const problems: string[] = [];
    /** Lists every transaction of a customer (either side), page by page. */
    const listed = async (
      customerId: string,
    ): Promise<Array<{ id: string; precursor: { id: string }; status: string; subStatus: string | null }>> => {
      const all = [];
      for (let cursor: string | null = null; ;) {
        const page = await call(
          platform.url,
          bearer,
          'GET',
          `/transactions?customerId=${customerId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(page.status).toBe(200);
        all.push(...page.body.data);
        cursor = page.body.nextCursor;
        if (!page.body.hasMore) break;
      }
      return all;
    };
    /** A key whose first request may still hold its lock in a dying database session: retry shortly (409 IdempotencyKeyInFlight). */
    const postKeyed = async (path: string, body: unknown, key: string): Promise<Answer> => {
      for (let attempt = 0; ; attempt++) {
        const res = await call(platform.url, bearer, 'POST', path, body, key);
        if (res.status !== 409 || res.body?.error !== 'IdempotencyKeyInFlight' || attempt >= 50) return res;
        await new Promise((r) => setTimeout(r, 200));
      }
    };

    /**
     * Takes a transfer from wherever it is to a transaction: its quote (unless it has one), then the
     * transaction, each with the transfer's own key and body. A request whose answer never came
     * (the process died) marks the transfer unknown at that step and throws.
     */
    const advance = async (t: Transfer): Promise<void> => {
      const retrying = t.unknown;
      const step = async (
        which: 'quote' | 'transaction',
        path: string,
        body: unknown,
        key: string,
      ): Promise<Answer> => {
        let res: Answer;
        try {
          res = await postKeyed(path, body, key);
        } catch (error) {
          t.unknown = which;
          throw error;
        }
        if (retrying === which)
          t.retried = `${which} ${res.status}${res.replayed ? ' replayed' : ''}${res.body?.error ? ` ${res.body.error}` : ''}`;
        t.unknown = undefined;
        return res;
      };
      if (!t.quoteId) {
        const res = await step(
          'quote',
          '/quotes',
          {
            customerId: t.senderId,
            source: { type: 'walletOms', details: { id: t.sourceWalletId }, amount: t.amount },
            destination: { type: 'walletOms', details: { id: t.destinationWalletId } },
          },
          t.quoteKey,
        );
        if (res.status !== 201) {
          problems.push(`transfer ${t.n}: POST /quotes answered ${res.status} ${JSON.stringify(res.body)}`);
          return;
        }
        t.quoteId = res.body.id;
      }
      const res = await step('transaction', '/transactions', { quoteId: t.quoteId }, t.transactionKey);
      if (res.status === 201) {
        t.transactionId = res.body.id;
        return;
      }
      if (res.status === 409 && res.body?.error === 'QuoteAlreadyAccepted') {
        // The first attempt committed without its stored answer: the list finds its transaction.
        const found = (await listed(t.senderId)).filter((x) => x.precursor.id === t.quoteId);
        if (found.length === 1) t.transactionId = found[0].id;
        else
          problems.push(
            `transfer ${t.n}: QuoteAlreadyAccepted for ${t.quoteId}, but ${found.length} transactions of it listed`,
          );
        return;
      }
      problems.push(`transfer ${t.n}: POST /transactions answered ${res.status} ${JSON.stringify(res.body)}`);
    };

    // Phase 1: transfers in flight, concurrently, until the kill.
    let answered = 0;
    let killed = false;
    let next = 0;
    const worker = async () => {
      while (next < TRANSFERS && !killed) {
        const t = transfers[next++];
        try {
          await advance(t);
        } catch {
          // the process is gone: its answer is lost (t.unknown says at which step)
          continue;
        }
        if (++answered === KILL_AFTER) {
          killed = true;
          const exit = await stop(platform, 'SIGKILL');
          expect(exit.signal).toBe('SIGKILL');
        } else if (answered % NUDGE_EVERY === 0) {
          await call(platform.url, bearer, 'POST', '/sandbox/clock/advance', { seconds: NUDGE_SECONDS }).catch(
            () => undefined,
          );
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(killed).toBe(true);
    const lost = transfers.filter((t) => t.unknown).map((t) => ({ t, step: t.unknown }));
    // The kill really was in the middle of it: answers were lost, and more transfers were still to come.
    expect(lost.length).toBeGreaterThan(0);
    expect(next).toBeLessThan(TRANSFERS);

    // Phase 2: the same data directory; every lost request again with its key and body, then the rest.
    platform = await start(dataDir, { PORT: port, ...database });
    bearer = await token(platform.url);
    const remaining = transfers.filter(
      (t) => !t.transactionId && !problems.some((p) => p.startsWith(`transfer ${t.n}:`)),
    );
    let cursor = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (cursor < remaining.length) {
          const t = remaining[cursor++];
          try {
            await advance(t);
          } catch (error) {
            problems.push(
              `transfer ${t.n}: ${t.unknown} request failed after the restart: ${(error as Error).message}`,
            );
          }
        }
      }),
    );
    expect(problems).toEqual([]);
    for (const { t } of lost)
      expect({ n: t.n, retried: t.retried }).toEqual({
        n: t.n,
        retried: expect.stringMatching(/^(quote 201|transaction 201|transaction 409 QuoteAlreadyAccepted)/),
      });
    expect(transfers.filter((t) => !t.transactionId).map((t) => t.n)).toEqual([]);
    expect(new Set(transfers.map((t) => t.transactionId)).size).toBe(TRANSFERS);

    // The rails answer on the project's clock: it moves past every payout, and the process is killed
    // again while the timers that fell due fire (legs settle, refunds start, wallets are credited).
    const settling = call(platform.url, bearer, 'POST', '/sandbox/clock/advance', { seconds: 60 }).catch(
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, SETTLEMENT_KILL_AFTER_MS));
    expect((await stop(platform, 'SIGKILL')).signal).toBe('SIGKILL');
    await settling;
    platform = await start(dataDir, { PORT: port, ...database });
    bearer = await token(platform.url);

    // Then the clock goes on until every transaction is terminal.
    const views = new Map<string, any>();
    await until(
      async () => {
        // A 503 (the machine slow: retry shortly) is followed by the next round's advance.
        expect([200, 503]).toContain(
          (await call(platform.url, bearer, 'POST', '/sandbox/clock/advance', { seconds: 60 })).status,
        );
        for (const sender of senders) for (const x of await listed(sender.customerId)) views.set(x.id, x);
        return transfers.every((t) => TERMINAL.includes(views.get(t.transactionId!)?.status)) ? true : undefined;
      },
      40_000,
      () =>
        `${transfers.filter((t) => !TERMINAL.includes(views.get(t.transactionId!)?.status)).length} transactions not terminal`,
    );

    // Each transfer made exactly one transaction, and nothing else was made.
    expect([...views.keys()].sort()).toEqual(transfers.map((t) => t.transactionId!).sort());
    const subStatus: Record<Outcome, [string, string | null]> = {
      completed: ['completed', null],
      returnedToSender: ['failed', 'failed.returnedToSender'],
      outboundFailed: ['failed', 'failed.outboundFailed'],
    };
    const byId = new Map<string, any>();
    for (const t of transfers) {
      const res = await call(platform.url, bearer, 'GET', `/transactions/${t.transactionId}`);
      byId.set(t.transactionId!, res.body);
      expect({
        n: t.n,
        amount: t.amount,
        status: res.status,
        outcome: [res.body?.status, res.body?.subStatus],
        quote: res.body?.precursor?.id,
      }).toEqual({
        n: t.n,
        amount: t.amount,
        status: 200,
        outcome: subStatus[t.expected],
        quote: t.quoteId,
      });
      expect(res.body.pricing.source.amountGross).toBe(t.amount);
      // Its quote is accepted by it, and by nothing else.
      const quote = await call(platform.url, bearer, 'GET', `/quotes/${t.quoteId}`);
      expect({ n: t.n, status: quote.status, quote: [quote.body?.status, quote.body?.transactionId] }).toEqual({
        n: t.n,
        status: 200,
        quote: ['accepted', t.transactionId],
      });
    }

    // The ledger, read straight from the database, once the accounts service has posted every settlement.
    const db = new Client({ connectionString: database.DATABASE_URL ?? embeddedDatabaseUrl(dataDir) });
    await db.connect();
    try {
      const entries = async (postingId: string) =>
        (
          await db.query<{ account: string; amount: string }>(
            `SELECT account, amount::text AS amount FROM accounts.ledger_entries WHERE posting_id = $1 ORDER BY entry_no`,
            [postingId],
          )
        ).rows;
      const payoutPosting = (t: Transfer) => {
        const leg = byId.get(t.transactionId!).legs.find((l: { kind: string }) => l.kind === 'payout');
        return `${t.transactionId}:payout:${leg.id}`;
      };
      await until(
        async () => {
          const { rows } = await db.query<{ posting_id: string }>(
            `SELECT DISTINCT posting_id FROM accounts.ledger_entries WHERE posting_id = ANY($1)`,
            [transfers.filter((t) => t.expected === 'completed').map(payoutPosting)],
          );
          return rows.length === transfers.filter((t) => t.expected === 'completed').length ? true : undefined;
        },
        20_000,
        () => 'payouts of completed transactions not yet credited',
      );

      // Every posting sums to zero, in each asset.
      const unbalanced = await db.query(
        `SELECT posting_id, asset, sum(amount)::text AS total FROM accounts.ledger_entries GROUP BY posting_id, asset HAVING sum(amount) <> 0`,
      );
      expect(unbalanced.rows).toEqual([]);

      // Every wallet's balance is at least zero and is the sum of its ledger entries.
      const wallets = await db.query<{ id: string; balance: string; ledger: string }>(
        `SELECT w.id, w.balance::text AS balance, coalesce(sum(e.amount), 0)::text AS ledger
         FROM accounts.wallets w LEFT JOIN accounts.ledger_entries e ON e.account = 'wallet:' || w.id
        GROUP BY w.id, w.balance ORDER BY w.id`,
      );
      expect(wallets.rows).toHaveLength(SENDERS + destinations.length);
      for (const w of wallets.rows) {
        expect({ wallet: w.id, negative: units(w.balance) < 0n, ledger: units(w.ledger) }).toEqual({
          wallet: w.id,
          negative: false,
          ledger: units(w.balance),
        });
      }

      // Each wallet holds exactly what the outcomes say: a source loses what completed or is held, a destination gains what completed.
      const expectedBalance = new Map<string, bigint>(senders.map((s) => [s.walletId, units(FUNDING)]));
      for (const id of destinations) expectedBalance.set(id, 0n);
      for (const t of transfers) {
        const amount = units(t.amount);
        if (t.expected !== 'returnedToSender')
          expectedBalance.set(t.sourceWalletId, expectedBalance.get(t.sourceWalletId)! - amount);
        if (t.expected === 'completed')
          expectedBalance.set(t.destinationWalletId, expectedBalance.get(t.destinationWalletId)! + amount);
      }
      expect(Object.fromEntries(wallets.rows.map((w) => [w.id, units(w.balance)]))).toEqual(
        Object.fromEntries(expectedBalance),
      );

      // Each transaction's transit account: empty once completed or returned, the source amount while held.
      const transit = new Map(
        (
          await db.query<{ account: string; total: string }>(
            `SELECT account, sum(amount)::text AS total FROM accounts.ledger_entries WHERE account LIKE 'transit:%' GROUP BY account`,
          )
        ).rows.map((r) => [r.account, units(r.total)]),
      );
      // No money was pulled for a transaction that does not exist.
      expect([...transit.keys()].sort()).toEqual(transfers.map((t) => `transit:${t.transactionId}`).sort());
      for (const t of transfers) {
        expect({ n: t.n, expected: t.expected, transit: transit.get(`transit:${t.transactionId}`) }).toEqual({
          n: t.n,
          expected: t.expected,
          transit: t.expected === 'outboundFailed' ? units(t.amount) : 0n,
        });
      }

      // Each step of a transaction posted once: the pull from the source, then the credit of the destination
      // (completed) or the refund to the source (returned); a failed payout credits no one.
      for (const t of transfers) {
        const amount = units(t.amount);
        const view = byId.get(t.transactionId!);
        const pull = await entries(`${t.transactionId}:pull`);
        expect({ n: t.n, pull: pull.map((e) => [e.account, units(e.amount)]) }).toEqual({
          n: t.n,
          pull: [
            [`wallet:${t.sourceWalletId}`, -amount],
            [`transit:${t.transactionId}`, amount],
          ],
        });
        const payout = await entries(payoutPosting(t));
        const credited = payout
          .filter((e) => e.account === `wallet:${t.destinationWalletId}`)
          .map((e) => units(e.amount));
        expect({ n: t.n, expected: t.expected, credited }).toEqual({
          n: t.n,
          expected: t.expected,
          credited: t.expected === 'completed' ? [amount] : [],
        });
        const refundLegs = view.legs.filter((l: { kind: string }) => l.kind === 'refund');
        expect({ n: t.n, refunds: refundLegs.length }).toEqual({
          n: t.n,
          refunds: t.expected === 'returnedToSender' ? 1 : 0,
        });
        for (const leg of refundLegs) {
          const refund = await entries(`${t.transactionId}:refund:${leg.id}`);
          expect({
            n: t.n,
            refund: refund.filter((e) => e.account === `wallet:${t.sourceWalletId}`).map((e) => units(e.amount)),
          }).toEqual({ n: t.n, refund: [amount] });
        }
      }
      // No wallet was credited by a transaction twice, under any posting id.
      const twice = await db.query(
        `SELECT account, reason, count(*)::int AS n FROM accounts.ledger_entries
        WHERE account LIKE 'wallet:%' AND amount > 0 AND reason LIKE 'transaction %' GROUP BY account, reason HAVING count(*) > 1`,
      );
      expect(twice.rows).toEqual([]);

      // Money is conserved: what the wallets, transits, rails and conversion desks hold is what sandbox funding put in.
      const [totals] = (
        await db.query<{ wallets: string; transit: string; rails: string; funded: string }>(
          `SELECT (SELECT coalesce(sum(balance), 0) FROM accounts.wallets)::text AS wallets,
                (SELECT coalesce(sum(amount), 0) FROM accounts.ledger_entries WHERE account LIKE 'transit:%')::text AS transit,
                (SELECT coalesce(sum(amount), 0) FROM accounts.ledger_entries WHERE account LIKE 'rail:%' OR account LIKE 'conversion:%')::text AS rails,
                (SELECT coalesce(-sum(amount), 0) FROM accounts.ledger_entries WHERE account LIKE 'sandbox-funding:%')::text AS funded`,
        )
      ).rows;
      expect(units(totals.funded)).toBe(totalFunded);
      expect(units(totals.wallets) + units(totals.transit) + units(totals.rails)).toBe(totalFunded);
      // And no account outside those kinds holds anything.
      const other = await db.query(
        `SELECT DISTINCT account FROM accounts.ledger_entries WHERE account !~ '^(wallet|transit|rail|conversion|sandbox-funding):'`,
      );
      expect(other.rows).toEqual([]);
    } finally {
      await db.end();
    }
    await stop(platform, 'SIGTERM');
  },
  2 * START_TIMEOUT_MS,
);
