// The fault run's checker (`npm run chaos`): once the nemesis has healed every fault, it lets the platform
// finish what it was doing (quiesce: the project's sandbox clock run on past every timer until nothing moves),
// then reads the project back through the API only (partner routes, the Events API, the operator's routes;
// never the database) and judges what it read against the history of what the workload's clients were told
// (history.ts, workload.ts). Reading (readWorld) and judging (judge, pure) are apart, so that the judging is
// tested on planted anomalies without a platform (checker.spec.ts).
//
// The invariants, each anomaly named by its kind:
// - effects: an operation answered 2xx took effect exactly once, an unknown one at most once, a refused one
//   never (`duplicate-effect`, `lost-effect`, `refused-effect`, and `unexpected-effect` for a resource no
//   operation made); the workload marks what it creates with its operation's number (workload.ts);
// - money: each wallet holds its fundings plus what came in minus what went out, from the transactions as
//   the API lists them in their final states (`balance-mismatch`, `negative-balance`), the project's wallets
//   together likewise (`ledger-imbalance`), and each transaction is priced as the workload asked
//   (`pricing-mismatch`), in exact bigint arithmetic;
// - states: every transaction ended, or rests where docs/sandbox.md says it may (held for an operator,
//   waiting on the partner, a payout the provider cannot be asked about) (`stuck-transaction`), and ends as
//   its cents say it does when no operator touched it (`unexpected-outcome`);
// - events: every event of the Events API reached the receiver, every delivery was one of them, as the API
//   lists it, signed with the endpoint's key, and a resource's deliveries were made in `sequence` order, and
//   arrived so where nothing documented reorders them (`webhook-missing`, `events-mismatch`,
//   `webhook-signature`, `webhook-order`; CheckOptions). Gaps in a resource's sequence are not anomalies:
//   docs/events.md says not every version is announced, and an event the Events API has but the receiver
//   missed is `webhook-missing`;
// - read models: every resource reads exactly as its latest event announced it, so that what a partner
//   rebuilds from the events equals what the services' read models hold (`read-model-mismatch`);
// - the chain, when a network runs on one (docs/chain.md): at rest, the operator's reconciliation explains every
//   token custody holds and has nothing in flight (`chain-unreconciled`); each completed payout to an external
//   wallet landed as the one transfer its hash names, from the treasury, to the unit (`chain-payout-mismatch`);
//   and what the treasury sent each external wallet is what its completed payouts add up to, no more, no less
//   (`chain-overpaid`, `chain-underpaid`). The chain's transfers are read from the node, as anyone can.
import type { ChainTransfer } from './chain';
import type { Anomaly, Operation } from './history';
import {
  centsOf,
  customerMarker,
  isWorkloadOperation,
  MARKER,
  showUnits,
  units,
  type DeliveryReceiver,
  type PickupOutcome,
  type ReceivedDelivery,
  type WorkloadOperation,
  type WorkloadSetup,
} from './workload';

/** What the checker uses of the workload's set-up. */
export type CheckedSetup = Pick<WorkloadSetup, 'api' | 'projectId' | 'webhookId' | 'keyPrefix' | 'log' | 'chain'> & {
  receiver: Pick<DeliveryReceiver, 'deliveries' | 'lastArrivalAt'>;
};

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- the API's resources, as far as the checker reads them ----

interface Side {
  type?: string;
  details?: { id?: string; address?: string };
}

export interface ApiTransaction {
  id: string;
  status: string;
  subStatus?: string | null;
  precursor?: { type: string; id: string };
  source?: Side;
  destination?: Side;
  pricing?: { source?: { amountGross?: string }; destination?: { amountNet?: string } };
  legs?: Array<{ kind: string; status: string; txHash?: string | null }>;
  metadata?: Record<string, string>;
}

export interface ApiEvent {
  id: string;
  event?: string;
  eventType?: string;
  sequence?: number;
  data?: { id?: string; status?: string; subStatus?: string | null; [field: string]: unknown };
  [field: string]: unknown;
}

export interface ApiDelivery {
  id: string;
  eventId: string;
  event: string;
  test?: boolean;
  status: string;
  attemptCount: number;
  nextAttemptAt?: string | null;
}

/** Everything the checker judges: the project as the API shows it after quiescence, and the receiver's record. */
export interface World {
  customers: Array<{ id: string; lastName?: string }>;
  /** Every wallet of the project, with its balance as read. */
  wallets: Array<{ id: string; customerId: string; balance: string }>;
  externalAccounts: Array<{ id: string; metadata?: Record<string, string>; walletExternal?: { address?: string } }>;
  virtualAccounts: Array<{ id: string; metadata?: Record<string, string> }>;
  depositAddresses: Array<{ id: string; metadata?: Record<string, string> }>;
  cashIns: Array<{ id: string; metadata?: Record<string, string> }>;
  transactions: ApiTransaction[];
  /** The Events API's list, newest first. */
  events: ApiEvent[];
  /** The endpoint's deliveries, newest first: the order they were created in, reversed. */
  deliveries: ApiDelivery[];
  /** What the receiver took, in arrival order. */
  received: ReceivedDelivery[];
  /** The project's sandbox clock when the world was read: the Events API lists what is within retention of it. */
  clockNow: string;
  /** The chain the workload's network runs on, when it runs on one. */
  chain?: ChainWorld;
}

/** The chain as the operator's routes and the node show it, once at rest. */
export interface ChainWorld {
  network: string;
  treasury: string;
  /** GET /admin/reconciliation?network=: decimal strings. */
  reconciliation: Record<string, unknown>;
  /** Every transfer of the token, oldest first. */
  transfers: ChainTransfer[];
}

export interface Verdict {
  anomalies: Anomaly[];
  counts: Record<string, number>;
}

export interface CheckOptions {
  /**
   * Whether a delivery that arrived after a later one of its resource, with no failed attempt to explain it,
   * is an anomaly; otherwise it is only counted (`deliveries.outOfOrder.unexplained`), the default.
   * docs/webhooks.md promises one process's sends of a resource "one after another, in the order they were
   * created", but docs/webhook-delivery.md ("Order") lets several webhooks processes, or a lease run out with
   * its process killed, reorder them, and neither shows through the API: so true for one platform process
   * and no kills (workload-check.ts), false for the cluster under the nemesis.
   */
  arrivalOrderIsAnomaly?: boolean;
  /**
   * The Events API's window, in days of the project's clock (MM_WEBHOOK_RETENTION_DAYS, 30 by default): an
   * event created before it is no longer listed, by design, and a delivery of it is not an anomaly. Quiescing
   * can move the clock that far: it jumps to each queued delivery's next attempt, up to two days a round.
   */
  retentionDays?: number;
}

// ---- quiescence ----

export interface QuiesceOptions {
  log?: (line: string) => void;
  /** The bound on the whole wait (5 minutes). */
  timeoutMs?: number;
  /** Each clock advance, in seconds (700: past the 600 s sweepers, and every rail's delay). */
  stepSeconds?: number;
  /** How long the receiver must have heard nothing before a round's look (3 s). */
  silenceMs?: number;
  /**
   * What still trails inside the platform (log readers, relays, consumer groups), each as a line; a round counts
   * as quiet only when nothing does. Without it, quiet is judged from the API alone, which cannot see an event
   * a service has not consumed yet: the transactions, queued deliveries and arrivals it would change all look
   * unchanged while it waits.
   */
  behind?: () => Promise<string[]>;
}

/** Webhook retries wait at most 2 days between attempts; an advance never needs to go further. */
const LONGEST_RETRY_SECONDS = 2 * 86_400;

/** Seconds to advance: a step, or past the latest retry of a delivery still queued (docs/webhooks.md schedule). */
async function nextAdvance(setup: CheckedSetup, stepSeconds: number): Promise<number> {
  const queued: ApiDelivery[] = await setup.api.list(`/webhooks/${setup.webhookId}/deliveries?status=queued`);
  const next = Math.max(0, ...queued.map((d) => Date.parse(d.nextAttemptAt ?? '') || 0));
  if (next === 0) return stepSeconds;
  const now = Date.parse((await setup.api.get('/sandbox/clock')).now);
  return Math.min(LONGEST_RETRY_SECONDS, Math.max(stepSeconds, Math.ceil((next - now) / 1000) + 1));
}

/** Resolves once the receiver has heard nothing for `silenceMs`, or at the deadline. */
async function silence(receiver: CheckedSetup['receiver'], silenceMs: number, deadline: number): Promise<void> {
  while (Date.now() - receiver.lastArrivalAt < silenceMs && Date.now() < deadline) await sleep(200);
}

/** A fingerprint of what still moves: every transaction's state, the deliveries queued, the arrivals. */
async function movement(setup: CheckedSetup): Promise<string> {
  const [transactions, queued] = await Promise.all([
    setup.api.list('/transactions') as Promise<ApiTransaction[]>,
    setup.api.list(`/webhooks/${setup.webhookId}/deliveries?status=queued`) as Promise<ApiDelivery[]>,
  ]);
  const states = transactions.map((t) => `${t.id}:${stateOf(t)}`).sort();
  return JSON.stringify([states, queued.map((d) => d.id).sort(), setup.receiver.deliveries.length]);
}

/**
 * Lets the platform finish, once the faults have healed: the project's clock advances step by step, each
 * advance firing the timers that fall due (rails, sweepers, reviews, webhook retries: docs/sandbox.md "The
 * clock"), until two advances in a row changed no transaction, queued no delivery and brought no arrival, or
 * the bound passes (the checker then reports what still moves). Resolves to whether it settled.
 */
export async function quiesce(setup: CheckedSetup, options: QuiesceOptions = {}): Promise<boolean> {
  const log = options.log ?? setup.log;
  const deadline = Date.now() + (options.timeoutMs ?? 300_000);
  const run = `${setup.keyPrefix}-quiesce-${Date.now()}`;
  let previous = '';
  let unchanged = 0;
  for (let round = 1; Date.now() < deadline; round++) {
    try {
      const seconds = await nextAdvance(setup, options.stepSeconds ?? 700);
      const advanced = await setup.api.send({
        method: 'POST',
        path: '/sandbox/clock/advance',
        body: { seconds },
        idempotencyKey: `${run}-${round}`,
        auth: 'partner',
      });
      if (advanced.outcome !== 'ok') log(`quiesce: advance ${round} of ${seconds} s: ${advanced.error}`);
      // The timers of services other than the clock's fire within about a second of the answer.
      await sleep(1000);
      await silence(setup.receiver, options.silenceMs ?? 3000, deadline);
      const now = await movement(setup);
      const trailing = (await options.behind?.()) ?? [];
      unchanged = now === previous && trailing.length === 0 ? unchanged + 1 : 0;
      previous = now;
      const state =
        trailing.length > 0
          ? `still trailing: ${trailing.join('; ')}`
          : unchanged > 0
            ? 'nothing moved'
            : 'still moving';
      log(`quiesce: round ${round}, the clock advanced ${seconds} s; ${state}`);
    } catch (error) {
      log(`quiesce: round ${round}: ${(error as Error).message}`);
      unchanged = 0;
    }
    if (unchanged >= 2) {
      log(`quiesce: nothing moved over the last two of ${round} clock advances`);
      return true;
    }
  }
  log('quiesce: still moving at its deadline; the checker reports what has not settled');
  return false;
}

// ---- reading ----

/** Runs `work` over the items, `limit` at a time, in order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** How long the chain may take to come to rest once the platform has: its last transfers' confirmations. */
const CHAIN_REST_MS = 120_000;

const atRest = (r: Record<string, unknown>) =>
  units(String(r.inFlight ?? '1')) === 0n && units(String(r.unexplainedDifference ?? '1')) === 0n;

/**
 * The chain once its last transfers are confirmed and recorded (the reconciliation has nothing in flight and
 * nothing unexplained), or as it is at the bound; the treasury and every transfer of the token then.
 */
async function readChain(setup: CheckedSetup): Promise<ChainWorld | undefined> {
  const { chain, api } = setup;
  if (!chain) return undefined;
  const deadline = Date.now() + CHAIN_REST_MS;
  let reconciliation: Record<string, unknown> = {};
  for (;;) {
    reconciliation = await api.get(`/admin/reconciliation?network=${chain.network}`, 'admin');
    if (atRest(reconciliation) || Date.now() > deadline) break;
    await sleep(1000);
  }
  const chains: Array<{ network: string; treasuryAddress: string }> = (await api.get('/admin/chains', 'admin')).data;
  const treasury = chains.find((c) => c.network === chain.network)?.treasuryAddress ?? '';
  return { network: chain.network, treasury, reconciliation, transfers: await chain.transfers() };
}

/** The project as the API shows it now: every list read whole, each wallet's balance, the receiver's record. */
export async function readWorld(setup: CheckedSetup): Promise<World> {
  const { api } = setup;
  // First: at rest, the chain's last credits are in the balances read below.
  const chain = await readChain(setup);
  const [clock, customers, walletList, virtualAccounts, depositAddresses, cashIns, transactions, events, deliveries] =
    await Promise.all([
      api.get('/sandbox/clock'),
      api.list('/customers'),
      api.list('/wallets'),
      api.list('/virtual-accounts'),
      api.list('/deposit-addresses'),
      api.list('/cash-ins'),
      api.list('/transactions'),
      api.list('/events'),
      api.list(`/webhooks/${setup.webhookId}/deliveries`),
    ]);
  const externalAccounts = (
    await mapLimit(customers, 8, (c) => api.list(`/external-accounts?customerId=${c.id}`))
  ).flat();
  const wallets = await mapLimit(walletList, 8, async (w) => ({
    id: w.id as string,
    customerId: w.customerId as string,
    balance: (await api.get(`/wallets/${w.id}/balance`)).data.balance as string,
  }));
  return {
    customers,
    wallets,
    externalAccounts,
    virtualAccounts,
    depositAddresses,
    cashIns,
    transactions,
    events,
    deliveries,
    received: [...setup.receiver.deliveries],
    clockNow: clock.now as string,
    ...(chain ? { chain } : {}),
  };
}

/** Quiesce first: reads the project and judges it against the history. */
export async function check(
  setup: CheckedSetup,
  history: readonly Operation[],
  options: CheckOptions = {},
): Promise<Verdict> {
  return judge(await readWorld(setup), history, options);
}

// ---- judging: pure functions of the world and the history ----

export function judge(world: World, history: readonly Operation[], options: CheckOptions = {}): Verdict {
  const ops = withChainDeposits(world, history.filter(isWorkloadOperation));
  const counts: Record<string, number> = {};
  const anomalies = [
    ...judgeCreations(world, ops),
    ...judgeAcceptances(world, ops),
    ...judgeDeposits(world, ops),
    ...judgeBalances(world, ops),
    ...judgeStates(world, ops),
    ...judgeWebhooks(world, options, counts),
    ...judgeChain(world),
  ];
  return { anomalies, counts: { ...countsOf(world, history, anomalies), ...counts } };
}

/** What an anomaly's detail says of an operation. */
function described(op: WorkloadOperation) {
  const { n, kind, outcome, status, idempotencyKey, error, subject } = op;
  return { n, kind, outcome, status, idempotencyKey, error, subject };
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/** The operation number a resource's metadata names, if any. */
function markerOf(resource: { metadata?: Record<string, string> }): number | undefined {
  const marker = Number(resource.metadata?.[MARKER]);
  return Number.isInteger(marker) && marker > 0 ? marker : undefined;
}

/**
 * The effects one operation had, against its outcome: answered 2xx, exactly one, the one it answered;
 * unknown, at most one; refused, none.
 */
function judgeEffects(what: string, op: WorkloadOperation, found: readonly string[], answered?: string): Anomaly[] {
  const detail = { operation: described(op), found };
  const label = `op ${op.n} (${op.kind}, ${op.outcome})`;
  if (op.outcome === 'failed' && found.length > 0)
    return [
      { kind: 'refused-effect', message: `${label} was refused (${op.error}) yet made ${what} ${found}`, detail },
    ];
  const anomalies: Anomaly[] = [];
  if (found.length > 1)
    anomalies.push({
      kind: 'duplicate-effect',
      message: `${label} made ${found.length} of ${what}: ${found.join(', ')}; expected ${op.outcome === 'ok' ? 'one' : 'at most one'}`,
      detail,
    });
  if (op.outcome === 'ok' && (answered === undefined || !found.includes(answered)))
    anomalies.push({
      kind: 'lost-effect',
      message: `${label} answered ${what} ${answered} but the API lists ${found.length > 0 ? found.join(', ') : 'none'}`,
      detail,
    });
  return anomalies;
}

/** Resources marked with their creating operation's number: each creation against what carries its number. */
function judgeMarked(
  what: string,
  kinds: readonly string[],
  resources: ReadonlyArray<{ id: string; marker?: number }>,
  ops: readonly WorkloadOperation[],
): Anomaly[] {
  const creations = ops.filter((op) => kinds.includes(op.kind));
  const byMarker = groupBy(resources, (r) => r.marker);
  const anomalies = creations.flatMap((op) =>
    judgeEffects(
      what,
      op,
      (byMarker.get(op.n) ?? []).map((r) => r.id),
      op.response?.id,
    ),
  );
  const made = new Set(creations.map((op) => op.n));
  for (const r of resources.filter((r) => r.marker === undefined || !made.has(r.marker)))
    anomalies.push({
      kind: 'unexpected-effect',
      message: `${what} ${r.id} names ${r.marker === undefined ? 'no operation' : `op ${r.marker}, which did not create one`}`,
      detail: { resource: r },
    });
  return anomalies;
}

/**
 * Resources of a parent (a customer's wallets, an inlet's deposits) that carry no marker: the ones answered
 * must be listed, and those listed beyond them are at most as many as the creations left unknown.
 */
function judgeCounted(
  what: string,
  parent: string,
  listed: readonly string[],
  ops: readonly WorkloadOperation[],
  answeredId: (op: WorkloadOperation) => string | undefined,
): Anomaly[] {
  const answered = ops.filter((op) => op.outcome === 'ok').map(answeredId);
  const unknown = ops.filter((op) => op.outcome === 'unknown').length;
  const detail = { parent, listed, operations: ops.map(described) };
  const anomalies: Anomaly[] = answered
    .filter((id) => id === undefined || !listed.includes(id))
    .map((id) => ({
      kind: 'lost-effect',
      message: `${parent}: ${what} ${id} was answered but the API does not list it`,
      detail,
    }));
  const extra = listed.filter((id) => !answered.includes(id));
  if (extra.length > unknown)
    anomalies.push({
      kind: 'duplicate-effect',
      message: `${parent} has ${extra.length} ${what}(s) no answer named (${extra.join(', ')}), but only ${unknown} of its creations went unanswered`,
      detail,
    });
  return anomalies;
}

/** Customers, wallets, external accounts, virtual accounts and deposit addresses: one per creation. */
function judgeCreations(world: World, ops: readonly WorkloadOperation[]): Anomaly[] {
  const customers = world.customers.map((c) => ({ id: c.id, marker: customerMarker(c.lastName) }));
  const marked = (resources: World['externalAccounts']) => resources.map((r) => ({ id: r.id, marker: markerOf(r) }));
  const walletsOf = groupBy(world.wallets, (w) => w.customerId);
  const walletOps = groupBy(
    ops.filter((op) => op.kind === 'createWallet'),
    (op) => op.subject.customerId,
  );
  const parents = new Set([...walletsOf.keys(), ...walletOps.keys()].filter((id): id is string => !!id));
  return [
    ...judgeMarked('customer', ['createCustomer'], customers, ops),
    ...judgeMarked(
      'external account',
      ['createBankAccount', 'registerCard', 'createExternalWallet'],
      marked(world.externalAccounts),
      ops,
    ),
    ...judgeMarked('virtual account', ['createVirtualAccount'], marked(world.virtualAccounts), ops),
    ...judgeMarked('deposit address', ['createDepositAddress'], marked(world.depositAddresses), ops),
    ...judgeMarked('cash-in', ['createCashIn'], marked(world.cashIns), ops),
    ...[...parents].flatMap((customerId) =>
      judgeCounted(
        'wallet',
        `customer ${customerId}`,
        (walletsOf.get(customerId) ?? []).map((w) => w.id),
        walletOps.get(customerId) ?? [],
        (op) => op.response?.id,
      ),
    ),
  ];
}

const DEPOSIT_KINDS = ['inboundTransfer', 'cryptoDeposit', 'cashDeposit'];
const inletOf = (op: WorkloadOperation) =>
  op.subject.virtualAccountId ?? op.subject.depositAddressId ?? op.subject.cashInId;

/** What an operation asked to move against what its transaction is priced at. */
function judgePricing(op: WorkloadOperation, t: ApiTransaction | undefined): Anomaly[] {
  const priced = t?.pricing?.source?.amountGross;
  if (!t || op.subject.amount === undefined || (priced !== undefined && units(priced) === units(op.subject.amount)))
    return [];
  return [
    {
      kind: 'pricing-mismatch',
      message: `${t.id} moves ${priced ?? 'nothing'} from its source; op ${op.n} (${op.kind}) asked for ${op.subject.amount}`,
      detail: { transaction: t, operation: described(op) },
    },
  ];
}

/** What a deposit comes in through: a virtual account and a deposit address take many, a cash-in one. */
const INLETS = ['virtualAccount', 'depositAddress', 'cashIn'];
/** A transaction made by accepting a quote: it carries the quote's metadata, so the quote's marker. */
const fromQuote = (t: ApiTransaction) => !t.precursor || t.precursor.type === 'quote';
/** A transaction made by a deposit to an inlet. */
const fromInlet = (t: ApiTransaction) => INLETS.includes(t.precursor?.type ?? '');

/** One transaction per accepted quote, priced as the quote asked; none from a quote the workload did not accept. */
function judgeAcceptances(world: World, ops: readonly WorkloadOperation[]): Anomaly[] {
  const byId = new Map(world.transactions.map((t) => [t.id, t]));
  const byQuoteOp = groupBy(world.transactions.filter(fromQuote), markerOf);
  const accepts = ops.filter((op) => op.kind === 'createTransaction');
  const anomalies = accepts.flatMap((op) => {
    const found = (byQuoteOp.get(op.subject.quoteOp) ?? []).map((t) => t.id);
    return [
      ...judgeEffects('transaction', op, found, op.response?.id),
      ...(found.length === 1 ? judgePricing(op, byId.get(found[0])) : []),
    ];
  });
  const accepted = new Set(accepts.map((op) => op.subject.quoteOp));
  for (const [marker, transactions] of byQuoteOp)
    if (marker === undefined || !accepted.has(marker))
      anomalies.push(
        ...transactions.map((t) => ({
          kind: 'unexpected-effect',
          message: `${t.id} ${marker === undefined ? 'names no operation of the workload' : `comes from the quote of op ${marker}, which no operation accepted`}`,
          detail: { transaction: t },
        })),
      );
  return anomalies;
}

/** One transaction per simulated deposit to an inlet, priced as the deposit; no transaction of another origin. */
function judgeDeposits(world: World, ops: readonly WorkloadOperation[]): Anomaly[] {
  const byId = new Map(world.transactions.map((t) => [t.id, t]));
  const deposits = ops.filter((op) => DEPOSIT_KINDS.includes(op.kind));
  const depositOps = groupBy(deposits, inletOf);
  const byInlet = groupBy(world.transactions.filter(fromInlet), (t) => t.precursor!.id);
  const inlets = new Set([...byInlet.keys(), ...depositOps.keys()].filter((id): id is string => !!id));
  return [
    ...[...inlets].flatMap((inlet) =>
      judgeCounted(
        'deposit transaction',
        `inlet ${inlet}`,
        (byInlet.get(inlet) ?? []).map((t) => t.id),
        depositOps.get(inlet) ?? [],
        (op) => op.response?.transactionId,
      ),
    ),
    ...deposits
      .filter((op) => op.outcome === 'ok')
      .flatMap((op) => judgePricing(op, byId.get(op.response?.transactionId))),
    ...world.transactions
      .filter((t) => !fromQuote(t) && !fromInlet(t))
      .map((t) => ({
        kind: 'unexpected-effect',
        message: `${t.id} comes from a ${t.precursor?.type} the workload never used`,
        detail: { transaction: t },
      })),
  ];
}

// ---- money ----

/** subStatus ?? status: where a transaction is. */
export function stateOf(t: Pick<ApiTransaction, 'status' | 'subStatus'>): string {
  return t.subStatus ?? t.status;
}

/** End states in which a wallet's money came back to it (a refund, an uncollected cash pickup). */
const RETURNED = new Set(['failed.returnedToSender', 'completed.cashPickupExpired']);

const walletOf = (side: Side | undefined) => (side?.type === 'walletOms' ? side.details?.id : undefined);

/** What a wallet should hold: a certain part, and amounts that may or may not have reached it. */
interface Expected {
  certain: bigint;
  /** Each may have been added, or not: a funding left unknown, a credit or refund of a transaction still moving. */
  optional: bigint[];
  funded: bigint;
  credited: bigint;
  debited: bigint;
}

const emptyExpectation = (): Expected => ({ certain: 0n, optional: [], funded: 0n, credited: 0n, debited: 0n });

/**
 * Every wallet's expectation: its fundings (answered ones for sure, unknown ones maybe); each transaction's
 * source amount taken from its source wallet unless it came back; its destination amount given to its
 * destination wallet once completed. A transaction still moving may have done either.
 */
function expectations(world: World, ops: readonly WorkloadOperation[]): Map<string, Expected> {
  const wallets = new Map<string, Expected>();
  const of = (id: string) => wallets.get(id) ?? wallets.set(id, emptyExpectation()).get(id)!;
  for (const op of ops.filter((op) => op.kind === 'fundWallet' && op.subject.walletId)) {
    const w = of(op.subject.walletId!);
    const amount = units(op.subject.amount);
    if (op.outcome === 'ok') {
      w.certain += amount;
      w.funded += amount;
    } else if (op.outcome === 'unknown') w.optional.push(amount);
  }
  for (const t of world.transactions) {
    const [source, destination] = [walletOf(t.source), walletOf(t.destination)];
    const moving = !restsWhereItIs(t);
    if (source && !RETURNED.has(stateOf(t))) {
      const gross = units(t.pricing?.source?.amountGross);
      of(source).certain -= gross;
      of(source).debited += gross;
      if (stateOf(t) === 'processing.returningToSender') of(source).optional.push(gross);
    }
    if (destination) {
      const net = units(t.pricing?.destination?.amountNet);
      if (t.status === 'completed') {
        of(destination).certain += net;
        of(destination).credited += net;
      } else if (moving) of(destination).optional.push(net);
    }
  }
  return wallets;
}

/** Past this many distinct sums, whether an amount is a sum of optional ones is judged by their range. */
const SUBSET_SUMS_LIMIT = 1 << 14;

/** Whether `difference` is the sum of some of the (positive) `optional` amounts, each used at most once. */
export function isSumOfSome(difference: bigint, optional: readonly bigint[]): boolean {
  if (difference === 0n) return true;
  const sums = new Set<bigint>([0n]);
  for (const amount of optional) {
    for (const sum of [...sums]) sums.add(sum + amount);
    if (sums.size > SUBSET_SUMS_LIMIT) return difference > 0n && difference <= optional.reduce((a, b) => a + b, 0n);
  }
  return sums.has(difference);
}

function showExpected(e: Expected): string {
  const maybe = e.optional.length > 0 ? `, plus some of ${e.optional.map(showUnits).join(', ')}` : '';
  return `${showUnits(e.certain)} (funded ${showUnits(e.funded)} + in ${showUnits(e.credited)} - out ${showUnits(e.debited)}${maybe})`;
}

/** Each wallet's balance, none negative, and the project's total, against what the transactions explain. */
function judgeBalances(world: World, ops: readonly WorkloadOperation[]): Anomaly[] {
  const expected = expectations(world, ops);
  const anomalies: Anomaly[] = [];
  for (const w of world.wallets) {
    const balance = units(w.balance);
    const e = expected.get(w.id) ?? emptyExpectation();
    if (balance < 0n)
      anomalies.push({ kind: 'negative-balance', message: `wallet ${w.id} holds ${w.balance}`, detail: { wallet: w } });
    if (!isSumOfSome(balance - e.certain, e.optional))
      anomalies.push({
        kind: 'balance-mismatch',
        message: `wallet ${w.id} holds ${showUnits(balance)}, expected ${showExpected(e)}`,
        detail: { wallet: w, expected: { ...e, certain: showUnits(e.certain), optional: e.optional.map(showUnits) } },
      });
  }
  const total = emptyExpectation();
  for (const e of expected.values()) {
    total.certain += e.certain;
    total.optional.push(...e.optional);
    total.funded += e.funded;
    total.credited += e.credited;
    total.debited += e.debited;
  }
  const held = world.wallets.reduce((sum, w) => sum + units(w.balance), 0n);
  const listed = new Set(world.wallets.map((w) => w.id));
  if (!isSumOfSome(held - total.certain, total.optional))
    anomalies.push({
      kind: 'ledger-imbalance',
      message: `the project's ${world.wallets.length} wallets hold ${showUnits(held)} in all, expected ${showExpected(total)}`,
      detail: {
        held: showUnits(held),
        expected: showUnits(total.certain),
        // Wallets that fundings or transactions name but the API does not list: their money is nowhere to read.
        unlisted: [...expected.keys()].filter((id) => !listed.has(id)),
      },
    });
  return anomalies;
}

// ---- states ----

/**
 * Whether a transaction rests where it is once everything that runs on its own has run (docs/sandbox.md):
 * ended; waiting on the partner (awaitingAction); held for an operator after a leg failed (or a bank refund
 * reported only as initiated, .99); a payout the provider cannot be asked about (.97); a cash pickup waiting
 * to be collected.
 */
export function restsWhereItIs(t: ApiTransaction): boolean {
  if (['completed', 'failed', 'awaitingAction'].includes(t.status)) return true;
  const cents = t.pricing?.source?.amountGross ? centsOf(t.pricing.source.amountGross) : undefined;
  switch (t.subStatus) {
    case 'processing.underReview':
      return (t.legs ?? []).some((l) => l.status === 'failed') || cents === 99;
    case 'processing.payoutUnconfirmed':
      return cents === 97;
    case 'processing.cashPickupReady':
      return true;
    default:
      return false;
  }
}

/** A wallet's payout or transfer, by its cents (docs/sandbox.md "Transactions"; an amount of 10,000 is reviewed first). */
function walletTransferEnd(cents: number, reviewed: boolean): string {
  if (reviewed && cents === 98) return 'failed.returnedToSender';
  if (cents === 91) return 'failed.returnedToSender';
  if ([92, 94, 96].includes(cents)) return 'failed.outboundFailed';
  return cents === 97 ? 'processing.payoutUnconfirmed' : 'completed';
}

/**
 * A wallet's payout to an external wallet on a network that runs on a chain: the chain decides, not the cents
 * (docs/sandbox.md); only a review (10,000 and more) refuses, with .98, before anything is sent.
 */
function chainPayoutEnd(cents: number, reviewed: boolean): string {
  return reviewed && cents === 98 ? 'failed.returnedToSender' : 'completed';
}

/** A virtual account's deposit delivered to a wallet (docs/sandbox.md "The transaction of an inbound transfer"). */
function virtualAccountDepositEnd(cents: number, reviewed: boolean): string {
  if (reviewed && cents === 98) return 'failed.returnedToSender';
  if (cents === 91) return 'failed.providerDeclined';
  if (cents === 92) return 'failed.inboundFailed';
  if ([94, 96, 99].includes(cents)) return 'processing.underReview';
  return cents === 97 ? 'processing.payoutUnconfirmed' : 'completed';
}

/** A deposit address's deposit paid out to a bank account (docs/sandbox.md "The transaction of a deposit"). */
function depositAddressDepositEnd(cents: number, reviewed: boolean): string {
  if (reviewed && cents === 98) return 'failed.returnedToSender';
  if ([91, 92, 94, 96].includes(cents)) return 'processing.underReview';
  return cents === 97 ? 'processing.payoutUnconfirmed' : 'completed';
}

/**
 * A cash-in's crypto delivery to the wallet (docs/sandbox.md "Cash-ins", The transaction): a failure is final,
 * neither held nor refunded (the cash is at the till).
 */
function cashInDepositEnd(cents: number): string {
  if (cents === 91) return 'failed.providerDeclined';
  if ([92, 94, 96].includes(cents)) return 'failed.outboundFailed';
  return cents === 97 ? 'processing.payoutUnconfirmed' : 'completed';
}

/**
 * A cash pickup (docs/sandbox.md "The pickup"): it waits at the till until the customer collects it or lets it
 * expire; `pickup` is what the workload did there, if anything (undefined: it is not known whether it did).
 */
function pickupEnd(pickup: PickupOutcome | 'none' | undefined): string | undefined {
  if (pickup === 'none') return 'processing.cashPickupReady';
  if (pickup === undefined) return undefined;
  return pickup === 'collected' ? 'completed.cashPickupCollected' : 'completed.cashPickupExpired';
}

/**
 * Where the sandbox says a transaction ends when nobody acts on it; undefined for a corridor not predicted.
 * `pickup` tells what the customer did at the till, for a cash pickup.
 */
export function predictedEnd(
  t: ApiTransaction,
  pickup: PickupOutcome | 'none' | undefined = 'none',
  onChain = false,
): string | undefined {
  const amount = t.pricing?.source?.amountGross;
  if (!amount) return undefined;
  const [cents, reviewed] = [centsOf(amount), units(amount) >= units('10000')];
  if (t.destination?.type === 'cash') return pickupEnd(pickup);
  if (onChain && t.destination?.type === 'walletExternal') return chainPayoutEnd(cents, reviewed);
  if (t.source?.type === 'walletOms') return walletTransferEnd(cents, reviewed);
  if (t.precursor?.type === 'cashIn') return cashInDepositEnd(cents);
  if (t.precursor?.type === 'virtualAccount') return virtualAccountDepositEnd(cents, reviewed);
  if (t.precursor?.type === 'depositAddress') return depositAddressDepositEnd(cents, reviewed);
  return undefined;
}

const OPERATOR_KINDS = ['retry', 'refund', 'markFailed'];

/** Every transaction at rest, and where its cents say when no operator action may have touched it. */
function judgeStates(world: World, ops: readonly WorkloadOperation[]): Anomaly[] {
  const operated = new Set(
    ops
      .filter((op) => OPERATOR_KINDS.includes(op.kind) && op.outcome !== 'failed')
      .map((op) => op.subject.transactionId),
  );
  // What the customer did at each pickup's till: one answered operation, or one unanswered (either may hold).
  const pickups = new Map<string, PickupOutcome | undefined>();
  for (const op of ops.filter((op) => op.kind === 'collectPickup' && op.outcome !== 'failed'))
    pickups.set(op.subject.transactionId!, op.outcome === 'ok' ? op.subject.pickup : undefined);
  const anomalies: Anomaly[] = [];
  for (const t of world.transactions) {
    const legs = (t.legs ?? []).map((l) => `${l.kind} ${l.status}`).join(', ');
    if (!restsWhereItIs(t)) {
      anomalies.push({
        kind: 'stuck-transaction',
        message: `${t.id} is still ${stateOf(t)} after quiescence (legs: ${legs})`,
        detail: { transaction: t },
      });
      continue;
    }
    const pickup = pickups.has(t.id) ? pickups.get(t.id) : 'none';
    const predicted = operated.has(t.id) ? undefined : predictedEnd(t, pickup, world.chain !== undefined);
    if (predicted !== undefined && predicted !== stateOf(t))
      anomalies.push({
        kind: 'unexpected-outcome',
        message: `${t.id} (${t.pricing?.source?.amountGross}) ended ${stateOf(t)}; its cents say ${predicted} (legs: ${legs})`,
        detail: { transaction: t },
      });
  }
  return anomalies;
}

// ---- the chain ----

/**
 * Deposits the workload sent on chain are answered by the node (a hash), not by the platform: each is given the
 * transaction whose leg carries that hash, if any, as the id its answer names, so that the deposits' judging
 * (one transaction per deposit, priced as sent) reads them as it reads the sandbox's answers.
 */
function withChainDeposits(world: World, ops: WorkloadOperation[]): WorkloadOperation[] {
  if (!world.chain) return ops;
  const byHash = new Map<string, string>();
  for (const t of world.transactions)
    for (const leg of t.legs ?? []) if (leg.txHash) byHash.set(leg.txHash.toLowerCase(), t.id);
  return ops.map((op) =>
    op.method === 'TRANSFER' && op.kind === 'cryptoDeposit' && op.outcome === 'ok'
      ? { ...op, response: { ...op.response, transactionId: byHash.get(String(op.response?.txHash).toLowerCase()) } }
      : op,
  );
}

/** The books against the chain, and each payout to an external wallet against the transfer that paid it. */
function judgeChain(world: World): Anomaly[] {
  const chain = world.chain;
  if (!chain) return [];
  const anomalies: Anomaly[] = [];
  const r = chain.reconciliation;
  if (!atRest(r))
    anomalies.push({
      kind: 'chain-unreconciled',
      message: `${chain.network} at rest: ${r.unexplainedDifference} unexplained, ${r.inFlight} in flight (the chain holds ${r.chainHeld}, the ledger owes ${r.ledgerOwed}, the operator's float ${r.operatorFloat})`,
      detail: r,
    });
  const treasury = chain.treasury.toLowerCase();
  const fromTreasury = chain.transfers.filter((x) => x.from === treasury);
  const addressOf = new Map(world.externalAccounts.map((a) => [a.id, a.walletExternal?.address?.toLowerCase()]));
  const payouts = world.transactions.filter((t) => t.destination?.type === 'walletExternal');
  const owed = new Map<string, bigint>();
  for (const t of payouts) {
    const id = t.destination?.details?.id;
    const to = (t.destination?.details?.address ?? (id && addressOf.get(id)))?.toLowerCase();
    if (!to) continue;
    owed.set(to, owed.get(to) ?? 0n);
    if (t.status !== 'completed') continue;
    const net = units(t.pricing?.destination?.amountNet);
    owed.set(to, owed.get(to)! + net);
    const hash = t.legs?.find((l) => l.kind === 'payout')?.txHash?.toLowerCase();
    const landed = fromTreasury.filter((x) => x.hash === hash && x.to === to && units(x.amount) === net);
    if (landed.length !== 1)
      anomalies.push({
        kind: 'chain-payout-mismatch',
        message: `${t.id} completed paying ${showUnits(net)} to ${to} with ${hash ?? 'no hash'}, which the chain has as ${JSON.stringify(chain.transfers.filter((x) => x.hash === hash))}`,
        detail: { transaction: t },
      });
  }
  for (const [to, expected] of owed) {
    const sent = fromTreasury.filter((x) => x.to === to).reduce((sum, x) => sum + units(x.amount), 0n);
    if (sent !== expected)
      anomalies.push({
        kind: sent > expected ? 'chain-overpaid' : 'chain-underpaid',
        message: `the treasury sent ${to} ${showUnits(sent)} on chain; its completed payouts add up to ${showUnits(expected)}`,
        detail: { transfers: fromTreasury.filter((x) => x.to === to) },
      });
  }
  return anomalies;
}

// ---- events and webhooks ----

/** An envelope's fields that an event and every delivery of it share (docs/webhooks.md, the Events API). */
function envelope(e: Record<string, unknown>): string {
  const { event, eventType, previousStatus, sequence, occurredAt, changedFields, data } = e;
  return canonical({ event, eventType, previousStatus, sequence, occurredAt, changedFields, data });
}

/** JSON with every object's keys sorted, so that equal values compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** The first arrival of each delivery (deliveries are at least once), in arrival order, without test sends. */
function firstArrivals(received: readonly ReceivedDelivery[]): ReceivedDelivery[] {
  const first = new Map<string, ReceivedDelivery>();
  for (const d of received) if (d.event !== 'webhook.test' && !first.has(d.deliveryId)) first.set(d.deliveryId, d);
  return [...first.values()];
}

/** Every event reached the receiver, and every delivery of the endpoint was delivered. */
function judgeMissing(world: World, arrivals: readonly ReceivedDelivery[]): Anomaly[] {
  const arrived = new Set(arrivals.map((d) => d.eventId));
  return [
    ...world.events
      .filter((e) => !arrived.has(e.id))
      .map((e) => ({
        kind: 'webhook-missing',
        message: `event ${e.id} (${e.event ?? e.eventType} of ${e.data?.id}, sequence ${e.sequence}) never reached the receiver`,
        detail: { event: e },
      })),
    ...world.deliveries
      .filter((d) => !d.test && d.status !== 'delivered')
      .map((d) => ({
        kind: 'webhook-missing',
        message: `delivery ${d.id} of event ${d.eventId} (${d.event}) is ${d.status} after quiescence`,
        detail: { delivery: d },
      })),
  ];
}

/**
 * Every delivery is signed with the endpoint's key, and is an event of the Events API carrying its envelope
 * exactly; except, for the latter, deliveries of events past the API's retention (`expired`).
 */
function judgeDelivered(
  world: World,
  arrivals: readonly ReceivedDelivery[],
  expired: ReadonlySet<ReceivedDelivery>,
): Anomaly[] {
  const events = new Map(world.events.map((e) => [e.id, e]));
  const anomalies: Anomaly[] = [];
  for (const d of arrivals) {
    const event = events.get(d.eventId);
    if (expired.has(d)) {
      // Its event is no longer listed, by design.
    } else if (!event)
      anomalies.push({
        kind: 'events-mismatch',
        message: `delivery ${d.deliveryId} (${d.event} of ${d.resourceId}) names event ${d.eventId}, which the Events API does not list`,
        detail: { delivery: d },
      });
    else if (envelope(event) !== envelope(d.body ?? {}))
      anomalies.push({
        kind: 'events-mismatch',
        message: `delivery ${d.deliveryId} of event ${d.eventId} carries another envelope than the Events API shows`,
        detail: { delivery: d.body, event },
      });
    if (d.signature !== 'valid')
      anomalies.push({
        kind: 'webhook-signature',
        message: `delivery ${d.deliveryId} does not verify: ${d.signature}`,
        detail: { delivery: d },
      });
  }
  return anomalies;
}

/**
 * Every resource reads as its latest event (by `sequence`) announced it, field for field: what a partner
 * rebuilds from the events equals the service's read model (docs/events.md: each event carries the resource as
 * it stood right after it). Transactions, customers, external accounts, virtual accounts, deposit addresses
 * and cash-ins; each must have been announced at least once.
 */
function judgeReadModels(world: World, events: readonly ApiEvent[]): Anomaly[] {
  const latest = new Map<string, ApiEvent>();
  for (const e of events) {
    const id = e.data?.id;
    if (!id) continue;
    const held = latest.get(id);
    if (!held || (e.sequence ?? 0) > (held.sequence ?? 0)) latest.set(id, e);
  }
  const read: Array<[string, ReadonlyArray<{ id: string }>]> = [
    ['transaction', world.transactions],
    ['customer', world.customers],
    ['external account', world.externalAccounts],
    ['virtual account', world.virtualAccounts],
    ['deposit address', world.depositAddresses],
    ['cash-in', world.cashIns],
  ];
  const anomalies: Anomaly[] = [];
  for (const [what, resources] of read) {
    for (const resource of resources) {
      const e = latest.get(resource.id);
      const announced = e?.data as Record<string, unknown> | undefined;
      const fields = announced ? differingFields(announced, resource as Record<string, unknown>) : [];
      if (announced && fields.length === 0) continue;
      anomalies.push({
        kind: 'read-model-mismatch',
        message: e
          ? `${what} ${resource.id} reads otherwise than its latest event (${e.event ?? e.eventType}, sequence ${e.sequence}) announced it: ${fields.join(', ')}`
          : `${what} ${resource.id} was never announced`,
        detail: { read: resource, announced: e },
      });
    }
  }
  return anomalies;
}

/** The fields, at the top, in which two resources differ. */
function differingFields(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => canonical(a[k]) !== canonical(b[k]));
}

/** Within each resource, `sequence` never goes back along `items` (oldest first). */
function outOfSequence<T>(
  items: readonly T[],
  resource: (item: T) => string | undefined,
  sequence: (item: T) => number | undefined,
): Array<{ item: T; after: number }> {
  const highest = new Map<string, number>();
  const found: Array<{ item: T; after: number }> = [];
  for (const item of items) {
    const [id, seq] = [resource(item), sequence(item)];
    if (id === undefined || seq === undefined) continue;
    const before = highest.get(id);
    if (before !== undefined && seq < before) found.push({ item, after: before });
    else highest.set(id, seq);
  }
  return found;
}

/**
 * A resource's deliveries are created in the order of its changes, the Events API lists them so, and they
 * arrive so (each sent once the one before it was answered), unless the earlier one failed an attempt and
 * was retried on its own schedule (docs/webhooks.md).
 */
function judgeOrder(
  world: World,
  arrivals: readonly ReceivedDelivery[],
  options: CheckOptions,
  counts: Record<string, number>,
): Anomaly[] {
  const events = new Map(world.events.map((e) => [e.id, e]));
  const resource = (eventId: string) => events.get(eventId)?.data?.id;
  const sequence = (eventId: string) => events.get(eventId)?.sequence;
  const created = outOfSequence(
    [...world.deliveries].reverse().filter((d) => !d.test),
    (d) => resource(d.eventId),
    (d) => sequence(d.eventId),
  );
  const listed = outOfSequence(
    [...world.events].reverse(),
    (e) => e.data?.id,
    (e) => e.sequence,
  );
  const records = new Map(world.deliveries.map((d) => [d.id, d]));
  const arrived = outOfSequence(
    arrivals,
    (d) => d.resourceId,
    (d) => d.sequence,
  );
  const retried = arrived.filter(({ item }) => (records.get(item.deliveryId)?.attemptCount ?? 1) > 1);
  const unexplained = arrived.filter((a) => !retried.includes(a));
  counts['deliveries.outOfOrder.afterRetry'] = retried.length;
  counts['deliveries.outOfOrder.unexplained'] = unexplained.length;
  return [
    ...created.map(({ item, after }) => ({
      kind: 'webhook-order',
      message: `delivery ${item.id} (${item.event} of ${resource(item.eventId)}, sequence ${sequence(item.eventId)}) was created after one of sequence ${after}`,
      detail: { delivery: item, event: events.get(item.eventId) },
    })),
    ...listed.map(({ item, after }) => ({
      kind: 'webhook-order',
      message: `the Events API lists event ${item.id} (${item.event ?? item.eventType} of ${item.data?.id}, sequence ${item.sequence}) after one of sequence ${after}`,
      detail: { event: item },
    })),
    ...(options.arrivalOrderIsAnomaly ? unexplained : []).map(({ item, after }) => ({
      kind: 'webhook-order',
      message: `delivery ${item.deliveryId} (${item.event} of ${item.resourceId}, sequence ${item.sequence}) arrived after one of sequence ${after}, with no failed attempt before it`,
      detail: { delivery: item, record: records.get(item.deliveryId) },
    })),
  ];
}

function judgeWebhooks(world: World, options: CheckOptions, counts: Record<string, number>): Anomaly[] {
  const arrivals = firstArrivals(world.received);
  counts['deliveries.received'] = world.received.length;
  counts['deliveries.receivedAgain'] = world.received.length - arrivals.length;
  const listed = new Set(world.events.map((e) => e.id));
  const retainedFrom = Date.parse(world.clockNow) - (options.retentionDays ?? 30) * 86_400_000;
  const expired = arrivals.filter((d) => !listed.has(d.eventId) && Date.parse(d.body?.createdAt) < retainedFrom);
  counts['deliveries.pastRetention'] = expired.length;
  // What the Events API no longer lists still tells a transaction's latest state, as its delivery carried it.
  const known = [...world.events, ...expired.map((d): ApiEvent => ({ ...d.body, id: d.eventId }))];
  return [
    ...judgeMissing(world, arrivals),
    ...judgeDelivered(world, arrivals, new Set(expired)),
    ...judgeReadModels(world, known),
    ...judgeOrder(world, arrivals, options, counts),
  ];
}

// ---- counts ----

function tally(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Operations by outcome and by kind, resources read, transactions by state, anomalies by kind. */
function countsOf(world: World, history: readonly Operation[], anomalies: readonly Anomaly[]): Record<string, number> {
  const counts: Record<string, number> = { operations: history.length };
  for (const op of history) {
    tally(counts, `operations.${op.outcome}`);
    tally(counts, `operations.${op.kind}.${op.outcome}`);
  }
  counts.customers = world.customers.length;
  counts.wallets = world.wallets.length;
  counts.externalAccounts = world.externalAccounts.length;
  counts.virtualAccounts = world.virtualAccounts.length;
  counts.depositAddresses = world.depositAddresses.length;
  counts.transactions = world.transactions.length;
  for (const t of world.transactions) tally(counts, `transactions.${stateOf(t)}`);
  counts.events = world.events.length;
  counts.deliveries = world.deliveries.length;
  if (world.chain) {
    counts['chain.transfers'] = world.chain.transfers.length;
    counts['chain.payouts'] = world.transactions.filter((t) => t.destination?.type === 'walletExternal').length;
  }
  counts.anomalies = anomalies.length;
  for (const a of anomalies) tally(counts, `anomalies.${a.kind}`);
  return counts;
}
