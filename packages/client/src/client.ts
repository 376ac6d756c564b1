// The hand-written half of the client: one method per operation of the API,
// grouped by resource, each typed by the generated types of its path and
// method. Requests go through openapi-fetch (the generated paths, path and query
// serialisation) over a fetch that adds the bearer token and retries where it
// is safe (transport.ts); refusals are thrown as ApiError.
//
// Idempotency-Keys (ADR 0058). Every POST and PATCH carries a key, new for each
// call and the same across the client's own retries of that call (the request
// is built once, with its key, and each retry sends a copy of it): a call whose
// answer was lost is answered with what it made, and two calls are two
// operations however alike their bodies are (two people named John Smith are
// two counterparties). A caller who wants its job's re-runs to be safe passes
// `{idempotencyKey}` made from an id of its own operation; it is sent as is.
import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import { ApiError } from './errors';
import { CursorList } from './pagination';
import { authorizedFetch, retryingFetch, TokenSource, type Fetch, type RetryOptions } from './transport';
import type {
  ApiPath,
  HttpMethod,
  ListItem,
  ListQuery,
  Page,
  paths,
  QueryParams,
  RequestBody,
  ResponseBody,
  WebhookEvent,
} from './types';
import { verifyWebhook, type VerifyOptions } from './webhooks';

/** The version of the API this client speaks: every path is under it. */
export const API_VERSION = 'v0.13';
/** The label of the OpenAPI document this client was generated from. */
export const CONTRACT_LABEL = 'v26.09.30-0002';

export interface MoneyMovementOptions {
  /** The API key (`sk_sdbx_…` in the sandbox, `sk_live_…` in production). */
  apiKey: string;
  /** Its secret: sent only to POST /auth/token, never logged or shown by the client. */
  apiSecret: string;
  /** Where the API is: `http://127.0.0.1:3000/v0.13` (the banner's API line), with or without `/v0.13`. */
  baseUrl: string;
  /** The fetch to send requests with (the global one by default): for a proxy, an agent or a test's recorder. */
  fetch?: Fetch;
  /** How many times a request is sent again at most after a 409 in flight, a 429, a 503 or a lost connection (3); 0: never. */
  maxRetries?: number;
  /** The longest the client waits before a retry, in seconds (30): a longer Retry-After is not waited for, the ApiError is thrown. */
  maxRetryDelaySeconds?: number;
}

/** Options of a call that changes something (POST and PATCH). */
export interface WriteOptions {
  /**
   * The Idempotency-Key to send, as is. Without one, each call gets a new key (`mm_call_` and a random UUID),
   * kept across the client's retries of that call: a retry never acts twice, and two calls are two operations.
   * Give a key made from an id of your own operation (`signup-${order.id}`) to make a re-run of your job find
   * what the first run made; the API answers a key it has seen with the first response for at least 24 hours.
   */
  idempotencyKey?: string;
}

type PathParams = Record<string, string>;

interface SendInit {
  path?: PathParams;
  query?: object;
  body?: unknown;
  idempotencyKey?: string;
  headers?: Record<string, string>;
  /** Sent without the bearer token (the token issuer's keys, the publishable-key route). */
  anonymous?: boolean;
}

/** The API's origin and any path before the version, from what the caller gave. */
function apiRoot(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(
      `baseUrl must be an absolute http(s) URL, such as http://127.0.0.1:3000/${API_VERSION} (got ${JSON.stringify(baseUrl)})`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`baseUrl must be an http(s) URL (got ${url.protocol})`);
  const path = url.pathname.replace(/\/+$/, '');
  const version = /\/(v\d+(?:\.\d+)*)$/i.exec(path)?.[1];
  if (version && version !== API_VERSION)
    throw new TypeError(`this client speaks ${API_VERSION}; baseUrl names ${version}`);
  return `${url.origin}${version ? path.slice(0, -version.length - 1) : path}`;
}

export class MoneyMovement {
  readonly #tokens: TokenSource;
  readonly #client: ReturnType<typeof createClient<paths>>;
  readonly #authorized: Fetch;
  readonly #anonymous: Fetch;

  constructor(options: MoneyMovementOptions) {
    for (const name of ['apiKey', 'apiSecret', 'baseUrl'] as const) {
      if (typeof options?.[name] !== 'string' || options[name] === '')
        throw new TypeError(`MoneyMovement needs ${name}`);
    }
    const root = apiRoot(options.baseUrl);
    const fetch: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    const retry: RetryOptions = {
      maxRetries: options.maxRetries ?? 3,
      maxRetryDelaySeconds: options.maxRetryDelaySeconds ?? 30,
    };
    this.#tokens = new TokenSource(options, `${root}/${API_VERSION}/auth/token`, fetch, retry);
    this.#authorized = authorizedFetch(this.#tokens, fetch, retry);
    this.#anonymous = retryingFetch(fetch, retry);
    this.#client = createClient<paths>({ baseUrl: root });
  }

  async #send<P extends ApiPath, M extends HttpMethod>(
    method: M,
    path: P,
    init: SendInit = {},
  ): Promise<ResponseBody<P, M>> {
    const header: Record<string, string> = { ...init.headers };
    if (method === 'post' || method === 'patch') {
      // Chosen once per call: the transport's retries send copies of this request, key included.
      header['Idempotency-Key'] = init.idempotencyKey ?? `mm_call_${randomUUID()}`;
    }
    // One generic call for every operation: the methods below are what is typed, by path and method.
    const request = this.#client.request as unknown as (
      method: string,
      path: string,
      init: object,
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const { data, error, response } = await request(method, path, {
      params: { path: init.path, query: init.query, header },
      body: init.body,
      fetch: init.anonymous ? this.#anonymous : this.#authorized,
    });
    if (!response.ok)
      throw ApiError.fromResponse(response, error, typeof error === 'string' ? error : JSON.stringify(error ?? ''));
    return data as ResponseBody<P, M>;
  }

  #list<P extends ApiPath>(path: P, query: ListQuery<P> | undefined, pathParams?: PathParams): CursorList<ListItem<P>> {
    const { cursor, ...rest } = (query ?? {}) as { cursor?: string };
    return new CursorList<ListItem<P>>(
      (next) =>
        this.#send('get', path, { path: pathParams, query: { ...rest, ...(next ? { cursor: next } : {}) } }) as Promise<
          Page<ListItem<P>>
        >,
      cursor,
    );
  }

  /** Tokens: the client gets and renews its own; these are for a caller that needs one itself. */
  readonly auth = {
    /** POST /auth/token: a new bearer token for the key pair, which the client then uses too. */
    token: () => this.#tokens.renew(),
    /** GET /.well-known/jwks.json: the token issuer's public keys. */
    jwks: () => this.#send('get', '/v0.13/.well-known/jwks.json', { anonymous: true }),
  };

  /**
   * The project's own API keys, for a client holding a key with every scope (a restricted key is refused:
   * 403 InsufficientScope). A new or rolled key's secret is in that answer only.
   */
  readonly apiKeys = {
    /** GET /api-keys: the project's keys, newest first, with name, scopes, lastUsedAt and expiresAt; never a secret. */
    list: (query?: ListQuery<'/v0.13/api-keys'>) => this.#list('/v0.13/api-keys', query),
    /** POST /api-keys: a new pair; `scopes` (`<resource>:read` or `:write`) makes a restricted key. */
    create: (body: RequestBody<'/v0.13/api-keys', 'post'> = {}, options?: WriteOptions) =>
      this.#send('post', '/v0.13/api-keys', { body, ...options }),
    /** POST /api-keys/{apiKey}/roll: a new pair with the key's name and scopes; the old key stops after expiresInSeconds (0 to 7 days). */
    roll: (apiKey: string, body: RequestBody<'/v0.13/api-keys/{apiKey}/roll', 'post'> = {}, options?: WriteOptions) =>
      this.#send('post', '/v0.13/api-keys/{apiKey}/roll', { path: { apiKey }, body, ...options }),
    /** DELETE /api-keys/{apiKey}: its tokens stop working at once. */
    revoke: (apiKey: string) => this.#send('delete', '/v0.13/api-keys/{apiKey}', { path: { apiKey } }),
  };

  readonly requestLogs = {
    /** GET /request-logs: the project's API requests, newest first, bodies masked; filters status (404 or 4xx), method, path, requestId. */
    list: (query?: ListQuery<'/v0.13/request-logs'>) => this.#list('/v0.13/request-logs', query),
    /** GET /request-logs/{id}: one of them. */
    get: (id: string) => this.#send('get', '/v0.13/request-logs/{id}', { path: { id } }),
  };

  readonly customers = {
    /** POST /customers */
    create: (body: RequestBody<'/v0.13/customers', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/customers', { body, ...options }),
    /** GET /customers: every customer, newest first. */
    list: (query?: ListQuery<'/v0.13/customers'>) => this.#list('/v0.13/customers', query),
    /** GET /customers/{id} */
    get: (customerId: string) => this.#send('get', '/v0.13/customers/{id}', { path: { id: customerId } }),
    /** POST /customers/{id}/endorsements: one more endorsement, pending at first. */
    requestEndorsement: (
      customerId: string,
      body: RequestBody<'/v0.13/customers/{id}/endorsements', 'post'>,
      options?: WriteOptions,
    ) => this.#send('post', '/v0.13/customers/{id}/endorsements', { path: { id: customerId }, body, ...options }),
    /** GET /customers/{id}/balance: across the customer's wallets, valued in USD unless asked otherwise. */
    balance: (customerId: string, query?: QueryParams<'/v0.13/customers/{id}/balance', 'get'>) =>
      this.#send('get', '/v0.13/customers/{id}/balance', { path: { id: customerId }, query }),
  };

  readonly wallets = {
    /** POST /customers/{id}/wallets: a custodial wallet of the customer. */
    create: (customerId: string, body: RequestBody<'/v0.13/customers/{id}/wallets', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/customers/{id}/wallets', { path: { id: customerId }, body, ...options }),
    /** GET /wallets */
    list: (query?: ListQuery<'/v0.13/wallets'>) => this.#list('/v0.13/wallets', query),
    /** GET /wallets/{id} */
    get: (walletId: string) => this.#send('get', '/v0.13/wallets/{id}', { path: { id: walletId } }),
    /** GET /wallets/{id}/balance */
    balance: (walletId: string) => this.#send('get', '/v0.13/wallets/{id}/balance', { path: { id: walletId } }),
  };

  readonly externalAccounts = {
    /** POST /external-accounts: a bank account or an external wallet, pending until provisioned. */
    create: (body: RequestBody<'/v0.13/external-accounts', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/external-accounts', { body, ...options }),
    /** POST /external-accounts/cards: a debit card. */
    createCard: (body: RequestBody<'/v0.13/external-accounts/cards', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/external-accounts/cards', { body, ...options }),
    /** GET /external-accounts: a customer's own and its counterparties'. */
    list: (query: ListQuery<'/v0.13/external-accounts'>) => this.#list('/v0.13/external-accounts', query),
    /** GET /external-accounts/{id} */
    get: (externalAccountId: string) =>
      this.#send('get', '/v0.13/external-accounts/{id}', { path: { id: externalAccountId } }),
    /** PATCH /external-accounts/{id}: label and metadata. */
    update: (
      externalAccountId: string,
      body: RequestBody<'/v0.13/external-accounts/{id}', 'patch'>,
      options?: WriteOptions,
    ) => this.#send('patch', '/v0.13/external-accounts/{id}', { path: { id: externalAccountId }, body, ...options }),
    /** DELETE /external-accounts/{id} */
    delete: (externalAccountId: string) =>
      this.#send('delete', '/v0.13/external-accounts/{id}', { path: { id: externalAccountId } }),
  };

  readonly counterparties = {
    /** POST /counterparties */
    create: (body: RequestBody<'/v0.13/counterparties', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/counterparties', { body, ...options }),
    /** GET /counterparties */
    list: (query: ListQuery<'/v0.13/counterparties'>) => this.#list('/v0.13/counterparties', query),
    /** GET /counterparties/{id} */
    get: (counterpartyId: string) => this.#send('get', '/v0.13/counterparties/{id}', { path: { id: counterpartyId } }),
    /** PATCH /counterparties/{id} */
    update: (
      counterpartyId: string,
      body: RequestBody<'/v0.13/counterparties/{id}', 'patch'>,
      options?: WriteOptions,
    ) => this.#send('patch', '/v0.13/counterparties/{id}', { path: { id: counterpartyId }, body, ...options }),
    /** DELETE /counterparties/{id} */
    delete: (counterpartyId: string) =>
      this.#send('delete', '/v0.13/counterparties/{id}', { path: { id: counterpartyId } }),
  };

  readonly quotes = {
    /** POST /quotes: pricing locked until expiresAt. */
    create: (body: RequestBody<'/v0.13/quotes', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/quotes', { body, ...options }),
    /** GET /quotes/{id} */
    get: (quoteId: string) => this.#send('get', '/v0.13/quotes/{id}', { path: { id: quoteId } }),
  };

  readonly transactions = {
    /** POST /transactions: accepts an open quote; the transaction starts processing. */
    create: (body: RequestBody<'/v0.13/transactions', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/transactions', { body, ...options }),
    /** GET /transactions: `for await (const t of client.transactions.list({customerId}))`. */
    list: (query?: ListQuery<'/v0.13/transactions'>) => this.#list('/v0.13/transactions', query),
    /** GET /transactions/{id} */
    get: (transactionId: string) => this.#send('get', '/v0.13/transactions/{id}', { path: { id: transactionId } }),
  };

  readonly webhooks = {
    /** POST /webhooks: the answer carries the signing key, shown this once. */
    create: (body: RequestBody<'/v0.13/webhooks', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/webhooks', { body, ...options }),
    /** GET /webhooks */
    list: (query?: ListQuery<'/v0.13/webhooks'>) => this.#list('/v0.13/webhooks', query),
    /** GET /webhooks/{id} */
    get: (webhookId: string) => this.#send('get', '/v0.13/webhooks/{id}', { path: { id: webhookId } }),
    /** PATCH /webhooks/{id} */
    update: (webhookId: string, body: RequestBody<'/v0.13/webhooks/{id}', 'patch'>, options?: WriteOptions) =>
      this.#send('patch', '/v0.13/webhooks/{id}', { path: { id: webhookId }, body, ...options }),
    /** DELETE /webhooks/{id}: gone from reads; its deliveries stay readable for the retention window. */
    delete: (webhookId: string) => this.#send('delete', '/v0.13/webhooks/{id}', { path: { id: webhookId } }),
    /** POST /webhooks/{id}/enable */
    enable: (webhookId: string, options?: WriteOptions) =>
      this.#send('post', '/v0.13/webhooks/{id}/enable', { path: { id: webhookId }, ...options }),
    /** POST /webhooks/{id}/disable */
    disable: (webhookId: string, options?: WriteOptions) =>
      this.#send('post', '/v0.13/webhooks/{id}/disable', { path: { id: webhookId }, ...options }),
    /** POST /webhooks/{id}/rotate-key: a new signing key, shown this once; the old one signs beside it for 24 hours. */
    rotateKey: (webhookId: string, options?: WriteOptions) =>
      this.#send('post', '/v0.13/webhooks/{id}/rotate-key', { path: { id: webhookId }, ...options }),
    /** POST /webhooks/{id}/test: a `webhook.test` delivery to this endpoint. */
    test: (webhookId: string, options?: WriteOptions) =>
      this.#send('post', '/v0.13/webhooks/{id}/test', { path: { id: webhookId }, ...options }),
    deliveries: {
      /** GET /webhooks/{id}/deliveries: newest first; filters status, eventId, test, createdAfter, createdBefore. */
      list: (webhookId: string, query?: ListQuery<'/v0.13/webhooks/{id}/deliveries'>) =>
        this.#list('/v0.13/webhooks/{id}/deliveries', query, { id: webhookId }),
      /** GET /webhooks/{id}/deliveries/{deliveryId}: with the envelope and every HTTP attempt. */
      get: (webhookId: string, deliveryId: string) =>
        this.#send('get', '/v0.13/webhooks/{id}/deliveries/{deliveryId}', { path: { id: webhookId, deliveryId } }),
      /** POST /webhooks/{id}/deliveries: sends these events (from events.list) to this endpoint again, as new deliveries with the events' evt_ ids. */
      resend: (
        webhookId: string,
        body: RequestBody<'/v0.13/webhooks/{id}/deliveries', 'post'>,
        options?: WriteOptions,
      ) => this.#send('post', '/v0.13/webhooks/{id}/deliveries', { path: { id: webhookId }, body, ...options }),
      /** POST /webhooks/{id}/deliveries/retry: requeues by ids, or by status and creation range. */
      retry: (
        webhookId: string,
        body: RequestBody<'/v0.13/webhooks/{id}/deliveries/retry', 'post'>,
        options?: WriteOptions,
      ) => this.#send('post', '/v0.13/webhooks/{id}/deliveries/retry', { path: { id: webhookId }, body, ...options }),
    },
    /**
     * A delivery's envelope, once its Webhook-Signature is this endpoint's signing key's and recent (300 s by
     * default); throws a WebhookVerificationError saying why otherwise. Needs no credentials: the
     * standalone verifyWebhook is the same check.
     */
    verify: (
      rawBody: string | Uint8Array,
      signatureHeader: string | readonly string[] | null | undefined,
      signingKey: string,
      options?: VerifyOptions,
    ): WebhookEvent => verifyWebhook(rawBody, signatureHeader, signingKey, options),
  };

  /** The partner events of the retention window, whether or not an endpoint received them: how a partner catches up. */
  readonly events = {
    /** GET /events: newest first; filters type, resourceId, createdAfter, createdBefore. */
    list: (query?: ListQuery<'/v0.13/events'>) => this.#list('/v0.13/events', query),
    /** GET /events/{eventId}: the envelope as delivered, with its evt_ id. */
    get: (eventId: string) => this.#send('get', '/v0.13/events/{eventId}', { path: { eventId } }),
  };

  readonly cashIns = {
    /** POST /cash-ins: a one-time deposit code, valid one hour. */
    create: (body: RequestBody<'/v0.13/cash-ins', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/cash-ins', { body, ...options }),
    /** GET /cash-ins */
    list: (query?: ListQuery<'/v0.13/cash-ins'>) => this.#list('/v0.13/cash-ins', query),
    /** GET /cash-ins/{id} */
    get: (cashInId: string) => this.#send('get', '/v0.13/cash-ins/{id}', { path: { id: cashInId } }),
    /** POST /cash-ins/{id}/refresh: a new code, valid one hour from now. */
    refresh: (cashInId: string, options?: WriteOptions) =>
      this.#send('post', '/v0.13/cash-ins/{id}/refresh', { path: { id: cashInId }, ...options }),
  };

  readonly cashLocations = {
    /** GET /cash-locations: for a flow, nearest first when given latitude and longitude. */
    list: (query?: ListQuery<'/v0.13/cash-locations'>) => this.#list('/v0.13/cash-locations', query),
  };

  readonly depositAddresses = {
    /** POST /deposit-addresses: pending until provisioned (then depositInstructions). */
    create: (body: RequestBody<'/v0.13/deposit-addresses', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/deposit-addresses', { body, ...options }),
    /** GET /deposit-addresses */
    list: (query?: ListQuery<'/v0.13/deposit-addresses'>) => this.#list('/v0.13/deposit-addresses', query),
    /** GET /deposit-addresses/{id} */
    get: (depositAddressId: string) =>
      this.#send('get', '/v0.13/deposit-addresses/{id}', { path: { id: depositAddressId } }),
    /** PATCH /deposit-addresses/{id} */
    update: (
      depositAddressId: string,
      body: RequestBody<'/v0.13/deposit-addresses/{id}', 'patch'>,
      options?: WriteOptions,
    ) => this.#send('patch', '/v0.13/deposit-addresses/{id}', { path: { id: depositAddressId }, body, ...options }),
  };

  readonly virtualAccounts = {
    /** POST /virtual-accounts: pending until the bank provisions it (then bankDetails). */
    create: (body: RequestBody<'/v0.13/virtual-accounts', 'post'>, options?: WriteOptions) =>
      this.#send('post', '/v0.13/virtual-accounts', { body, ...options }),
    /** GET /virtual-accounts */
    list: (query?: ListQuery<'/v0.13/virtual-accounts'>) => this.#list('/v0.13/virtual-accounts', query),
    /** GET /virtual-accounts/{id} */
    get: (virtualAccountId: string) =>
      this.#send('get', '/v0.13/virtual-accounts/{id}', { path: { id: virtualAccountId } }),
    /** PATCH /virtual-accounts/{id} */
    update: (
      virtualAccountId: string,
      body: RequestBody<'/v0.13/virtual-accounts/{id}', 'patch'>,
      options?: WriteOptions,
    ) => this.#send('patch', '/v0.13/virtual-accounts/{id}', { path: { id: virtualAccountId }, body, ...options }),
    /** DELETE /virtual-accounts/{id}: accepted (202), the account deleting until the bank closes it. */
    delete: (virtualAccountId: string) =>
      this.#send('delete', '/v0.13/virtual-accounts/{id}', { path: { id: virtualAccountId } }),
  };

  readonly risk = {
    /** GET /risk/config, with a publishable key (`pk_…`), as a browser calls it. */
    config: (publishableKey: string) =>
      this.#send('get', '/v0.13/risk/config', { anonymous: true, headers: { 'Api-Key': publishableKey } }),
  };

  /** The sandbox's simulations and clock (answered 404 in production). */
  readonly sandbox = {
    clock: {
      /** GET /sandbox/clock: the project's clock. */
      get: () => this.#send('get', '/v0.13/sandbox/clock'),
      /** POST /sandbox/clock/advance: fires every timer that falls due. */
      advance: (body: RequestBody<'/v0.13/sandbox/clock/advance', 'post'>, options?: WriteOptions) =>
        this.#send('post', '/v0.13/sandbox/clock/advance', { body, ...options }),
    },
    wallets: {
      /** POST /sandbox/wallets/{id}/fund: credits the wallet from the sandbox funding account. */
      fund: (walletId: string, body: RequestBody<'/v0.13/sandbox/wallets/{id}/fund', 'post'>, options?: WriteOptions) =>
        this.#send('post', '/v0.13/sandbox/wallets/{id}/fund', { path: { id: walletId }, body, ...options }),
    },
    externalAccounts: {
      /** POST /external-accounts/{id}/simulate/invalidate: the provider reports the account unusable. */
      invalidate: (
        externalAccountId: string,
        body: RequestBody<'/v0.13/external-accounts/{id}/simulate/invalidate', 'post'>,
        options?: WriteOptions,
      ) =>
        this.#send('post', '/v0.13/external-accounts/{id}/simulate/invalidate', {
          path: { id: externalAccountId },
          body,
          ...options,
        }),
    },
    transactions: {
      /** POST /transactions/{id}/simulate/cash-pickup: the recipient collects the cash, or the pickup lapses. */
      cashPickup: (
        transactionId: string,
        body: RequestBody<'/v0.13/transactions/{id}/simulate/cash-pickup', 'post'>,
        options?: WriteOptions,
      ) =>
        this.#send('post', '/v0.13/transactions/{id}/simulate/cash-pickup', {
          path: { id: transactionId },
          body,
          ...options,
        }),
    },
    cashIns: {
      /** POST /cash-ins/{id}/simulate/deposit: the retail partner confirms the cash deposit. */
      deposit: (
        cashInId: string,
        body: RequestBody<'/v0.13/cash-ins/{id}/simulate/deposit', 'post'>,
        options?: WriteOptions,
      ) => this.#send('post', '/v0.13/cash-ins/{id}/simulate/deposit', { path: { id: cashInId }, body, ...options }),
    },
    depositAddresses: {
      /** POST /deposit-addresses/{id}/simulate/crypto-deposit: an on-chain deposit arrives. */
      cryptoDeposit: (
        depositAddressId: string,
        body: RequestBody<'/v0.13/deposit-addresses/{id}/simulate/crypto-deposit', 'post'>,
        options?: WriteOptions,
      ) =>
        this.#send('post', '/v0.13/deposit-addresses/{id}/simulate/crypto-deposit', {
          path: { id: depositAddressId },
          body,
          ...options,
        }),
      /** POST /deposit-addresses/{id}/simulate/freeze */
      freeze: (depositAddressId: string, options?: WriteOptions) =>
        this.#send('post', '/v0.13/deposit-addresses/{id}/simulate/freeze', {
          path: { id: depositAddressId },
          ...options,
        }),
      /** POST /deposit-addresses/{id}/simulate/unfreeze */
      unfreeze: (depositAddressId: string, options?: WriteOptions) =>
        this.#send('post', '/v0.13/deposit-addresses/{id}/simulate/unfreeze', {
          path: { id: depositAddressId },
          ...options,
        }),
      /** POST /deposit-addresses/{id}/simulate/close */
      close: (depositAddressId: string, options?: WriteOptions) =>
        this.#send('post', '/v0.13/deposit-addresses/{id}/simulate/close', {
          path: { id: depositAddressId },
          ...options,
        }),
    },
    virtualAccounts: {
      /** POST /virtual-accounts/{id}/simulate/inbound-transfer: a bank transfer reaches the account. */
      inboundTransfer: (
        virtualAccountId: string,
        body: RequestBody<'/v0.13/virtual-accounts/{id}/simulate/inbound-transfer', 'post'>,
        options?: WriteOptions,
      ) =>
        this.#send('post', '/v0.13/virtual-accounts/{id}/simulate/inbound-transfer', {
          path: { id: virtualAccountId },
          body,
          ...options,
        }),
      /** POST /virtual-accounts/{id}/simulate/freeze */
      freeze: (virtualAccountId: string, options?: WriteOptions) =>
        this.#send('post', '/v0.13/virtual-accounts/{id}/simulate/freeze', {
          path: { id: virtualAccountId },
          ...options,
        }),
      /** POST /virtual-accounts/{id}/simulate/unfreeze */
      unfreeze: (virtualAccountId: string, options?: WriteOptions) =>
        this.#send('post', '/v0.13/virtual-accounts/{id}/simulate/unfreeze', {
          path: { id: virtualAccountId },
          ...options,
        }),
      /** POST /virtual-accounts/{id}/simulate/close */
      close: (virtualAccountId: string, options?: WriteOptions) =>
        this.#send('post', '/v0.13/virtual-accounts/{id}/simulate/close', {
          path: { id: virtualAccountId },
          ...options,
        }),
    },
  };
}
