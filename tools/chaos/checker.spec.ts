// The fault run's checker, itself checked: a small project that is consistent with its history (two
// customers, their wallets and a bank account, fundings answered and unknown, transfers and payouts in
// several end states, an operator's refund, every event delivered once) must be judged clean, and each
// anomaly planted in it (a transaction made twice for one key, a balance off by a cent, a stuck transaction,
// a missed or reordered delivery, an answered operation with no effect, ...) must be reported with its kind.
// The judging is pure; one test reads the same project through a stand-in gateway (node:http) to show that
// the reading follows every list's pages and sends the partner's token.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Outcome } from './history';
import {
  check,
  isSumOfSome,
  judge,
  type ApiDelivery,
  type ApiEvent,
  type ApiTransaction,
  type CheckedSetup,
  type World,
} from './checker';
import { ChaosApi, units, type ReceivedDelivery, type Subject, type WorkloadOperation } from './workload';

// ---- the consistent project ----

function op(n: number, kind: string, outcome: Outcome, subject: Subject, response?: unknown): WorkloadOperation {
  return {
    n,
    client: 0,
    kind,
    method: 'POST',
    path: `/${kind}`,
    idempotencyKey: `key-${n}`,
    outcome,
    status: outcome === 'ok' ? 201 : outcome === 'failed' ? 422 : undefined,
    response,
    error: outcome === 'ok' ? undefined : `${outcome} in the fixture`,
    attempts: 1,
    startedAt: n,
    endedAt: n,
    subject,
  };
}

const wallet = (id: string) => ({ type: 'walletOms', details: { id } });
const bank = { type: 'bankUs', details: { id: 'ext_bank' } };

/** A transaction made by accepting the quote of operation `quoteOp`, in its end state. */
function transaction(
  id: string,
  quoteOp: number,
  amount: string,
  destination: { type: string; details: { id: string } },
  status: string,
  subStatus: string | null,
  legs: Array<{ kind: string; status: string }>,
): ApiTransaction {
  return {
    id,
    status,
    subStatus,
    precursor: { type: 'quote', id: `qt_${id.slice(4)}` },
    source: wallet('wlt_a'),
    destination,
    pricing: { source: { amountGross: amount }, destination: { amountNet: amount } },
    legs,
    metadata: { chaosOp: String(quoteOp) },
  };
}

/** What the Events API lists, the endpoint's delivery records and the receiver's arrivals, all consistent. */
class Announcements {
  readonly events: ApiEvent[] = [];
  readonly deliveries: ApiDelivery[] = [];
  readonly received: ReceivedDelivery[] = [];

  /** One event, delivered once, arriving now. */
  announce(type: string, data: ApiEvent['data'] & { id: string }, sequence: number): void {
    const n = this.events.length + 1;
    const name = type.endsWith('.statusChanged') ? { eventType: type, eventId: `evt_${n}` } : { event: type };
    const shared = { ...name, sequence, occurredAt: `2026-01-01T00:00:${String(n).padStart(2, '0')}Z`, data };
    // Both lists are newest first.
    this.events.unshift({ id: `evt_${n}`, object: 'event', createdAt: 'recorded', ...shared });
    this.deliveries.unshift({ id: `whd_${n}`, eventId: `evt_${n}`, event: type, status: 'delivered', attemptCount: 1 });
    this.received.push({
      deliveryId: `whd_${n}`,
      eventId: `evt_${n}`,
      event: type,
      resourceId: data.id,
      sequence,
      arrivedAt: n,
      body: { id: `whd_${n}`, createdAt: 'delivered', ...shared },
      signature: 'valid',
    });
  }

  /** A transaction's statuses, each a transaction.statusChanged, the last showing it as it is. */
  statuses(t: ApiTransaction, before: Array<[string, string | null]>): void {
    before.forEach(([status, subStatus], i) =>
      this.announce('transaction.statusChanged', { ...t, status, subStatus }, i + 1),
    );
    this.announce('transaction.statusChanged', { ...t }, before.length + 2);
  }
}

function consistent(): { world: World; history: WorkloadOperation[]; announced: Announcements } {
  const toB = { walletId: 'wlt_a', toWalletId: 'wlt_b', corridor: 'walletToWallet' as const };
  const toBank = { walletId: 'wlt_a', externalAccountId: 'ext_bank', corridor: 'walletToAch' as const };
  const history = [
    op(1, 'createCustomer', 'ok', {}, { id: 'cst_a' }),
    op(2, 'createCustomer', 'ok', {}, { id: 'cst_b' }),
    op(3, 'createWallet', 'ok', { customerId: 'cst_a' }, { id: 'wlt_a' }),
    op(4, 'createWallet', 'ok', { customerId: 'cst_b' }, { id: 'wlt_b' }),
    op(5, 'createBankAccount', 'ok', { customerId: 'cst_a' }, { id: 'ext_bank' }),
    op(6, 'fundWallet', 'ok', { walletId: 'wlt_a', amount: '1000.00' }, {}),
    // Unknown fundings: the first took effect, the second did not; either is allowed.
    op(7, 'fundWallet', 'unknown', { walletId: 'wlt_b', amount: '50.00' }),
    op(8, 'fundWallet', 'unknown', { walletId: 'wlt_b', amount: '20.000001' }),
    op(9, 'createQuote', 'ok', { ...toB, amount: '100.00' }, { id: 'qt_1' }),
    op(10, 'createTransaction', 'ok', { ...toB, amount: '100.00', quoteOp: 9 }, { id: 'txn_1' }),
    op(11, 'createQuote', 'ok', { ...toBank, amount: '200.91' }, { id: 'qt_2' }),
    op(12, 'createTransaction', 'ok', { ...toBank, amount: '200.91', quoteOp: 11 }, { id: 'txn_2' }),
    op(13, 'createQuote', 'ok', { ...toBank, amount: '50.00' }, { id: 'qt_3' }),
    // Unknown, and it did take effect.
    op(14, 'createTransaction', 'unknown', { ...toBank, amount: '50.00', quoteOp: 13 }),
    op(15, 'createQuote', 'ok', { ...toBank, amount: '30.92' }, { id: 'qt_4' }),
    op(16, 'createTransaction', 'ok', { ...toBank, amount: '30.92', quoteOp: 15 }, { id: 'txn_4' }),
    op(17, 'refund', 'ok', { transactionId: 'txn_4' }, { result: 'refunding' }),
    op(18, 'createQuote', 'ok', { ...toBank, amount: '5000.00' }, { id: 'qt_5' }),
    op(
      19,
      'createTransaction',
      'failed',
      { ...toBank, amount: '5000.00', quoteOp: 18 },
      { error: 'InsufficientFunds' },
    ),
  ];
  const txn1 = transaction('txn_1', 9, '100.00', wallet('wlt_b'), 'completed', null, [
    { kind: 'payout', status: 'settled' },
  ]);
  const txn2 = transaction('txn_2', 11, '200.91', bank, 'failed', 'failed.returnedToSender', [
    { kind: 'payout', status: 'failed' },
    { kind: 'refund', status: 'settled' },
  ]);
  const txn3 = transaction('txn_3', 13, '50.00', bank, 'completed', null, [{ kind: 'payout', status: 'settled' }]);
  const txn4 = transaction('txn_4', 15, '30.92', bank, 'failed', 'failed.returnedToSender', [
    { kind: 'payout', status: 'failed' },
    { kind: 'refund', status: 'settled' },
  ]);
  const announced = new Announcements();
  // Each resource's latest event carries it as it reads now.
  announced.announce('endorsement.active', { id: 'cst_a', lastName: 'Op1' }, 2);
  announced.statuses(txn1, [['processing', 'processing.fundsPulled']]);
  announced.statuses(txn2, [
    ['processing', 'processing.fundsPulled'],
    ['processing', 'processing.returningToSender'],
  ]);
  announced.statuses(txn3, [['processing', 'processing.fundsPulled']]);
  announced.statuses(txn4, [
    ['processing', 'processing.fundsPulled'],
    ['failed', 'failed.outboundFailed'],
    ['processing', 'processing.returningToSender'],
  ]);
  announced.announce('customer.created', { id: 'cst_b', lastName: 'Op2' }, 1);
  announced.announce('externalAccount.active', { id: 'ext_bank', metadata: { chaosOp: '5' } }, 2);
  const world: World = {
    customers: [
      { id: 'cst_b', lastName: 'Op2' },
      { id: 'cst_a', lastName: 'Op1' },
    ],
    // 1000 - 100 (to wlt_b) - 50 (txn_3); txn_2 and txn_4 came back. 50 (the unknown funding that took effect) + 100.
    wallets: [
      { id: 'wlt_a', customerId: 'cst_a', balance: '850.00' },
      { id: 'wlt_b', customerId: 'cst_b', balance: '150.000000' },
    ],
    externalAccounts: [{ id: 'ext_bank', metadata: { chaosOp: '5' } }],
    virtualAccounts: [],
    depositAddresses: [],
    cashIns: [],
    transactions: [txn4, txn3, txn2, txn1],
    events: announced.events,
    deliveries: announced.deliveries,
    received: announced.received,
    clockNow: '2026-01-02T00:00:00.000Z',
  };
  return { world, history, announced };
}

const kinds = (world: World, history: readonly WorkloadOperation[], options = {}) =>
  judge(world, history, options).anomalies.map((a) => a.kind);

function transactionOf(world: World, id: string): ApiTransaction {
  return world.transactions.find((t) => t.id === id)!;
}

/** A transaction moved to another state, as read and as its latest event announced it. */
function restate(world: World, id: string, status: string, subStatus: string | null): void {
  Object.assign(transactionOf(world, id), { status, subStatus });
  reannounce(world, id);
}

/** A transaction's latest event, as listed and as delivered, carrying it as it reads now. */
function reannounce(world: World, id: string): void {
  const latest = world.events.find((e) => e.data?.id === id)!;
  latest.data = { ...transactionOf(world, id) };
  world.received.find((d) => d.eventId === latest.id)!.body.data = { ...transactionOf(world, id) };
}

function balanceOf(world: World, id: string, balance: string): void {
  world.wallets.find((w) => w.id === id)!.balance = balance;
}

describe('the fault run checker', () => {
  it('finds nothing wrong with a project consistent with its history', () => {
    const { world, history } = consistent();
    const verdict = judge(world, history);
    expect(verdict.anomalies).toEqual([]);
    expect(verdict.counts).toMatchObject({
      operations: 19,
      'operations.ok': 15,
      'operations.unknown': 3,
      'operations.failed': 1,
      transactions: 4,
      'transactions.completed': 2,
      'transactions.failed.returnedToSender': 2,
      events: 14,
      'deliveries.received': 14,
    });
  });

  describe('effects', () => {
    it('reports a transaction made twice for one key', () => {
      const { world, history } = consistent();
      world.transactions.push({ ...transactionOf(world, 'txn_1'), id: 'txn_1b' });
      const { anomalies } = judge(world, history);
      expect(anomalies).toContainEqual(
        expect.objectContaining({
          kind: 'duplicate-effect',
          detail: expect.objectContaining({ found: ['txn_1', 'txn_1b'] }),
        }),
      );
    });

    it('reports an operation answered 2xx whose resource the API does not list', () => {
      const { world, history } = consistent();
      world.externalAccounts = [];
      expect(kinds(world, history)).toEqual(['lost-effect']);
    });

    it('reports a wallet more than the unanswered creations explain', () => {
      const { world, history } = consistent();
      world.wallets.push({ id: 'wlt_c', customerId: 'cst_a', balance: '0' });
      expect(kinds(world, history)).toEqual(['duplicate-effect']);
    });

    it('reports an effect of an operation the platform refused', () => {
      const { world, history } = consistent();
      const made = transaction('txn_5', 18, '5000.00', bank, 'failed', 'failed.returnedToSender', []);
      world.transactions.push(made);
      world.events.unshift({ id: 'evt_x', eventType: 'transaction.statusChanged', sequence: 1, data: { ...made } });
      world.received.push({ ...world.received[0], deliveryId: 'whd_x', eventId: 'evt_x', body: world.events[0] });
      expect(kinds(world, history)).toContain('refused-effect');
    });

    it('allows an unknown operation to have taken effect once, or not at all', () => {
      const { world, history } = consistent();
      // txn_3's creation went unanswered; without it, wlt_a holds 50 more.
      world.transactions = world.transactions.filter((t) => t.id !== 'txn_3');
      world.events = world.events.filter((e) => e.data?.id !== 'txn_3');
      world.received = world.received.filter((d) => d.resourceId !== 'txn_3');
      world.deliveries = world.deliveries.filter((d) => world.events.some((e) => e.id === d.eventId));
      balanceOf(world, 'wlt_a', '900');
      expect(kinds(world, history)).toEqual([]);
    });
  });

  describe('money', () => {
    it('reports a balance off by a cent, and the project total with it', () => {
      const { world, history } = consistent();
      balanceOf(world, 'wlt_a', '849.99');
      expect(kinds(world, history)).toEqual(['balance-mismatch', 'ledger-imbalance']);
    });

    it('reports a negative balance', () => {
      const { world, history } = consistent();
      balanceOf(world, 'wlt_b', '-1.00');
      expect(kinds(world, history)).toContain('negative-balance');
    });

    it('reports an unknown funding that took effect twice', () => {
      const { world, history } = consistent();
      balanceOf(world, 'wlt_b', '200');
      expect(kinds(world, history)).toContain('balance-mismatch');
    });

    it('reports a transaction priced otherwise than its quote asked', () => {
      const { world, history } = consistent();
      transactionOf(world, 'txn_3').pricing!.source!.amountGross = '50.01';
      expect(kinds(world, history)).toContain('pricing-mismatch');
    });

    it('tells a difference that some optional amounts make up from one they do not', () => {
      const optional = ['50', '20.000001', '7'].map(units);
      expect(isSumOfSome(units('57'), optional)).toBe(true);
      expect(isSumOfSome(units('0'), optional)).toBe(true);
      expect(isSumOfSome(units('77.000001'), optional)).toBe(true);
      expect(isSumOfSome(units('100'), optional)).toBe(false);
      expect(isSumOfSome(units('-7'), optional)).toBe(false);
    });
  });

  describe('states', () => {
    it('reports a transaction still moving after quiescence', () => {
      const { world, history } = consistent();
      restate(world, 'txn_3', 'processing', 'processing.payoutUnconfirmed');
      expect(kinds(world, history)).toEqual(['stuck-transaction']);
    });

    it('leaves alone a payout the provider cannot be asked about (.97), as docs/sandbox.md says it stays', () => {
      const { world, history } = consistent();
      history[12].subject.amount = history[13].subject.amount = '50.97';
      transactionOf(world, 'txn_3').pricing = { source: { amountGross: '50.97' }, destination: { amountNet: '50.97' } };
      reannounce(world, 'txn_3');
      restate(world, 'txn_3', 'processing', 'processing.payoutUnconfirmed');
      balanceOf(world, 'wlt_a', '849.03');
      expect(kinds(world, history)).toEqual([]);
    });

    it('reports a transaction that ended otherwise than its cents say, when no operator touched it', () => {
      const { world, history } = consistent();
      // .91: the provider refuses the payout and the money comes back; here it was paid out.
      restate(world, 'txn_2', 'completed', null);
      balanceOf(world, 'wlt_a', '649.09');
      expect(kinds(world, history)).toEqual(['unexpected-outcome']);
    });
  });

  describe('the chain', () => {
    const [treasury, recipient] = [
      '0x00000000000000000000000000000000000000aa',
      '0x00000000000000000000000000000000000000bb',
    ];
    const atRest = {
      network: 'meridianchain',
      chainHeld: '1000850.000000',
      ledgerOwed: '850.000000',
      operatorFloat: '1000000.000000',
      inFlight: '0.000000',
      unexplainedDifference: '0.000000',
    };

    /**
     * The consistent project on a chain: an external wallet of cst_a's, paid 10.91 from wlt_a by one transfer from
     * the treasury (on a chain the cents do not decide), which the chain holds under the hash the leg reports.
     */
    function onChain() {
      const { world, history, announced } = consistent();
      const subject = {
        walletId: 'wlt_a',
        externalAccountId: 'ext_wallet',
        corridor: 'walletToExternalWallet' as const,
      };
      history.push(
        op(20, 'createExternalWallet', 'ok', { customerId: 'cst_a', address: recipient }, { id: 'ext_wallet' }),
        op(21, 'createQuote', 'ok', { ...subject, amount: '10.91' }, { id: 'qt_6' }),
        op(22, 'createTransaction', 'ok', { ...subject, amount: '10.91', quoteOp: 21 }, { id: 'txn_6' }),
      );
      const destination = { type: 'walletExternal', details: { id: 'ext_wallet' } };
      const paid = transaction('txn_6', 21, '10.91', destination, 'completed', null, [
        { kind: 'payout', status: 'settled', txHash: '0xh1' } as { kind: string; status: string },
      ]);
      world.transactions.unshift(paid);
      world.externalAccounts.push({
        id: 'ext_wallet',
        metadata: { chaosOp: '20' },
        walletExternal: { address: recipient },
      });
      announced.announce(
        'externalAccount.active',
        { id: 'ext_wallet', metadata: { chaosOp: '20' }, walletExternal: { address: recipient } },
        2,
      );
      announced.statuses(paid, [['processing', 'processing.fundsPulled']]);
      balanceOf(world, 'wlt_a', '839.09');
      world.chain = {
        network: 'meridianchain',
        treasury,
        reconciliation: { ...atRest },
        transfers: [{ hash: '0xh1', from: treasury, to: recipient, amount: '10.91', block: 7 }],
      };
      return { world, history };
    }

    it('finds nothing wrong with a payout that landed once, to the unit, and books that match the chain', () => {
      const { world, history } = onChain();
      expect(judge(world, history).anomalies).toEqual([]);
    });

    it('reports a payout paid twice on chain', () => {
      const { world, history } = onChain();
      world.chain!.transfers.push({ hash: '0xh2', from: treasury, to: recipient, amount: '10.91', block: 8 });
      expect(kinds(world, history)).toEqual(['chain-overpaid']);
    });

    it('reports a completed payout whose hash the chain does not have, or has for another amount', () => {
      const { world, history } = onChain();
      world.chain!.transfers[0].amount = '10.9';
      expect(kinds(world, history)).toEqual(['chain-payout-mismatch', 'chain-underpaid']);
    });

    it('reports books that do not explain what custody holds, or transfers still in flight at rest', () => {
      const { world, history } = onChain();
      world.chain!.reconciliation = { ...atRest, unexplainedDifference: '0.000001' };
      expect(kinds(world, history)).toEqual(['chain-unreconciled']);
      world.chain!.reconciliation = { ...atRest, inFlight: '5.000000' };
      expect(kinds(world, history)).toEqual(['chain-unreconciled']);
    });
  });

  describe('cash', () => {
    const cash = { type: 'cash', details: { id: 'loc_1' } };

    /**
     * The consistent project with cash: a cash-in to wlt_b paid in ($40), and three pickups from wlt_a ($20 each):
     * one collected, one left to expire (its money back), one still at the till.
     */
    function withCash() {
      const { world, history, announced } = consistent();
      history.push(
        op(20, 'createCashIn', 'ok', { customerId: 'cst_b', toWalletId: 'wlt_b' }, { id: 'ci_1' }),
        op(
          21,
          'cashDeposit',
          'ok',
          { cashInId: 'ci_1', toWalletId: 'wlt_b', amount: '40.00' },
          { transactionId: 'txn_ci' },
        ),
      );
      world.cashIns.push({ id: 'ci_1', metadata: { chaosOp: '20' } });
      announced.announce('cashIn.completed', { id: 'ci_1', metadata: { chaosOp: '20' } }, 2);
      const deposited: ApiTransaction = {
        id: 'txn_ci',
        status: 'completed',
        subStatus: null,
        precursor: { type: 'cashIn', id: 'ci_1' },
        source: { type: 'cash' },
        destination: wallet('wlt_b'),
        pricing: { source: { amountGross: '40.00' }, destination: { amountNet: '40.00' } },
      };
      const pickups = [
        transaction('txn_p1', 22, '20.00', cash, 'completed', 'completed.cashPickupCollected', []),
        transaction('txn_p2', 25, '20.00', cash, 'completed', 'completed.cashPickupExpired', []),
        transaction('txn_p3', 28, '20.00', cash, 'processing', 'processing.cashPickupReady', []),
      ];
      const pickup = { walletId: 'wlt_a', corridor: 'walletToCash' as const, amount: '20.00' };
      pickups.forEach((t, i) => {
        const n = 22 + 3 * i;
        history.push(
          op(n, 'createQuote', 'ok', pickup, { id: `qt_p${i}` }),
          op(n + 1, 'createTransaction', 'ok', { ...pickup, quoteOp: n }, { id: t.id }),
        );
      });
      history.push(
        op(24, 'collectPickup', 'ok', { transactionId: 'txn_p1', pickup: 'collected' }),
        op(27, 'collectPickup', 'ok', { transactionId: 'txn_p2', pickup: 'expired' }),
      );
      for (const t of [deposited, ...pickups]) {
        world.transactions.unshift(t);
        announced.announce('transaction.statusChanged', { ...t }, 1);
      }
      // wlt_a: 850 - 20 (collected) - 20 (at the till); the expired pickup came back. wlt_b: 150 + 40.
      balanceOf(world, 'wlt_a', '810');
      balanceOf(world, 'wlt_b', '190');
      return { world, history };
    }

    it("judges a cash-in's deposit and cash pickups as the sandbox says they end", () => {
      const { world, history } = withCash();
      expect(judge(world, history).anomalies).toEqual([]);
    });

    it('reports a cash-in whose deposit made two transactions', () => {
      const { world, history } = withCash();
      world.transactions.push({ ...transactionOf(world, 'txn_ci'), id: 'txn_ci2' });
      balanceOf(world, 'wlt_b', '230');
      expect(kinds(world, history)).toContain('duplicate-effect');
    });

    it('reports a pickup that ended otherwise than the customer did at the till', () => {
      const { world, history } = withCash();
      // Collected, yet it expired and the money came back.
      restate(world, 'txn_p1', 'completed', 'completed.cashPickupExpired');
      balanceOf(world, 'wlt_a', '830');
      expect(kinds(world, history)).toEqual(['unexpected-outcome']);
    });

    it('reports a pickup that left the till with nobody collecting it', () => {
      const { world, history } = withCash();
      restate(world, 'txn_p3', 'completed', 'completed.cashPickupCollected');
      expect(kinds(world, history)).toEqual(['unexpected-outcome']);
    });
  });

  describe('events and webhooks', () => {
    it('reports an event that never reached the receiver', () => {
      const { world, history } = consistent();
      world.received.splice(3, 1);
      expect(kinds(world, history)).toEqual(['webhook-missing']);
    });

    it('reports a delivery still queued after quiescence', () => {
      const { world, history } = consistent();
      world.deliveries[0].status = 'queued';
      expect(kinds(world, history)).toEqual(['webhook-missing']);
    });

    it('takes a delivery received twice as the at-least-once it is', () => {
      const { world, history } = consistent();
      world.received.push({ ...world.received[2], arrivedAt: 99 });
      const verdict = judge(world, history);
      expect(verdict.anomalies).toEqual([]);
      expect(verdict.counts['deliveries.receivedAgain']).toBe(1);
    });

    it('reports deliveries of one resource that arrived out of sequence, unless the first was retried', () => {
      const { world, history } = consistent();
      // txn_1's two deliveries (arrivals 2 and 3) arrive the other way round.
      [world.received[1], world.received[2]] = [world.received[2], world.received[1]];
      const strict = { arrivalOrderIsAnomaly: true };
      expect(kinds(world, history, strict)).toEqual(['webhook-order']);
      // By default (the cluster, where several processes may reorder them) it is counted only.
      const counted = judge(world, history);
      expect(counted.anomalies).toEqual([]);
      expect(counted.counts['deliveries.outOfOrder.unexplained']).toBe(1);
      world.deliveries.find((d) => d.id === world.received[2].deliveryId)!.attemptCount = 2;
      const retried = judge(world, history, strict);
      expect(retried.anomalies).toEqual([]);
      expect(retried.counts['deliveries.outOfOrder.afterRetry']).toBe(1);
    });

    it('reports deliveries created out of sequence', () => {
      const { world, history } = consistent();
      const [first, second] = [world.deliveries.length - 2, world.deliveries.length - 3];
      [world.deliveries[first], world.deliveries[second]] = [world.deliveries[second], world.deliveries[first]];
      expect(kinds(world, history)).toEqual(['webhook-order']);
    });

    it('reports a delivery that carries another envelope than the Events API', () => {
      const { world, history } = consistent();
      world.received[0].body = { ...world.received[0].body, sequence: 7 };
      expect(kinds(world, history)).toEqual(['events-mismatch']);
    });

    it('reports a transaction whose latest event shows another state than a read', () => {
      const { world, history } = consistent();
      world.events = world.events.filter((e) => e.id !== 'evt_3');
      world.received = world.received.filter((d) => d.eventId !== 'evt_3');
      world.deliveries = world.deliveries.filter((d) => d.eventId !== 'evt_3');
      expect(kinds(world, history)).toEqual(['read-model-mismatch']);
    });

    it('reports a resource whose read model holds what its events never announced', () => {
      const { world, history } = consistent();
      // The read model kept a change its last event did not carry.
      world.externalAccounts[0].metadata = { chaosOp: '5', note: 'changed without an event' };
      const { anomalies } = judge(world, history);
      expect(anomalies).toEqual([
        expect.objectContaining({
          kind: 'read-model-mismatch',
          message: expect.stringMatching(/ext_bank .*: metadata$/),
        }),
      ]);
    });

    it("excuses a delivery of an event past the Events API's retention, and still knows the state it carried", () => {
      const { world, history } = consistent();
      // txn_3's latest event (evt_8), created 31 days before the clock's now, no longer listed.
      const latest = world.received.find((d) => d.eventId === 'evt_8')!;
      expect(latest.body.data.id).toBe('txn_3');
      latest.body.createdAt = '2025-12-02T00:00:00.000Z';
      world.events = world.events.filter((e) => e.id !== 'evt_8');
      const verdict = judge(world, history);
      expect(verdict.anomalies).toEqual([]);
      expect(verdict.counts['deliveries.pastRetention']).toBe(1);
      // Within the window, the same missing event is an anomaly: a delivery of an unlisted event, and txn_3's
      // latest listed event (processing) no longer showing it as read; past a shorter retention, none.
      latest.body.createdAt = '2025-12-04T00:00:00.000Z';
      expect(kinds(world, history)).toEqual(['events-mismatch', 'read-model-mismatch']);
      expect(kinds(world, history, { retentionDays: 20 })).toEqual([]);
    });

    it('reports a delivery whose signature does not verify', () => {
      const { world, history } = consistent();
      world.received[4].signature = 'no v1 signature matches';
      expect(kinds(world, history)).toEqual(['webhook-signature']);
    });
  });

  describe('reading the project through a gateway', () => {
    let server: Server;
    let url: string;
    const TOKEN = 'partner-token';
    const { world, history } = consistent();
    /** Lists answered two items at a time, so that every cursor is followed. */
    const page = (items: unknown[], query: URLSearchParams) => {
      const from = Number(query.get('cursor') ?? 0);
      const to = from + 2;
      return {
        data: items.slice(from, to),
        hasMore: to < items.length,
        nextCursor: to < items.length ? String(to) : null,
      };
    };
    const routes: Record<string, (query: URLSearchParams) => unknown> = {
      '/v0.13/customers': (q) => page(world.customers, q),
      '/v0.13/wallets': (q) =>
        page(
          world.wallets.map(({ balance: _, ...w }) => w),
          q,
        ),
      '/v0.13/external-accounts': (q) => page(q.get('customerId') === 'cst_a' ? world.externalAccounts : [], q),
      '/v0.13/virtual-accounts': (q) => page([], q),
      '/v0.13/deposit-addresses': (q) => page([], q),
      '/v0.13/cash-ins': (q) => page([], q),
      '/v0.13/transactions': (q) => page(world.transactions, q),
      '/v0.13/events': (q) => page(world.events, q),
      '/v0.13/sandbox/clock': () => ({ now: world.clockNow }),
      '/v0.13/webhooks/wh_1/deliveries': (q) => page(world.deliveries, q),
      ...Object.fromEntries(
        world.wallets.map((w) => [
          `/v0.13/wallets/${w.id}/balance`,
          () => ({ data: { walletId: w.id, balance: w.balance } }),
        ]),
      ),
    };

    beforeAll(async () => {
      server = createServer((req, res) => {
        const at = new URL(req.url!, 'http://gateway');
        const route = routes[at.pathname];
        const [status, body] =
          req.headers.authorization !== `Bearer ${TOKEN}`
            ? [401, { error: 'invalid_token' }]
            : route
              ? [200, route(at.searchParams)]
              : [404, { error: 'NotFound', cause: at.pathname }];
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('reads every page of every list and finds the project consistent', async () => {
      const setup: CheckedSetup = {
        api: new ChaosApi({ gateways: [url], adminToken: 'admin-token', token: TOKEN }),
        projectId: 'prj_1',
        webhookId: 'wh_1',
        keyPrefix: 'chaos-prj_1',
        log: () => undefined,
        receiver: { deliveries: world.received, lastArrivalAt: 0 },
      };
      const verdict = await check(setup, history);
      expect(verdict.anomalies).toEqual([]);
      expect(verdict.counts).toMatchObject({
        customers: 2,
        wallets: 2,
        externalAccounts: 1,
        transactions: 4,
        events: 14,
      });
    });
  });
});
