// Spec: rule 3 (a deposit's transaction, once, however often its event arrives), on a real PostgreSQL.
// The transaction of an inbound transfer (and of a crypto deposit, and of a cash-in) is made twice over:
// by the transactions port, right after the other service's commit, and by the log reader that reads the
// other service's event. Whichever appends second loses; when the two overlap, the loser's append waits
// for the winner's commit and then fails on the unique (stream, version) key, which aborts the whole
// database transaction it runs in. In the log reader that transaction is a batch of events and the
// checkpoint: it must go on past the lost race, not roll back and read the batch again.
import type { VirtualAccountDepositReceived } from '@mm/contracts';
import type { AccountsPort } from '@mm/contracts';
import { ChainNetworks } from '@mm/platform/chain';
import { ProjectClock, TimerService } from '@mm/platform/clock';
import { loadConfig } from '@mm/platform/config';
import type { RecordedEvent } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { createTestDatabase, type TestDatabase } from '@mm/platform/testing';
import { HttpMetrics } from '@mm/platform/http';
import {
  ChainPayoutRail,
  RailSubmissions,
  SandboxRails,
  TransactionStatusMetrics,
  TransactionsReadModel,
} from '@mm/transactions/infrastructure';
import { DepositTransactionsHandler } from './deposit-transactions.handler';
import { LegAccountChecks } from './leg-account-checks';
import { MadeTransactions, RecentIds } from './made-transactions';
import { TransactionCommands } from './transaction.commands';
import { TransactionTimerService } from './transaction.timers';
import { TransactionsEventStore } from './transactions.event-store';

const zero = { total: '0.00', developer: '0.00', gas: '0.00', meridian: '0.00' };

function inboundTransfer(projectId: string): VirtualAccountDepositReceived {
  const customer = { relationship: 'customer', customerId: newId('customer'), entityType: 'individual' } as const;
  return {
    virtualAccountId: newId('virtualAccount'),
    projectId,
    customerId: customer.customerId,
    transactionId: newId('transaction'),
    deposit: { asset: 'usd', rail: 'ach', amount: '125.50', senderName: 'Acme Payroll', reference: 'TRACE0001' },
    disposition: 'deliver',
    target: {
      destination: {
        type: 'walletExternal',
        category: 'crypto',
        details: { id: newId('externalAccount'), asset: 'usdc', network: 'ethereum', address: '0xdest' },
        party: customer,
      },
      payout: null,
      pricing: {
        source: { asset: 'usd', amountGross: '125.50', amountNet: '125.50', feesDeducted: zero },
        destination: { asset: 'usdc', amountGross: '125.50', amountNet: '125.50', feesDeducted: zero },
        pair: 'usd/usdc',
        exchangeRate: '1.00',
        effectiveRate: '1.00',
        fixedAmountSide: 'source',
        sponsorGas: true,
        sponsorGasCost: '0.00',
      },
    },
    returnTo: { externalAccountId: newId('externalAccount'), rail: 'ach' },
    metadata: {},
    at: new Date().toISOString(),
  };
}

/** Polls until check answers true (no fixed sleeps). */
async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("a transaction made once from another service's event", () => {
  let db: TestDatabase;
  let transactions: DepositTransactionsHandler;
  let store: TransactionsEventStore;
  /** Another process's transactions service, on the same database. */
  let elsewhere: DepositTransactionsHandler;
  const projectId = newId('project');

  /** A transactions service on this database, with a store of its own (as each process has). */
  function service(eventStore: TransactionsEventStore): DepositTransactionsHandler {
    // Making a deposit's transaction asks no other service: their ports are not called here.
    const unused = {} as never;
    const clock = new ProjectClock(db.uow);
    const timerService = new TimerService(db.uow, clock);
    const timers = new TransactionTimerService(timerService);
    // No network on a chain: every leg is the sandbox rail's.
    const chains = new ChainNetworks(loadConfig({}), db.uow);
    const commands = new TransactionCommands(
      eventStore,
      new TransactionsReadModel(db.uow),
      new SandboxRails(db.uow, timerService, chains),
      new RailSubmissions(db.uow),
      clock,
      timers,
      new ChainPayoutRail(db.uow, chains, loadConfig({})),
      new TransactionStatusMetrics(db.uow, new HttpMetrics()),
      db.uow,
    );
    return new DepositTransactionsHandler(
      db.uow,
      commands,
      new MadeTransactions(commands),
      new LegAccountChecks(unused as AccountsPort),
    );
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    store = new TransactionsEventStore(db.uow);
    transactions = service(store);
    elsewhere = service(new TransactionsEventStore(db.uow));
  });
  afterAll(() => db.close());

  const received = (deposit: VirtualAccountDepositReceived) =>
    ({ data: deposit }) as RecordedEvent<'virtualAccount.depositReceived', VirtualAccountDepositReceived>;
  const rowsOf = async (transactionId: string) =>
    (
      await db.uow.query<{ rows: number }>(
        `SELECT count(*)::int AS rows FROM transactions.transactions WHERE id = $1`,
        [transactionId],
      )
    )[0].rows;
  const eventsOf = async (transactionId: string) =>
    (
      await db.uow.query<{ events: number }>(
        `SELECT count(*)::int AS events FROM transactions.events WHERE stream_id = $1`,
        [`transaction-${transactionId}`],
      )
    )[0].events;

  /** Whether a session waits on a lock in an append to the transactions' log (the other side's uncommitted insert). */
  async function appendWaits(): Promise<boolean> {
    const [{ waiting }] = await db.uow.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%transactions.events%'`,
    );
    return waiting > 0;
  }

  it("lets the log reader's batch go on when the port made the transaction while the reader was making it too", async () => {
    const deposit = inboundTransfer(projectId);
    const event = { data: deposit } as RecordedEvent<'virtualAccount.depositReceived', VirtualAccountDepositReceived>;
    let commitPort!: () => void;
    const portMayCommit = new Promise<void>((resolve) => (commitPort = resolve));
    let portAppended!: () => void;
    const appended = new Promise<void>((resolve) => (portAppended = resolve));
    // The port's transaction: the transaction made, not yet committed.
    const port = db.uow.run(async () => {
      await transactions.createForVirtualAccount(projectId, deposit);
      portAppended();
      await portMayCommit;
    });
    await appended;
    // The log reader's batch: the same transaction made from the event, then what follows it in the
    // batch (the next event's statements, the checkpoint), here one more statement.
    const reader = db.uow.run(async () => {
      await transactions.onVirtualAccountDeposit(event);
      const [{ events }] = await db.uow.query<{ events: number }>(
        `SELECT count(*)::int AS events FROM transactions.events WHERE stream_id = $1`,
        [`transaction-${deposit.transactionId}`],
      );
      return events;
    });
    // The reader's append waits on the port's uncommitted one.
    await until(appendWaits);
    commitPort();
    await port;
    await expect(reader).resolves.toBeGreaterThan(0);
    // Made once: one stream, its events once each.
    const streams = await db.uow.query<{ stream_id: string; versions: number; distinct_versions: number }>(
      `SELECT stream_id, count(*)::int AS versions, count(DISTINCT stream_version)::int AS distinct_versions FROM transactions.events WHERE stream_id LIKE $1 GROUP BY stream_id`,
      [`%${deposit.transactionId}%`],
    );
    expect(streams.find((s) => s.stream_id === `transaction-${deposit.transactionId}`)).toMatchObject({
      versions: expect.any(Number),
    });
    for (const s of streams) expect(s.versions).toBe(s.distinct_versions);
    const [{ rows }] = await db.uow.query<{ rows: number }>(
      `SELECT count(*)::int AS rows FROM transactions.transactions WHERE id = $1`,
      [deposit.transactionId],
    );
    expect(rows).toBe(1);
  });

  it('answers the port with the transaction when the log reader made it first while the port was making it too', async () => {
    const deposit = inboundTransfer(projectId);
    let commitReader!: () => void;
    const readerMayCommit = new Promise<void>((resolve) => (commitReader = resolve));
    let readerAppended!: () => void;
    const appended = new Promise<void>((resolve) => (readerAppended = resolve));
    // The log reader's batch: the transaction made from the event, not yet committed.
    const reader = db.uow.run(async () => {
      await transactions.onVirtualAccountDeposit({ data: deposit } as RecordedEvent<
        'virtualAccount.depositReceived',
        VirtualAccountDepositReceived
      >);
      await db.uow.query('SELECT 1');
      readerAppended();
      await readerMayCommit;
    });
    await appended;
    // The port, in no transaction of a caller: its first attempt sends the transaction's first events with its
    // commit, which waits on the reader's uncommitted ones.
    const port = transactions.createForVirtualAccount(projectId, deposit);
    await until(appendWaits);
    commitReader();
    await reader;
    // The port's commit failed on the stream's version; its retry found the transaction made.
    await expect(port).resolves.toEqual({ transactionId: deposit.transactionId });
    const [{ versions, distinct }] = await db.uow.query<{ versions: number; distinct: number }>(
      `SELECT count(*)::int AS versions, count(DISTINCT stream_version)::int AS distinct FROM transactions.events WHERE stream_id = $1`,
      [`transaction-${deposit.transactionId}`],
    );
    expect(versions).toBeGreaterThan(0);
    expect(versions).toBe(distinct);
    const [{ rows }] = await db.uow.query<{ rows: number }>(
      `SELECT count(*)::int AS rows FROM transactions.transactions WHERE id = $1`,
      [deposit.transactionId],
    );
    expect(rows).toBe(1);
  });

  it.each([
    ['its own port made and committed, without asking the database', () => transactions, 0],
    ['another process made, asking the database once', () => elsewhere, 1],
  ])('knows a transaction %s, and makes it no second time', async (_what, maker, probes) => {
    const deposit = inboundTransfer(projectId);
    await maker().createForVirtualAccount(projectId, deposit);
    const events = await eventsOf(deposit.transactionId);
    const probe = jest.spyOn(store, 'streamExists');
    try {
      await db.uow.run(() => transactions.onVirtualAccountDeposit(received(deposit)));
      expect(probe).toHaveBeenCalledTimes(probes);
    } finally {
      probe.mockRestore();
    }
    expect(await rowsOf(deposit.transactionId)).toBe(1);
    expect(await eventsOf(deposit.transactionId)).toBe(events);
  });

  it('does not take for made a transaction whose port call rolled back with its caller', async () => {
    const deposit = inboundTransfer(projectId);
    // In one process the port joins its caller's database transaction, which here fails after it.
    await expect(
      db.uow.run(async () => {
        await transactions.createForVirtualAccount(projectId, deposit);
        throw new Error('the caller failed after the port answered');
      }),
    ).rejects.toThrow('the caller failed');
    expect(await rowsOf(deposit.transactionId)).toBe(0);
    // The deposit's event, read later, makes it.
    await db.uow.run(() => transactions.onVirtualAccountDeposit(received(deposit)));
    expect(await rowsOf(deposit.transactionId)).toBe(1);
  });

  it("makes the next deposit's transaction in the same batch after a deposit whose transaction the port had made", async () => {
    const made = inboundTransfer(projectId);
    const next = inboundTransfer(projectId);
    await transactions.createForVirtualAccount(projectId, made);
    // One batch of the log reader: the first event finds its transaction made, the second makes its own.
    await db.uow.run(async () => {
      await transactions.onVirtualAccountDeposit({ data: made } as RecordedEvent<
        'virtualAccount.depositReceived',
        VirtualAccountDepositReceived
      >);
      await transactions.onVirtualAccountDeposit({ data: next } as RecordedEvent<
        'virtualAccount.depositReceived',
        VirtualAccountDepositReceived
      >);
    });
    const rows = await db.uow.query<{ id: string }>(
      `SELECT id FROM transactions.transactions WHERE id = ANY($1::text[]) ORDER BY id`,
      [[made.transactionId, next.transactionId]],
    );
    expect(rows.map((r) => r.id).sort()).toEqual([made.transactionId, next.transactionId].sort());
  });
});

describe('RecentIds', () => {
  it('holds the last ids added, forgetting the oldest first; adding one again makes it the newest', () => {
    const ids = new RecentIds(3);
    for (const id of ['a', 'b', 'c']) ids.add(id);
    ids.add('a');
    ids.add('d');
    expect(['a', 'b', 'c', 'd'].filter((id) => ids.has(id))).toEqual(['a', 'c', 'd']);
  });
});
