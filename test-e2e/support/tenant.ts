// A tenant as a test file meets it: a project of its own (so its sandbox clock,
// events and data are nobody else's), an API key pair and a partner token, and
// the requests, customers, wallets, external accounts and webhook endpoints a
// test builds on. Every e2e file sets up its tenants here and adds only the
// vocabulary of its own subject on top.
import { randomUUID } from 'node:crypto';
import { ENDORSEMENT_NAMES, type EndorsementName } from '@mm/contracts';
import { ADMIN_TOKEN, eventually, type RequestOptions, type Response, type TestPlatform } from './test-platform';
import type { WebhookReceiver } from './webhook-receiver';

/** One exchange with the platform: the path is absolute (`/v0.13/...`). */
export type Send = (method: string, path: string, options: RequestOptions) => Promise<Response>;

export interface TenantOptions {
  /** The project's name. */
  name: string;
  /** Features switched on in the project's creation (POST /admin/projects). */
  features?: { cashPickup?: boolean; depositAddresses?: boolean };
  /** A PATCH /admin/projects/{id} right after the creation (features, limits, attributionTimeoutHours). */
  settings?: Record<string, unknown>;
  /** Where endpoint() points its webhooks. */
  receiver?: WebhookReceiver;
  /** Every request of the tenant's, its set-up included, goes through this; by default the platform's request(). */
  send?: Send;
}

export interface Customer {
  id: string;
  firstName: string;
  lastName: string;
  [field: string]: any;
}

export interface ExternalAccount {
  id: string;
  status: string;
  details: Record<string, any>;
  [field: string]: any;
}

export type Owner = { kind: 'customer'; customerId: string } | { kind: 'counterparty'; counterpartyId: string };

/** The card the sandbox accepts (docs/sandbox.md), overridable field by field. */
export const TEST_CARD = {
  cardNumber: '4242424242424242',
  expiryMonth: 12,
  expiryYear: 2031,
  cvc: '123',
  billingAddress: { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' },
};

/** How long the sandbox may take to approve an endorsement or provision an account, on a busy machine. */
const PROVISIONED_WITHIN_MS = 30_000;

/**
 * A new project with its own key pair and token, and the partner's requests in it. Expectations on the
 * set-up's answers fail the test at the step that went wrong.
 */
export async function newTenant(platform: TestPlatform, options: TenantOptions) {
  const send: Send = options.send ?? ((method, path, requestOptions) => platform.request(method, path, requestOptions));
  const admin = (method: string, path: string, body?: unknown) =>
    send(method, `/v0.13/admin${path}`, { token: ADMIN_TOKEN, body });
  const succeeded = (res: Response, status: number, what: string) =>
    expect({ what, status: res.status, body: res.status === status ? undefined : res.body }).toEqual({
      what,
      status,
      body: undefined,
    });

  const project = await admin('POST', '/projects', {
    name: options.name,
    ...(options.features ? { features: options.features } : {}),
  });
  succeeded(project, 201, 'POST /admin/projects');
  const projectId = project.body.id as string;
  // The project's rows are this file's (row-counts.ts counts them on the shared platform).
  if (!platform.projects.includes(projectId)) platform.projects.push(projectId);
  if (options.settings)
    succeeded(await admin('PATCH', `/projects/${projectId}`, options.settings), 200, 'PATCH /admin/projects/{id}');
  const keys = await admin('POST', `/projects/${projectId}/api-keys`);
  succeeded(keys, 201, 'POST /admin/projects/{id}/api-keys');
  const issued = await send('POST', '/v0.13/auth/token', {
    body: { apiKey: keys.body.apiKey, apiSecret: keys.body.apiSecret },
  });
  succeeded(issued, 200, 'POST /auth/token');
  const token = issued.body.accessToken as string;

  /** A request of the partner's: `path` under /v0.13, with this tenant's token. */
  const request = (method: string, path: string, requestOptions: RequestOptions = {}) =>
    send(method, `/v0.13${path}`, { token, ...requestOptions });
  const call = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
    request(method, path, { body, idempotencyKey });
  const post = (path: string, body?: unknown, idempotencyKey?: string) => call('POST', path, body, idempotencyKey);
  const patch = (path: string, body?: unknown, idempotencyKey?: string) => call('PATCH', path, body, idempotencyKey);
  const get = (path: string) => call('GET', path);
  const del = (path: string) => call('DELETE', path);

  const owner = (customerId: string, counterpartyId?: string): Owner =>
    counterpartyId ? { kind: 'counterparty', counterpartyId } : { kind: 'customer', customerId };
  /** An external account, once provisioning brought it to `until` (active, or failed for a magic value). */
  const account = async (
    body: Record<string, unknown>,
    until = 'active',
    path = '/external-accounts',
  ): Promise<ExternalAccount> => {
    const res = await post(path, body);
    succeeded(res, 201, `POST ${path}`);
    return eventually(async () => {
      const a = (await get(`/external-accounts/${res.body.id}`)).body;
      return a.status === until ? (a as ExternalAccount) : undefined;
    }, PROVISIONED_WITHIN_MS);
  };

  return {
    name: options.name,
    projectId,
    token,
    request,
    call,
    post,
    patch,
    get,
    del,

    /** The project's sandbox clock. */
    clock: async () => new Date((await get('/sandbox/clock')).body.now as string),
    /** Moves the project's sandbox clock on (nobody else's); answers its new time. */
    advance: async (seconds: number) => {
      // A 503 (in distributed mode, the service slower to answer than the gateway waits: the machine is busy) is
      // what a client retries, with the same key, so the clock moves once.
      const key = randomUUID();
      let res = await post('/sandbox/clock/advance', { seconds }, key);
      for (let tries = 1; res.status === 503 && tries < 5; tries++) {
        await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? 1)));
        res = await post('/sandbox/clock/advance', { seconds }, key);
      }
      succeeded(res, 200, 'POST /sandbox/clock/advance');
      return new Date(res.body.now as string);
    },

    /**
     * A customer (Ada Lovelace unless `fields` say otherwise) asking for `endorsements`, once the sandbox has
     * approved them all (it does so asynchronously); `until: 'created'` for one whose endorsements a magic
     * value makes the sandbox refuse. docs/endorsements.md: custodial wallets need cryptoCustody, cash, cards
     * and USD payouts usd, other currencies' payouts basic.
     */
    customer: async (
      fields: Record<string, unknown> = {},
      endorsements: readonly EndorsementName[] = ENDORSEMENT_NAMES,
      until: 'active' | 'created' = 'active',
    ): Promise<Customer> => {
      const created = await post('/customers', {
        type: 'individual',
        firstName: 'Ada',
        lastName: 'Lovelace',
        ...fields,
        endorsements,
      });
      succeeded(created, 201, 'POST /customers');
      if (until === 'created') return created.body as Customer;
      return eventually(async () => {
        const customer = (await get(`/customers/${created.body.id}`)).body;
        return customer.endorsements.every((e: { status: string }) => e.status === 'active')
          ? (customer as Customer)
          : undefined;
      }, PROVISIONED_WITHIN_MS);
    },
    /** A custodial USDC wallet of the customer's, funded by the sandbox when `funding` is given. */
    wallet: async (
      customerId: string,
      { network = 'meridianchain', funding }: { network?: string; funding?: string } = {},
    ) => {
      const res = await post(`/customers/${customerId}/wallets`, { asset: 'usdc', network });
      succeeded(res, 201, 'POST /customers/{id}/wallets');
      if (funding)
        succeeded(
          await post(`/sandbox/wallets/${res.body.id}/fund`, { amount: funding }),
          200,
          'POST /sandbox/wallets/{id}/fund',
        );
      return res.body as { id: string; address: string };
    },
    balance: async (walletId: string) => (await get(`/wallets/${walletId}/balance`)).body.data.balance as string,
    counterparty: async (customerId: string) => {
      const res = await post('/counterparties', { customerId, entityType: 'business', businessName: 'Acme Ltd' });
      succeeded(res, 201, 'POST /counterparties');
      return res.body as { id: string; name: string };
    },

    owner,
    account,
    bankUs: (customerId: string, counterpartyId?: string, accountNumber = '123456789012') =>
      account({
        owner: owner(customerId, counterpartyId),
        type: 'bankUs',
        bankUs: { accountNumber, routingNumber: '021000021' },
      }),
    bankIban: (customerId: string) =>
      account({
        owner: owner(customerId),
        type: 'bankIban',
        bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX', countryCode: 'DE' },
      }),
    bankCanada: (customerId: string) =>
      account({
        owner: owner(customerId),
        type: 'bankCanada',
        bankCanada: { institutionNumber: '001', transitNumber: '12345', accountNumber: '1234567' },
      }),
    externalWallet: (customerId: string, address: string, network = 'meridianchain', counterpartyId?: string) =>
      account({
        owner: owner(customerId, counterpartyId),
        type: 'walletExternal',
        walletExternal: { address, network },
      }),
    card: (customerId: string, card: Partial<typeof TEST_CARD> = {}) =>
      account({ owner: owner(customerId), card: { ...TEST_CARD, ...card } }, 'active', '/external-accounts/cards'),

    /** A webhook endpoint at `path` of the receiver given in the options. */
    endpoint: async (path: string, subscriptions: string[] = ['*'], extra: Record<string, unknown> = {}) => {
      if (!options.receiver) throw new Error(`tenant ${options.name}: endpoint() needs the receiver in its options`);
      const res = await post('/webhooks', { url: options.receiver.url(path), subscriptions, ...extra });
      succeeded(res, 201, 'POST /webhooks');
      return res.body as { id: string; signingKey: string; [field: string]: any };
    },
  };
}

export type Tenant = Awaited<ReturnType<typeof newTenant>>;
