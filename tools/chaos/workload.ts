// The fault run's workload (`npm run chaos`): partner clients moving money through the platform's public
// gateways while the nemesis injects faults, every mutating request recorded as an operation of the history
// (history.ts) for the checker (checker.ts). It uses the platform only as a partner and an operator would:
// a project of its own made through /admin, a key pair and token, the partner routes and the sandbox's
// simulation routes, and a webhook endpoint pointed at a receiver in this process that records every delivery.
//
// Each operation carries an Idempotency-Key of its own (the same on every retry) and is sent as the partner
// client package retries (409 in flight, 429, 5xx, lost connections, attempts cut off after 10 s), from one
// gateway to the next, until it is answered or its deadline passes: `ok` (2xx), `failed` (a definite
// refusal, its error kept) or `unknown` (it may or may not have taken effect). The checker then finds out what
// did. Every resource the workload creates names the operation that created it (a customer's last name, the
// `metadata.chaosOp` of an external account, a quote and so its transaction, a virtual account, a deposit
// address), so that the checker can tell one effect per operation from two, or none.
//
// A seeded PRNG per client (seeded-random.ts) chooses the operations; which
// operation gets which number, and how they interleave with the faults and the rails' timers, does not repeat.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { verifyWebhook } from '@meridian/money-movement';
import { viemAccounts } from '@mm/platform/chain';
import { ChainParty, CHAIN_NETWORK } from './chain';
import type { Operation, Outcome } from './history';
import type { ChaosTarget } from './target';
import { seededRandom } from './seeded-random';

// ---- exact money: whole numbers of 10^-18 units in a bigint, as the ledger's numeric(38,18); no floats ----

const SCALE = 10n ** 18n;

/** An amount with at most 18 decimals as a whole number of 10^-18 units; 0 for none. */
export function units(amount: string | null | undefined): bigint {
  if (amount === null || amount === undefined) return 0n;
  const match = /^(-?)(\d+)(?:\.(\d{1,18}))?$/.exec(amount);
  if (!match) throw new Error(`not an amount: ${amount}`);
  const value = BigInt(match[2]) * SCALE + BigInt((match[3] ?? '').padEnd(18, '0'));
  return match[1] ? -value : value;
}

/** Units as a decimal amount, without trailing zeros. */
export function showUnits(value: bigint): string {
  const sign = value < 0n ? '-' : '';
  const abs = value < 0n ? -value : value;
  const fraction = (abs % SCALE).toString().padStart(18, '0').replace(/0+$/, '');
  return `${sign}${abs / SCALE}${fraction ? `.${fraction}` : ''}`;
}

/** The cents of an amount, which choose a sandbox transfer's outcome (docs/sandbox.md, "Transactions"). */
export function centsOf(amount: string): number {
  return Number((amount.split('.')[1] ?? '').padEnd(2, '0').slice(0, 2));
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---- the API as a retrying partner client sees it ----

/** An attempt not answered by then is given up (its connection may be blackholed) and sent again. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** An operation not answered by then stops being sent: its outcome is unknown. */
export const OPERATION_DEADLINE_MS = 30_000;
const BACKOFF_FIRST_MS = 100;
const BACKOFF_MAX_MS = 2_000;
/** 5xx answers that are the platform's decision rather than a fault: sent again, they would answer the same. */
const DEFINITE_5XX = new Set(['unconfirmedPayoutUnverifiable', 'VirtualAccountCloseUnavailable']);

/** Who a request is sent as: the partner (the project's token), the operator (the admin token), or nobody. */
export type Auth = 'partner' | 'admin' | 'none';

export interface ApiRequest {
  method: string;
  /** Under /v0.13. */
  path: string;
  body?: unknown;
  idempotencyKey?: string;
  auth: Auth;
}

export interface Answer {
  status: number;
  body: any;
  /** Retry-After, in seconds, when the answer has one. */
  retryAfter?: number;
}

/** A request sent until answered or given up. */
export interface Sent {
  outcome: Outcome;
  /** The last HTTP status seen. */
  status?: number;
  /** The last answer's body. */
  body?: any;
  attempts: number;
  /** Why it failed or is unknown, in a line. */
  error?: string;
}

export interface ApiOptions {
  /** Base URLs (http://127.0.0.1:port), each serving the whole API; attempts go to each in turn. */
  gateways: readonly string[];
  adminToken: string;
  /** The partner's bearer token, when it is known already. */
  token?: string;
  /** The key pair the token is issued for: a token refused with 401 is renewed from it. */
  credentials?: { apiKey: string; apiSecret: string };
  attemptTimeoutMs?: number;
}

/** Whether an answer is one a partner client waits out and sends again with the same key. */
function worthRetrying(answer: Answer): boolean {
  const error = answer.body?.error;
  if (answer.status === 429) return true;
  // 409 Conflict stores nothing and says to retry, like a key still held by the first attempt.
  if (answer.status === 409) return error === 'IdempotencyKeyInFlight' || error === 'Conflict';
  // A request that fails stores nothing and undoes everything (docs/request-path.md), so a 5xx is sent again.
  return answer.status >= 500 && !DEFINITE_5XX.has(error);
}

function describeError(error: unknown): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return 'no answer within the attempt timeout';
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(error);
}

function describeAnswer(answer: Answer): string {
  const error = answer.body?.error;
  return `${answer.status}${error ? ` ${error}` : ''}${answer.body?.cause ? `: ${answer.body.cause}` : ''}`;
}

/** The platform's public API through the fault run's gateways, sent as a retrying partner client sends. */
export class ChaosApi {
  private turn = 0;
  private token: string | undefined;

  constructor(private readonly options: ApiOptions) {
    if (options.gateways.length === 0) throw new Error('the workload needs at least one gateway');
    this.token = options.token;
  }

  /** One attempt, at the next gateway in turn; throws when the connection fails or the attempt times out. */
  async attempt(request: ApiRequest): Promise<Answer> {
    const gateway = this.options.gateways[this.turn++ % this.options.gateways.length];
    const headers: Record<string, string> = {};
    const bearer = request.auth === 'admin' ? this.options.adminToken : request.auth === 'partner' ? this.token : '';
    if (bearer) headers.authorization = `Bearer ${bearer}`;
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    if (request.idempotencyKey) headers['idempotency-key'] = request.idempotencyKey;
    const response = await fetch(`${gateway}/v0.13${request.path}`, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(this.options.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = { error: 'NotJson', cause: text.slice(0, 200) };
    }
    const retryAfter = response.headers.get('retry-after');
    const seconds = retryAfter === null ? NaN : Number(retryAfter);
    return { status: response.status, body, retryAfter: Number.isFinite(seconds) ? seconds : undefined };
  }

  /**
   * Sends a request until it is answered with something other than an answer worth waiting out, or until
   * `deadlineMs` has passed since the first attempt (then `unknown`). A partner token refused with 401 is
   * renewed once per refusal from the key pair, and the request sent again.
   */
  async send(request: ApiRequest, deadlineMs = OPERATION_DEADLINE_MS): Promise<Sent> {
    const started = Date.now();
    let last: Answer | undefined;
    let lastError = 'never sent';
    for (let attempts = 1; ; attempts++) {
      try {
        last = await this.attempt(request);
        lastError = describeAnswer(last);
      } catch (error) {
        last = undefined;
        lastError = describeError(error);
      }
      if (last && last.status < 300) return { outcome: 'ok', status: last.status, body: last.body, attempts };
      if (last?.status === 401 && request.auth === 'partner' && this.options.credentials) {
        await this.renewToken().catch(() => undefined);
      } else if (last && !worthRetrying(last)) {
        return { outcome: 'failed', status: last.status, body: last.body, attempts, error: lastError };
      }
      const backoff = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.min(attempts - 1, 10));
      // Retry-After, when the answer says how long, within the longest backoff: the deadline is what bounds it.
      const wait =
        last?.retryAfter !== undefined
          ? Math.min(BACKOFF_MAX_MS, last.retryAfter * 1000)
          : backoff * (0.5 + Math.random() / 2);
      if (Date.now() + wait - started > deadlineMs) {
        const error = `no answer in ${Math.round(deadlineMs / 1000)} s (${attempts} attempts; last: ${lastError})`;
        return { outcome: 'unknown', status: last?.status, body: last?.body, attempts, error };
      }
      await sleep(wait);
    }
  }

  /** A read that must succeed: its body; throws with the last answer when it is refused or never answered. */
  async get(path: string, auth: Auth = 'partner', deadlineMs = OPERATION_DEADLINE_MS): Promise<any> {
    const sent = await this.send({ method: 'GET', path, auth }, deadlineMs);
    if (sent.outcome !== 'ok') throw new Error(`GET ${path}: ${sent.error}`);
    return sent.body;
  }

  /** Every item of a cursor list (`{data, hasMore, nextCursor}`), page by page. */
  async list(path: string, auth: Auth = 'partner'): Promise<any[]> {
    const items: any[] = [];
    const join = path.includes('?') ? '&' : '?';
    for (let cursor: string | undefined; ;) {
      const page = await this.get(
        `${path}${join}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        auth,
      );
      items.push(...page.data);
      if (!page.hasMore) return items;
      cursor = page.nextCursor;
    }
  }

  /** A new partner token from the key pair. */
  async renewToken(): Promise<void> {
    if (!this.options.credentials) throw new Error('no key pair to renew the token from');
    const sent = await this.send({ method: 'POST', path: '/auth/token', body: this.options.credentials, auth: 'none' });
    if (sent.outcome !== 'ok') throw new Error(`POST /auth/token: ${sent.error}`);
    this.token = sent.body.accessToken;
  }
}

// ---- the webhook receiver ----

/** A delivery as the receiver took it. */
export interface ReceivedDelivery {
  /** Webhook-Id: the delivery (`whd_…`), the same on every attempt. */
  deliveryId: string;
  /** Webhook-Event-Id: the event (`evt_…`), as the Events API lists it. */
  eventId: string;
  /** `event ?? eventType`. */
  event: string;
  /** `data.id`: the resource the event is about. */
  resourceId?: string;
  sequence?: number;
  /** Date.now() when it arrived. */
  arrivedAt: number;
  body: any;
  /** `valid`, or why the signature did not verify. */
  signature: string;
}

/**
 * A node:http server on loopback standing for the partner's webhook receiver: it answers every delivery 200
 * at once (so that the platform never has a reason to retry one) and keeps it, its signature checked against
 * the endpoint's signing key as the client package checks it.
 */
export class DeliveryReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  /** Date.now() of the last arrival (0: none yet), so that a caller can wait for the deliveries to stop. */
  lastArrivalAt = 0;
  /** The endpoint's signing key, once the endpoint exists. */
  signingKey: string | undefined;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<DeliveryReceiver> {
    let receiver: DeliveryReceiver | undefined = undefined;
    const server = createServer((req, res) => receiver!.take(req, res));
    receiver = new DeliveryReceiver(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/chaos-webhooks`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      this.deliveries.push({
        deliveryId: String(req.headers['webhook-id'] ?? body?.id ?? ''),
        eventId: String(req.headers['webhook-event-id'] ?? ''),
        event: body?.event ?? body?.eventType ?? '',
        resourceId: body?.data?.id,
        sequence: body?.sequence,
        arrivedAt: Date.now(),
        body,
        signature: this.verify(raw, req.headers['webhook-signature']),
      });
      this.lastArrivalAt = Date.now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  }

  private verify(raw: string, header: string | string[] | undefined): string {
    if (!this.signingKey) return 'arrived before the endpoint was known';
    try {
      verifyWebhook(raw, header, this.signingKey);
      return 'valid';
    } catch (error) {
      return (error as Error).message;
    }
  }
}

// ---- the set-up: a project, its partner, its webhook endpoint ----

export interface WorkloadSetup {
  readonly projectId: string;
  readonly api: ChaosApi;
  /** The partner's side of the chain a network runs on, when one does. */
  readonly chain?: ChainParty;
  /** The webhook endpoint (subscribed to `*`) that posts to the receiver. */
  readonly webhookId: string;
  readonly receiver: DeliveryReceiver;
  /** Every operation's Idempotency-Key is this and its number: unique to the project, the same on every retry. */
  readonly keyPrefix: string;
  readonly log: (line: string) => void;
  /** Stops the receiver. */
  close(): Promise<void>;
}

/** How long a set-up request may take: the platform may still be starting, or a fault not yet healed. */
const SETUP_DEADLINE_MS = 60_000;

/** The operator's features the workload needs: deposit addresses and cash pickup are off by default (docs/sandbox.md). */
const FEATURES = { depositAddresses: true, cashPickup: true };

async function required(api: ChaosApi, request: ApiRequest, what: string): Promise<any> {
  const sent = await api.send(request, SETUP_DEADLINE_MS);
  if (sent.outcome !== 'ok') throw new Error(`workload set-up: ${what}: ${sent.error}`);
  return sent.body;
}

/**
 * A key pair of the project. Its secret is shown once and kept only as a hash, so an answer lost to a fault
 * cannot be replayed (409 IdempotentReplayUnavailable, docs/running.md): the pair it made is left unused and
 * another is asked for with a new key.
 */
async function newKeyPair(api: ChaosApi, projectId: string, runId: string) {
  for (let ask = 1; ; ask++) {
    const path = `/admin/projects/${projectId}/api-keys`;
    const request: ApiRequest = { method: 'POST', path, idempotencyKey: `${runId}-keys-${ask}`, auth: 'admin' };
    const sent = await api.send(request, SETUP_DEADLINE_MS);
    // The key pair alone, whatever else an answer may carry: a token request refuses a field it does not take.
    if (sent.outcome === 'ok') {
      const { apiKey, apiSecret } = sent.body as { apiKey: string; apiSecret: string };
      return { apiKey, apiSecret };
    }
    if (sent.body?.error !== 'IdempotentReplayUnavailable' || ask >= 5)
      throw new Error(`workload set-up: POST ${path}: ${sent.error}`);
  }
}

/**
 * A project of the workload's own (its sandbox clock, events and money are nobody else's) with the features
 * it needs, a key pair and token, and a webhook endpoint subscribed to every event, posting to a receiver in
 * this process.
 */
export async function setUpWorkload(
  target: Pick<ChaosTarget, 'gateways' | 'adminToken' | 'chain'>,
  options: { seed: number; log?: (line: string) => void },
): Promise<WorkloadSetup> {
  const log = options.log ?? (() => undefined);
  // Set-up keys are the run's own: a second run with the same seed on the same platform makes a new project.
  const runId = `chaos-${options.seed}-${randomUUID()}`;
  const admin = new ChaosApi({ gateways: target.gateways, adminToken: target.adminToken });
  const project = await required(
    admin,
    {
      method: 'POST',
      path: '/admin/projects',
      body: { name: `chaos-${options.seed}`, features: FEATURES },
      idempotencyKey: `${runId}-project`,
      auth: 'admin',
    },
    'POST /admin/projects',
  );
  const credentials = await newKeyPair(admin, project.id, runId);
  const api = new ChaosApi({ gateways: target.gateways, adminToken: target.adminToken, credentials });
  await api.renewToken();
  const receiver = await DeliveryReceiver.start();
  try {
    const webhook = await required(
      api,
      {
        method: 'POST',
        path: '/webhooks',
        body: { url: receiver.url, subscriptions: ['*'], description: 'chaos run receiver' },
        idempotencyKey: `${runId}-webhook`,
        auth: 'partner',
      },
      'POST /webhooks',
    );
    receiver.signingKey = webhook.signingKey;
    log(`workload: project ${project.id}, webhook ${webhook.id} posting to ${receiver.url}`);
    return {
      projectId: project.id,
      api,
      ...(target.chain ? { chain: new ChainParty(target.chain) } : {}),
      webhookId: webhook.id,
      receiver,
      keyPrefix: `chaos-${project.id}`,
      log,
      close: () => receiver.close(),
    };
  } catch (error) {
    await receiver.close();
    throw error;
  }
}

// ---- operations ----

export type Corridor =
  'walletToWallet' | 'walletToExternalWallet' | 'walletToAch' | 'walletToWire' | 'walletToCard' | 'walletToCash';
export type PickupOutcome = 'collected' | 'expired';
export type OperatorAction = 'retry' | 'refund' | 'mark-failed';

/** What an operation was about: the ids it names and what it should change, for the checker. */
export interface Subject {
  customerId?: string;
  /** The wallet funded, or a transfer's source wallet. */
  walletId?: string;
  /** A wallet-to-wallet transfer's destination, or the wallet a virtual account delivers to. */
  toWalletId?: string;
  externalAccountId?: string;
  virtualAccountId?: string;
  depositAddressId?: string;
  cashInId?: string;
  /** An operator action's transaction, or a cash pickup's. */
  transactionId?: string;
  /** createTransaction: the number of the createQuote operation whose quote it accepts. */
  quoteOp?: number;
  corridor?: Corridor;
  /** The amount sent: a funding's, a quote's source amount, a simulated deposit's. */
  amount?: string;
  /** Where a transfer on chain went: a wallet's or a deposit address's address, or an external wallet's. */
  address?: string;
  /** What the customer did at the till: a cash pickup collected, or left to expire. */
  pickup?: PickupOutcome;
}

export interface WorkloadOperation extends Operation {
  subject: Subject;
}

/** An operation of the workload's (the history may hold the nemesis's too). */
export function isWorkloadOperation(op: Operation): op is WorkloadOperation {
  return (op as Partial<WorkloadOperation>).subject !== undefined;
}

/** The metadata key that names the operation that created a resource (a quote passes its own to its transaction). */
export const MARKER = 'chaosOp';
/** A customer's last name names its creating operation: customers have no metadata. */
export const customerLastName = (n: number) => `Op${n}`;

/** The operation a customer's last name names, if any. */
export function customerMarker(lastName: string | undefined): number | undefined {
  const match = /^Op(\d+)$/.exec(lastName ?? '');
  return match ? Number(match[1]) : undefined;
}

const ENDORSEMENTS = ['basic', 'cryptoCustody', 'usd'];
const BANK_US = { accountNumber: '123456789012', routingNumber: '021000021' };
const CARD = {
  cardNumber: '4242424242424242',
  expiryMonth: 12,
  expiryYear: 2031,
  cvc: '123',
  billingAddress: { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' },
};
/** The wallets' and inlets' network: the one the run's chain carries, when it has one. */
const NETWORK = CHAIN_NETWORK;
/**
 * Where cash is paid in and picked up (docs/sandbox.md "Cash-in and cash locations"): BigMart #1006 in Houston
 * takes both, and Texas allows the larger daily pickup total.
 */
const CASH_LOCATION = { locationId: 'loc_01m846c3h5e06945kk49eh66ba', locationReference: 'BIGMART-1006' };
const MAX_CUSTOMERS = 12;
const MAX_WALLETS_PER_CUSTOMER = 3;
/** A read made to choose an operation (a balance, a status) gives up sooner than an operation. */
const READ_DEADLINE_MS = 10_000;

/** A resource the sandbox provisions asynchronously (an external account, an inlet): usable once active. */
interface Provisioned {
  id: string;
  /** dead: refused when made, or provisioning failed; never used. */
  status: 'pending' | 'active' | 'dead';
}

const usable = (resource: Provisioned | undefined) => resource !== undefined && resource.status !== 'dead';

interface CustomerModel {
  id: string;
  /** Every endorsement asked for is active (the sandbox approves them shortly after). */
  endorsed: boolean;
  wallets: string[];
  bank?: Provisioned;
  card?: Provisioned;
  /** An external wallet of the customer's own, outside custody, and its address. */
  externalWallet?: Provisioned & { address: string };
  virtualAccount?: Provisioned;
  depositAddress?: Provisioned;
  /** Cash-ins made and not yet paid in, with the wallet each delivers to. */
  cashIns: Array<{ id: string; walletId: string }>;
}

/** What the clients share: what the API has answered so far, and the history. */
class Model {
  readonly customers: CustomerModel[] = [];
  readonly history: WorkloadOperation[] = [];
  /** Cash pickups accepted and not yet collected or left to expire: their transactions. */
  readonly pickups: string[] = [];
  /** Each wallet's address, as its creation answered it. */
  readonly addresses = new Map<string, string>();
  private next = 1;

  nextNumber(): number {
    return this.next++;
  }

  wallets(): Array<{ id: string; customer: CustomerModel }> {
    return this.customers.flatMap((customer) => customer.wallets.map((id) => ({ id, customer })));
  }
}

/** One of the concurrent partner clients: its own PRNG, the shared model. */
class Client {
  constructor(
    readonly index: number,
    readonly random: () => number,
    readonly setup: WorkloadSetup,
    readonly model: Model,
  ) {}

  /** A whole number from 0 to below `n`. */
  int(n: number): number {
    return Math.floor(this.random() * n);
  }

  pick<T>(items: readonly T[]): T | undefined {
    return items.length === 0 ? undefined : items[this.int(items.length)];
  }

  /**
   * Sends one operation with its own Idempotency-Key until it is answered or given up, and records it.
   * `request` gets the operation's number, for the marker its body carries.
   */
  async perform(
    kind: string,
    request: (n: number) => Omit<ApiRequest, 'idempotencyKey' | 'auth'> & { auth?: Auth },
    subject: Subject,
  ): Promise<WorkloadOperation> {
    const n = this.model.nextNumber();
    const { method, path, body, auth = 'partner' } = request(n);
    const idempotencyKey = `${this.setup.keyPrefix}-${n}`;
    const startedAt = Date.now();
    const sent = await this.setup.api.send({ method, path, body, idempotencyKey, auth });
    const op: WorkloadOperation = {
      n,
      client: this.index,
      kind,
      method,
      path,
      idempotencyKey,
      body,
      outcome: sent.outcome,
      status: sent.status,
      response: sent.outcome === 'unknown' ? undefined : sent.body,
      error: sent.error,
      attempts: sent.attempts,
      startedAt,
      endedAt: Date.now(),
      subject,
    };
    this.model.history.push(op);
    if (op.outcome === 'unknown') this.setup.log(`workload: op ${n} ${kind} unknown: ${op.error}`);
    return op;
  }

  /**
   * Sends test USDC from the partner's own account on the chain, as a sender outside the platform would, and
   * records it: ok once mined, failed when the token refused it, unknown when the node's answer was lost.
   */
  async performOnChain(kind: string, chain: ChainParty, to: string, amount: string, subject: Subject): Promise<void> {
    const n = this.model.nextNumber();
    const startedAt = Date.now();
    const sent = await chain.send(to, amount).then(
      (mined) => ({ outcome: mined.succeeded ? ('ok' as const) : ('failed' as const), response: mined }),
      (error: unknown) => ({ outcome: 'unknown' as const, response: undefined, error: describeError(error) }),
    );
    this.model.history.push({
      n,
      client: this.index,
      kind,
      method: 'TRANSFER',
      path: `${chain.network}:${to}`,
      body: { from: chain.address, to, amount },
      attempts: 1,
      startedAt,
      endedAt: Date.now(),
      subject: { ...subject, address: to },
      ...sent,
    });
    if (sent.outcome === 'unknown') this.setup.log(`workload: op ${n} ${kind} on chain unknown: ${sent.error}`);
  }

  /** A read to choose what to do next; undefined when it is not answered in time. */
  async read(path: string, auth: Auth = 'partner'): Promise<any> {
    return this.setup.api.get(path, auth, READ_DEADLINE_MS).catch(() => undefined);
  }

  /** Whether a customer's endorsements are all active, asking once more while they are not. */
  async endorsed(customer: CustomerModel): Promise<boolean> {
    if (customer.endorsed) return true;
    const read = await this.read(`/customers/${customer.id}`);
    customer.endorsed = read?.endorsements?.every((e: { status: string }) => e.status === 'active') ?? false;
    return customer.endorsed;
  }

  /** Whether a provisioned resource is active, asking once more while it is pending. */
  async active(resource: Provisioned | undefined, path: string): Promise<boolean> {
    if (!resource || resource.status === 'dead') return false;
    if (resource.status === 'active') return true;
    const status = (await this.read(`${path}/${resource.id}`))?.status;
    if (status === 'active') resource.status = 'active';
    else if (status && status !== 'pending') resource.status = 'dead';
    return resource.status === 'active';
  }

  /** What a wallet holds now, from the API; undefined when the read is not answered. */
  async balance(walletId: string): Promise<bigint | undefined> {
    const read = await this.read(`/wallets/${walletId}/balance`);
    return read?.data?.balance === undefined ? undefined : units(read.data.balance);
  }

  /**
   * Cents that choose a sandbox outcome now and then (docs/sandbox.md "Transactions": .91 refused, .92 and
   * .94 failed with the money held, .95 and .96 unanswered until the sweeper asks, .97 never confirmed),
   * plain cents otherwise; `magic` limits them to the endings the corridor takes.
   */
  cents(magic: readonly number[]): number {
    return this.random() < 0.15 && magic.length > 0 ? magic[this.int(magic.length)] : this.int(91);
  }
}

const WALLET_MAGIC_CENTS = [91, 92, 93, 94, 95, 96, 97, 98, 99];

/** An amount with these cents and, when micro is given, four more of usdc's places. */
function amountText(whole: number | bigint, cents: number, micro?: number): string {
  const tail = micro === undefined ? '' : String(micro).padStart(4, '0');
  return `${whole}.${String(cents).padStart(2, '0')}${tail}`;
}

/**
 * A transfer's source amount for a wallet holding `balance`: mostly up to a quarter of it; now and then more
 * than it holds (refused, InsufficientFunds), or 10,000 and more (held for compliance review first).
 */
function transferAmount(client: Client, balance: bigint, sixPlaces: boolean): string {
  const cents = client.cents(WALLET_MAGIC_CENTS);
  const micro = sixPlaces ? client.int(10_000) : undefined;
  const whole = balance / SCALE;
  const roll = client.random();
  if (roll < 0.02 && whole >= 10_500n) return amountText(10_000 + client.int(400), cents, micro);
  if (roll < 0.05) return amountText(whole + 1n + BigInt(client.int(100)), cents, micro);
  const room = Number(whole / 4n);
  const part = room >= 1 ? client.int(Math.min(room, 400)) : 0;
  // Never 0.00: an amount must be greater than zero.
  return amountText(part, part === 0 && cents === 0 ? 1 : cents, micro);
}

// ---- the actions a client chooses from ----

interface Action {
  name: string;
  weight: number;
  /** Whether the model has what the action needs. */
  possible(model: Model): boolean;
  run(client: Client): Promise<void>;
}

async function createCustomer(client: Client): Promise<void> {
  const op = await client.perform(
    'createCustomer',
    (n) => ({
      method: 'POST',
      path: '/customers',
      body: { type: 'individual', firstName: 'Chaos', lastName: customerLastName(n), endorsements: ENDORSEMENTS },
    }),
    {},
  );
  if (op.outcome === 'ok')
    client.model.customers.push({ id: op.response.id, endorsed: false, wallets: [], cashIns: [] });
}

async function createWallet(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => c.wallets.length < MAX_WALLETS_PER_CUSTOMER));
  if (!customer || !(await client.endorsed(customer))) return;
  const op = await client.perform(
    'createWallet',
    () => ({ method: 'POST', path: `/customers/${customer.id}/wallets`, body: { asset: 'usdc', network: NETWORK } }),
    { customerId: customer.id },
  );
  if (op.outcome === 'ok') {
    customer.wallets.push(op.response.id);
    if (op.response.address) client.model.addresses.set(op.response.id, op.response.address);
  }
}

/** A bank account or a card of a customer's, marked with the operation that registers it. */
async function registerAccount(client: Client, kind: 'bank' | 'card'): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => c[kind] === undefined));
  if (!customer) return;
  const owner = { kind: 'customer', customerId: customer.id };
  const op = await client.perform(
    kind === 'bank' ? 'createBankAccount' : 'registerCard',
    (n) =>
      kind === 'bank'
        ? {
            method: 'POST',
            path: '/external-accounts',
            body: { owner, type: 'bankUs', bankUs: BANK_US, metadata: { [MARKER]: String(n) } },
          }
        : {
            method: 'POST',
            path: '/external-accounts/cards',
            body: { owner, card: CARD, metadata: { [MARKER]: String(n) } },
          },
    { customerId: customer.id },
  );
  // An unknown registration leaves the customer without one: the checker finds out whether it was made.
  if (op.outcome === 'ok') customer[kind] = { id: op.response.id, status: 'pending' };
  else if (op.outcome === 'failed') customer[kind] = { id: '', status: 'dead' };
}

/**
 * Money into a wallet: the sandbox's funding route; on a chain, the partner's own transfer to the wallet's
 * address, which the platform credits once confirmed.
 */
/** An external wallet of a customer's own on the wallets' network (an address nobody in the run holds the key of). */
async function registerExternalWallet(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => c.externalWallet === undefined));
  if (!customer) return;
  const address = viemAccounts.privateKeyToAccount(viemAccounts.generatePrivateKey()).address;
  const op = await client.perform(
    'createExternalWallet',
    (n) => ({
      method: 'POST',
      path: '/external-accounts',
      body: {
        owner: { kind: 'customer', customerId: customer.id },
        type: 'walletExternal',
        walletExternal: { address, network: NETWORK },
        metadata: { [MARKER]: String(n) },
      },
    }),
    { customerId: customer.id, address },
  );
  if (op.outcome === 'ok') customer.externalWallet = { id: op.response.id, status: 'pending', address };
  else if (op.outcome === 'failed') customer.externalWallet = { id: '', status: 'dead', address };
}

async function fundWallet(client: Client): Promise<void> {
  const wallet = client.pick(client.model.wallets());
  if (!wallet) return;
  const big = client.random() < 0.05;
  const amount = amountText(
    big ? 20_000 + client.int(10_000) : 50 + client.int(3000),
    client.int(100),
    client.random() < 0.2 ? client.int(10_000) : undefined,
  );
  const { chain } = client.setup;
  if (chain) {
    const address = client.model.addresses.get(wallet.id);
    if (!address) return;
    return client.performOnChain('fundWallet', chain, address, amount, {
      walletId: wallet.id,
      customerId: wallet.customer.id,
      amount,
    });
  }
  await client.perform(
    'fundWallet',
    () => ({ method: 'POST', path: `/sandbox/wallets/${wallet.id}/fund`, body: { amount } }),
    { walletId: wallet.id, customerId: wallet.customer.id, amount },
  );
}

/** The quote's destination of a wallet payout corridor; undefined when the customer has no usable one yet. */
async function destination(
  client: Client,
  corridor: Corridor,
  from: { id: string; customer: CustomerModel },
): Promise<{ body: unknown; subject: Subject } | undefined> {
  if (corridor === 'walletToWallet') {
    const to = client.pick(client.model.wallets().filter((w) => w.id !== from.id));
    return to && { body: { type: 'walletOms', details: { id: to.id } }, subject: { toWalletId: to.id } };
  }
  if (corridor === 'walletToCash') {
    const { locationId: cashLocationId, locationReference: cashLocationReference } = CASH_LOCATION;
    return { body: { type: 'cash', details: { asset: 'usd', cashLocationId, cashLocationReference } }, subject: {} };
  }
  if (corridor === 'walletToExternalWallet') {
    const external = from.customer.externalWallet;
    if (!(await client.active(external, '/external-accounts'))) return undefined;
    return {
      body: { type: 'walletExternal', details: { id: external!.id } },
      subject: { externalAccountId: external!.id, address: external!.address },
    };
  }
  if (corridor === 'walletToCard') {
    const card = from.customer.card;
    if (!(await client.active(card, '/external-accounts'))) return undefined;
    return {
      body: { type: 'card', details: { externalAccountId: card!.id } },
      subject: { externalAccountId: card!.id },
    };
  }
  const bank = from.customer.bank;
  if (!(await client.active(bank, '/external-accounts'))) return undefined;
  const network = corridor === 'walletToAch' ? 'ach' : 'wire';
  return {
    body: { type: 'bankUs', details: { id: bank!.id, network, accountHolder: 'customer' } },
    subject: { externalAccountId: bank!.id },
  };
}

/**
 * A quote from a wallet, marked with its operation's number, then the transaction accepting it: two
 * operations, the second only when the first was answered (a quote never answered has no id to accept).
 */
async function transfer(client: Client, corridor: Corridor): Promise<void> {
  const from = client.pick(client.model.wallets());
  if (!from || !(await client.endorsed(from.customer))) return;
  const to = await destination(client, corridor, from);
  const balance = to && (await client.balance(from.id));
  // An empty wallet waits for a funding (an overdraft of a funded one is tried now and then all the same).
  if (!to || balance === undefined || balance === 0n) return;
  // Only a transfer between wallets may use usdc's six places: a bank or card side is in dollars.
  const crypto = corridor === 'walletToWallet' || corridor === 'walletToExternalWallet';
  const amount =
    corridor === 'walletToCash'
      ? pickupAmount(client)
      : transferAmount(client, balance, crypto && client.random() < 0.3);
  const subject: Subject = { customerId: from.customer.id, walletId: from.id, corridor, amount, ...to.subject };
  const quote = await client.perform(
    'createQuote',
    (n) => ({
      method: 'POST',
      path: '/quotes',
      body: {
        customerId: from.customer.id,
        source: { type: 'walletOms', details: { id: from.id }, amount },
        destination: to.body,
        metadata: { [MARKER]: String(n) },
      },
    }),
    subject,
  );
  if (quote.outcome !== 'ok') return;
  const accepted = await client.perform(
    'createTransaction',
    () => ({ method: 'POST', path: '/transactions', body: { quoteId: quote.response.id } }),
    { ...subject, quoteOp: quote.n },
  );
  if (corridor === 'walletToCash' && accepted.outcome === 'ok') client.model.pickups.push(accepted.response.id);
}

/**
 * A cash pickup's amount: a multiple of $20 from $20 to $400 (docs/sandbox.md "Cash pickup", Limits), now and
 * then one the limits refuse (not a multiple of $20, or above the maximum).
 */
function pickupAmount(client: Client): string {
  const roll = client.random();
  if (roll < 0.03) return `${20 * (1 + client.int(19)) + 10}.00`;
  if (roll < 0.05) return '420.00';
  return `${20 * (1 + client.int(20))}.00`;
}

/**
 * The customer at the till (docs/sandbox.md "The pickup"): a pickup collected, or left to expire, which returns
 * its USDC to the wallet. Mostly collected. A pickup whose code is not issued yet is tried again later.
 */
async function collectPickup(client: Client): Promise<void> {
  const pickups = client.model.pickups;
  const transactionId = client.pick(pickups);
  if (!transactionId) return;
  pickups.splice(pickups.indexOf(transactionId), 1);
  const outcome: PickupOutcome = client.random() < 0.7 ? 'collected' : 'expired';
  const op = await client.perform(
    'collectPickup',
    () => ({ method: 'POST', path: `/transactions/${transactionId}/simulate/cash-pickup`, body: { outcome } }),
    { transactionId, pickup: outcome },
  );
  if (op.outcome === 'failed' && op.response?.error === 'CashPickupNotReady') pickups.push(transactionId);
}

/** A customer with a wallet to pay cash into and few cash-ins waiting (each waits an hour of the clock at most). */
const canCashIn = (c: CustomerModel) => c.wallets.length > 0 && c.cashIns.length < 2;

/** A cash-in of a customer's to one of its wallets (docs/sandbox.md "Cash-ins"), marked with its operation's number. */
async function createCashIn(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter(canCashIn));
  if (!customer || !(await client.endorsed(customer))) return;
  const walletId = client.pick(customer.wallets)!;
  const op = await client.perform(
    'createCashIn',
    (n) => ({
      method: 'POST',
      path: '/cash-ins',
      body: {
        customerId: customer.id,
        source: { asset: 'usd' },
        destination: { asset: 'usdc', network: NETWORK, wallet: { id: walletId } },
        cash: CASH_LOCATION,
        metadata: { [MARKER]: String(n) },
      },
    }),
    { customerId: customer.id, toWalletId: walletId },
  );
  if (op.outcome === 'ok') customer.cashIns.push({ id: op.response.id, walletId });
}

/**
 * The retail partner confirming the cash paid in for a cash-in, converted to USDC for the wallet; its cents
 * choose the crypto payout's outcome now and then (.91 declined, .92 and .94 failed, .95 to .97 unconfirmed).
 * BigMart takes up to $1,000; now and then more, which the limits refuse.
 */
async function cashDeposit(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => c.cashIns.length > 0));
  if (!customer) return;
  const cashIn = customer.cashIns.splice(client.int(customer.cashIns.length), 1)[0];
  const amount = amountText(
    client.random() < 0.03 ? 1_001 : 20 + client.int(900),
    client.cents([91, 92, 94, 95, 96, 97]),
  );
  await client.perform(
    'cashDeposit',
    () => ({ method: 'POST', path: `/cash-ins/${cashIn.id}/simulate/deposit`, body: { amount } }),
    { customerId: customer.id, cashInId: cashIn.id, toWalletId: cashIn.walletId, amount },
  );
}

/** A virtual account of a customer's delivering to one of its wallets, marked with its operation's number. */
async function createVirtualAccount(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => c.wallets.length > 0 && !c.virtualAccount));
  if (!customer || !(await client.endorsed(customer))) return;
  const walletId = customer.wallets[0];
  const op = await client.perform(
    'createVirtualAccount',
    (n) => ({
      method: 'POST',
      path: '/virtual-accounts',
      body: {
        customerId: customer.id,
        source: { asset: 'usd', network: 'ach' },
        destination: { type: 'walletOms', walletId },
        accountHolder: 'customer',
        type: 'bankUs',
        metadata: { [MARKER]: String(n) },
      },
    }),
    { customerId: customer.id, toWalletId: walletId },
  );
  if (op.outcome === 'ok') customer.virtualAccount = { id: op.response.id, status: 'pending' };
  else if (op.outcome === 'failed') customer.virtualAccount = { id: '', status: 'dead' };
}

/**
 * A bank transfer reaching a virtual account (docs/sandbox.md "Virtual accounts"): dollars in from outside,
 * delivered to the wallet as USDC. Cents .91 (refused), .92 (returned), .94 (held for an operator) and .95
 * (unanswered, then found) now and then.
 */
async function inboundTransfer(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => usable(c.virtualAccount)));
  if (!customer || !(await client.active(customer.virtualAccount, '/virtual-accounts'))) return;
  const account = customer.virtualAccount!;
  const amount = amountText(10 + client.int(2000), client.cents([91, 92, 94, 95]));
  const rail = client.pick(['ach', 'wire'])!;
  await client.perform(
    'inboundTransfer',
    () => ({
      method: 'POST',
      path: `/virtual-accounts/${account.id}/simulate/inbound-transfer`,
      body: { amount, rail, senderName: 'CHAOS PAYROLL' },
    }),
    { customerId: customer.id, virtualAccountId: account.id, toWalletId: customer.wallets[0], amount },
  );
}

/** A deposit address of a customer's paying out to its bank account over ACH, marked with its operation's number. */
async function createDepositAddress(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => c.bank?.status === 'active' && !c.depositAddress));
  if (!customer || !(await client.endorsed(customer))) return;
  const op = await client.perform(
    'createDepositAddress',
    (n) => ({
      method: 'POST',
      path: '/deposit-addresses',
      body: {
        customerId: customer.id,
        expectedSourceAsset: 'usdc',
        expectedSourceNetwork: NETWORK,
        destination: { externalAccountId: customer.bank!.id },
        payout: { rail: 'ach' },
        metadata: { [MARKER]: String(n) },
      },
    }),
    { customerId: customer.id, externalAccountId: customer.bank!.id },
  );
  if (op.outcome === 'ok') customer.depositAddress = { id: op.response.id, status: 'pending' };
  else if (op.outcome === 'failed') customer.depositAddress = { id: '', status: 'dead' };
}

/**
 * USDC arriving on chain at a deposit address, paid out to the bank account; in whole cents, as a USD payout
 * needs. The sandbox's simulation; on a chain, the partner's own transfer to the address.
 */
async function cryptoDeposit(client: Client): Promise<void> {
  const customer = client.pick(client.model.customers.filter((c) => usable(c.depositAddress)));
  if (!customer || !(await client.active(customer.depositAddress, '/deposit-addresses'))) return;
  const address = customer.depositAddress!;
  const amount = amountText(5 + client.int(1500), client.cents([91, 92, 95]));
  const { chain } = client.setup;
  if (chain) {
    const onChain = (await client.read(`/deposit-addresses/${address.id}`))?.depositInstructions?.address;
    if (!onChain) return;
    return client.performOnChain('cryptoDeposit', chain, onChain, amount, {
      customerId: customer.id,
      depositAddressId: address.id,
      amount,
    });
  }
  await client.perform(
    'cryptoDeposit',
    () => ({ method: 'POST', path: `/deposit-addresses/${address.id}/simulate/crypto-deposit`, body: { amount } }),
    { customerId: customer.id, depositAddressId: address.id, amount },
  );
}

/**
 * The transactions an operator may act on: the operator's queue (held for review, unconfirmed, awaiting
 * action), and the wallet payouts that failed after they were sent, whose money the service holds for a
 * refund though they are not in the queue (docs/sandbox.md "Operator actions").
 */
async function actionable(client: Client): Promise<string[]> {
  const [held, recent] = await Promise.all([
    client.read(`/admin/transactions/held?projectId=${client.setup.projectId}&limit=50`, 'admin'),
    client.read('/transactions?limit=100'),
  ]);
  return [
    ...(held?.data ?? []).map((h: { transaction: { id: string } }) => h.transaction.id),
    ...(recent?.data ?? [])
      .filter((t: { subStatus?: string }) => t.subStatus === 'failed.outboundFailed')
      .map((t: { id: string }) => t.id),
  ];
}

/** An operator's retry, refund or mark-failed of one of the project's transactions that wait for one. */
async function operatorAction(client: Client): Promise<void> {
  const transactionId = client.pick(await actionable(client));
  if (!transactionId) return;
  const action = client.pick<OperatorAction>(['refund', 'refund', 'retry', 'mark-failed'])!;
  await client.perform(
    action === 'mark-failed' ? 'markFailed' : action,
    () => ({
      method: 'POST',
      path: `/admin/transactions/${transactionId}/${action}`,
      body: { reason: 'chaos run' },
      auth: 'admin',
    }),
    { transactionId },
  );
}

/** The project's clock a little ahead: the rails' timers fall due while the faults go on. */
async function advanceClock(client: Client): Promise<void> {
  // Less than a quote's minute, so that the other clients' quotes mostly stay open.
  const seconds = 1 + client.int(30);
  await client.perform(
    'advanceClock',
    () => ({ method: 'POST', path: '/sandbox/clock/advance', body: { seconds } }),
    {},
  );
}

const hasWallets = (n: number) => (model: Model) => model.wallets().length >= n;
const some = (test: (c: CustomerModel) => boolean) => (model: Model) => model.customers.some(test);

const ACTIONS: readonly Action[] = [
  { name: 'createCustomer', weight: 4, possible: (m) => m.customers.length < MAX_CUSTOMERS, run: createCustomer },
  {
    name: 'createWallet',
    weight: 5,
    possible: some((c) => c.wallets.length < MAX_WALLETS_PER_CUSTOMER),
    run: createWallet,
  },
  { name: 'createBankAccount', weight: 3, possible: some((c) => !c.bank), run: (c) => registerAccount(c, 'bank') },
  { name: 'registerCard', weight: 2, possible: some((c) => !c.card), run: (c) => registerAccount(c, 'card') },
  {
    name: 'createExternalWallet',
    weight: 2,
    possible: some((c) => !c.externalWallet),
    run: registerExternalWallet,
  },
  { name: 'fundWallet', weight: 12, possible: hasWallets(1), run: fundWallet },
  { name: 'walletToWallet', weight: 22, possible: hasWallets(2), run: (c) => transfer(c, 'walletToWallet') },
  {
    name: 'walletToExternalWallet',
    weight: 6,
    possible: some((c) => c.wallets.length > 0 && usable(c.externalWallet)),
    run: (c) => transfer(c, 'walletToExternalWallet'),
  },
  {
    name: 'walletToAch',
    weight: 8,
    possible: some((c) => c.wallets.length > 0 && usable(c.bank)),
    run: (c) => transfer(c, 'walletToAch'),
  },
  {
    name: 'walletToWire',
    weight: 4,
    possible: some((c) => c.wallets.length > 0 && usable(c.bank)),
    run: (c) => transfer(c, 'walletToWire'),
  },
  {
    name: 'walletToCard',
    weight: 4,
    possible: some((c) => c.wallets.length > 0 && usable(c.card)),
    run: (c) => transfer(c, 'walletToCard'),
  },
  {
    name: 'createVirtualAccount',
    weight: 2,
    possible: some((c) => c.wallets.length > 0 && !c.virtualAccount),
    run: createVirtualAccount,
  },
  { name: 'inboundTransfer', weight: 5, possible: some((c) => usable(c.virtualAccount)), run: inboundTransfer },
  {
    name: 'createDepositAddress',
    weight: 2,
    possible: some((c) => c.bank?.status === 'active' && !c.depositAddress),
    run: createDepositAddress,
  },
  { name: 'cryptoDeposit', weight: 5, possible: some((c) => usable(c.depositAddress)), run: cryptoDeposit },
  {
    name: 'walletToCash',
    weight: 4,
    possible: (m) => m.wallets().length > 0,
    run: (c) => transfer(c, 'walletToCash'),
  },
  { name: 'collectPickup', weight: 3, possible: (m) => m.pickups.length > 0, run: collectPickup },
  {
    name: 'createCashIn',
    weight: 2,
    possible: some(canCashIn),
    run: createCashIn,
  },
  { name: 'cashDeposit', weight: 3, possible: some((c) => c.cashIns.length > 0), run: cashDeposit },
  { name: 'operatorAction', weight: 5, possible: () => true, run: operatorAction },
  { name: 'advanceClock', weight: 2, possible: () => true, run: advanceClock },
];

/** One of the actions the model makes possible, by weight. */
function chooseAction(client: Client): Action {
  const possible = ACTIONS.filter((a) => a.possible(client.model));
  let roll = client.random() * possible.reduce((sum, a) => sum + a.weight, 0);
  for (const action of possible) {
    roll -= action.weight;
    if (roll < 0) return action;
  }
  return possible[possible.length - 1];
}

/**
 * Chooses and runs actions until `until()`; with `intervalMs`, an action starts no sooner than that after the
 * one before it started (the run's rate, shared among the clients).
 */
async function runClient(
  client: Client,
  until: (history: readonly Operation[]) => boolean,
  intervalMs = 0,
): Promise<void> {
  let next = Date.now();
  while (!until(client.model.history)) {
    if (intervalMs > 0) {
      if (next > Date.now()) await sleep(next - Date.now());
      next = Math.max(next + intervalMs, Date.now());
    }
    const before = client.model.history.length;
    const action = chooseAction(client);
    // An answer of an unexpected shape stops this action, not the run: its operation is recorded already.
    await action.run(client).catch((error: unknown) => {
      client.setup.log(`workload: client ${client.index}: ${action.name} stopped: ${(error as Error).message}`);
    });
    // An action that found nothing to do yet (a customer still being endorsed) lets the others go on.
    if (client.model.history.length === before) await sleep(50);
  }
}

function summary(history: readonly Operation[]): string {
  const by = (outcome: Outcome) => history.filter((op) => op.outcome === outcome).length;
  return `${history.length} operations (${by('ok')} ok, ${by('failed')} failed, ${by('unknown')} unknown)`;
}

/**
 * `clients` concurrent partner clients, each choosing operations with a PRNG of the seed's (together at most
 * `rate` actions a second, when given: a transfer is one action of two operations), until `until()`, shown the
 * operations so far, says to stop (an operation under way is finished first). Resolves with every operation, by
 * number.
 */
export async function runWorkload(
  setup: WorkloadSetup,
  options: {
    seed: number;
    clients: number;
    rate?: number;
    until: (history: readonly Operation[]) => boolean;
    log?: (line: string) => void;
  },
): Promise<WorkloadOperation[]> {
  const model = new Model();
  const log = options.log ?? setup.log;
  const progress = setInterval(() => log(`workload: ${summary(model.history)}`), 10_000);
  try {
    await Promise.all(
      Array.from({ length: options.clients }, (_, index) =>
        runClient(
          new Client(index, seededRandom(options.seed * 1_000 + index), { ...setup, log }, model),
          options.until,
          options.rate ? (options.clients * 1000) / options.rate : 0,
        ),
      ),
    );
  } finally {
    clearInterval(progress);
  }
  log(`workload: done, ${summary(model.history)}`);
  return [...model.history].sort((a, b) => a.n - b.n);
}
