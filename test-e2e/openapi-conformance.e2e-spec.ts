// Issue 17, item 8 (ADR 0024): a client generated from the OpenAPI document
// must type every response the server sends. Every route the document lists is
// called for real, in both modes, and every exchange is checked against it by a
// strict validator (support/openapi-conformance.ts): the status must be one the
// operation documents, the body must match its schema with no field left out of
// the document, formats included, and a body the server accepted must match the
// request schema. Each resource is driven to the states in which its nullable
// fields are null and in which they are not. The last test fails naming any
// route of the document no exchange reached, so a new route cannot slip by.
// The document's `webhooks` (issue 18 item 3) describe every event of this
// version; every body a real receiver gets is checked against them, and each
// event of the catalogue is driven until it has been delivered and checked.
import { PARTNER_EVENT_CATALOGUE, SANDBOX_PARTNER_EVENTS } from '@mm/contracts';
import { OpenApiConformance } from './support/openapi-conformance';
import { newTenant } from './support/tenant';
import {
  ADMIN_TOKEN,
  E2E_MODE,
  eventually,
  START_TIMEOUT_MS,
  TestPlatform,
  type RequestOptions,
  type Response,
} from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const BILLING = { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' };
const EXTERNAL_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const COUNTERPARTY_WALLET = '0x8617e340b3d01fa5f11f306f4090fd50e238070d';
/** The sandbox network's locations (docs/sandbox.md): a cash-in one and a pickup one. */
const CASH_IN_LOCATION = { locationId: 'loc_01m846c3h7e06945mv76kz01kg', locationReference: 'QUICKSTOP-2002' };
const PICKUP_LOCATION = { cashLocationId: 'loc_01m846c3h4e06945jf6mfht9tc', cashLocationReference: 'BIGMART-1001' };
const UNKNOWN = {
  customer: 'cst_01h455vb4pex5vsknk084sn02q',
  transaction: 'txn_01h455vb4pex5vsknk084sn02q',
  project: 'prj_01h455vb4pex5vsknk084sn02q',
};

/** Routes no exchange can answer with success here, and why. */
const NO_SUCCESS_POSSIBLE: Record<string, string> = {
  'POST /v0.13/admin/approvals/{id}/approve':
    'a second operator approves, and this file has only the static token, one actor (test-e2e/operators.e2e-spec.ts approves as another operator)',
  'GET /v0.13/admin/reconciliation':
    'every network is simulated on this platform, and a simulated network has no chain to reconcile with (test-e2e/chain.e2e-spec.ts reconciles one)',
};

describe('the OpenAPI document describes every response', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let conformance: OpenApiConformance;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
    const document = await platform.request('GET', '/openapi.json');
    expect(document.status).toBe(200);
    conformance = new OpenApiConformance(document.body);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });
  /** Every exchange since the last check matched the document (a describe's setup included). */
  const conforms = () => expect(conformance.take()).toEqual([]);

  const call = (method: string, path: string, options: RequestOptions = {}): Promise<Response> =>
    conformance.request(platform, method, `/v0.13${path}`, options);
  const admin = (method: string, path: string, body?: unknown) =>
    call(method, `/admin${path}`, { token: ADMIN_TOKEN, body });
  const expectStatus = (res: Response, status: number) =>
    expect({ status: res.status, body: res.status === status ? undefined : res.body }).toEqual({
      status,
      body: undefined,
    });

  /** A project of its own (its own sandbox clock), every feature on, and a partner token for it. */
  async function tenant(name: string) {
    // Its set-up's exchanges are held to the document too.
    const base = await newTenant(platform, {
      name,
      features: { cashPickup: true, depositAddresses: true },
      send: (method, path, options) => conformance.request(platform, method, path, options),
    });
    const t = {
      ...base,
      customer: async (lastName = 'Lovelace', extra: Record<string, unknown> = {}) =>
        (await base.customer({ lastName, ...extra }, ['basic', 'cryptoCustody', 'usd'])).id,
      wallet: (customerId: string, amount?: string) => base.wallet(customerId, { funding: amount }),
      /** An external account once provisioning settled it (active, or failed for a magic number). */
      account: (path: string, body: Record<string, unknown>, until = 'active') => base.account(body, until, path),
      until: (id: string, status: string, subStatus?: string | null) =>
        eventually(async () => {
          const txn = (await base.get(`/transactions/${id}`)).body;
          return txn.status === status && (subStatus === undefined || txn.subStatus === subStatus) ? txn : undefined;
        }, 20_000),
    };
    return t;
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  it('is OpenAPI 3.1 a strict reader takes as written: valid, no 3.0 keywords, every response object described', async () => {
    expect(conformance.document.openapi).toBe('3.1.0');
    expect([...(await conformance.specificationProblems()), ...conformance.documentProblems()]).toEqual([]);
    // One webhook per event of this version, its envelope and data described, its example true to them.
    expect(conformance.webhookProblems(PARTNER_EVENT_CATALOGUE)).toEqual([]);
    if (E2E_MODE === 'distributed') {
      // The gateway serves the services' documents merged: each must come through as the service sends it.
      const services = [
        ...platform
          .logs()
          .matchAll(
            /^\s+(accounts|quoting|transactions|webhooks|cash-in|deposit-addresses|virtual-accounts)\s+(http:\/\/127\.0\.0\.1:\d+)\s+pid/gm,
          ),
      ];
      expect(services.map((m) => m[1]).sort()).toEqual([
        'accounts',
        'cash-in',
        'deposit-addresses',
        'quoting',
        'transactions',
        'virtual-accounts',
        'webhooks',
      ]);
      const differences: string[] = [];
      for (const [, service, url] of services) {
        const own = (await (await fetch(`${url}/openapi.json`)).json()) as {
          paths: Record<string, unknown>;
          components?: { schemas?: Record<string, unknown> };
        };
        for (const [path, item] of Object.entries(own.paths)) {
          if (JSON.stringify(conformance.document.paths[path]) !== JSON.stringify(item))
            differences.push(`${service}: path ${path}`);
        }
        for (const [name, schema] of Object.entries(own.components?.schemas ?? {})) {
          if (JSON.stringify(conformance.document.components?.schemas?.[name]) !== JSON.stringify(schema))
            differences.push(`${service}: schema ${name}`);
        }
      }
      expect(differences).toEqual([]);
    }
  });

  it('authentication, projects and keys', async () => {
    const created = await admin('POST', '/projects', {
      name: 'conformance-keys',
      features: { globalRemittance: true },
    });
    expectStatus(created, 201);
    const projectId = created.body.id as string;
    expectStatus(await admin('GET', '/projects'), 200);
    expectStatus(await admin('GET', `/projects/${projectId}`), 200);
    expectStatus(await admin('GET', `/projects/${UNKNOWN.project}`), 404);
    // Limits set, then each cleared: the response shows them as strings, then as null.
    const limits = {
      perTransactionMin: '20.00',
      perTransactionMax: '500.00',
      perTransactionMultiple: '10.00',
      dailyBankPayoutCap: '1000.00',
      monthlyBankPayoutCap: '5000.00',
    };
    expectStatus(await admin('PATCH', `/projects/${projectId}`, { limits, attributionTimeoutHours: 24 }), 200);
    const cleared = await admin('PATCH', `/projects/${projectId}`, {
      limits: Object.fromEntries(Object.keys(limits).map((k) => [k, null])),
      features: { bulkPayouts: true },
    });
    expectStatus(cleared, 200);
    expectStatus(await admin('PATCH', `/projects/${projectId}`, { attributionTimeoutHours: 0 }), 400);

    const keys = await admin('POST', `/projects/${projectId}/api-keys`);
    expectStatus(keys, 201);
    const pair = { apiKey: keys.body.apiKey, apiSecret: keys.body.apiSecret };
    const issued = await call('POST', '/auth/token', { body: pair });
    expectStatus(issued, 200);
    // Named and restricted keys, the project's list, a roll (docs/operators.md, API keys), and the partner's own.
    const restricted = await admin('POST', `/projects/${projectId}/api-keys`, {
      name: 'conformance',
      scopes: ['customers:read'],
    });
    expectStatus(restricted, 201);
    expectStatus(await admin('POST', `/projects/${projectId}/api-keys`, { scopes: [] }), 400);
    expectStatus(await admin('GET', `/projects/${projectId}/api-keys`), 200);
    expectStatus(await admin('GET', `/projects/${UNKNOWN.project}/api-keys`), 404);
    const narrow = await call('POST', '/auth/token', {
      body: { apiKey: restricted.body.apiKey, apiSecret: restricted.body.apiSecret },
    });
    expectStatus(await call('GET', '/customers', { token: narrow.body.accessToken }), 200);
    expectStatus(await call('GET', '/wallets', { token: narrow.body.accessToken }), 403);
    expectStatus(await admin('POST', `/api-keys/${restricted.body.apiKey}/roll`, { expiresInSeconds: 60 }), 201);
    expectStatus(await admin('POST', `/api-keys/${restricted.body.apiKey}/roll`, {}), 409);
    expectStatus(await admin('POST', `/api-keys/${restricted.body.apiKey}/roll`, { expiresInSeconds: -1 }), 400);
    expectStatus(await admin('POST', '/api-keys/sk_sdbx_noSuchKey000000000000/roll', {}), 404);
    const partner = { token: issued.body.accessToken };
    expectStatus(await call('GET', '/api-keys', partner), 200);
    const own = await call('POST', '/api-keys', { ...partner, body: { name: 'own' } });
    expectStatus(own, 201);
    expectStatus(await call('POST', '/api-keys', { ...partner, body: { scopes: ['nope'] } }), 400);
    const rolledOwn = await call('POST', `/api-keys/${own.body.apiKey}/roll`, { ...partner, body: {} });
    expectStatus(rolledOwn, 201);
    expectStatus(await call('POST', `/api-keys/${own.body.apiKey}/roll`, { ...partner, body: {} }), 409);
    expectStatus(await call('DELETE', `/api-keys/${rolledOwn.body.apiKey}`, partner), 200);
    expectStatus(await call('DELETE', '/api-keys/sk_sdbx_noSuchKey000000000000', partner), 404);
    expectStatus(await call('GET', '/api-keys', { token: narrow.body.accessToken }), 403);
    // The request log: its entries are written a moment after their responses.
    const logged = await eventually(
      async () => (await call('GET', '/request-logs?limit=1', partner)).body.data?.[0] as { id: string } | undefined,
    );
    expectStatus(await call('GET', '/request-logs?status=4xx&method=post&path=/api-keys', partner), 200);
    expectStatus(await call('GET', '/request-logs?status=abc', partner), 400);
    expectStatus(await call('GET', `/request-logs/${logged.id}`, partner), 200);
    expectStatus(await call('GET', '/request-logs/rlog_01m900000000000000000000aa', partner), 404);
    expectStatus(await call('GET', '/request-logs', { token: narrow.body.accessToken }), 403);
    expectStatus(
      await call('POST', '/auth/token', { body: { apiKey: keys.body.apiKey, apiSecret: 'not-the-secret' } }),
      401,
    );
    expectStatus(await call('GET', '/.well-known/jwks.json'), 200);
    expectStatus(await admin('DELETE', `/api-keys/${keys.body.apiKey}`), 200);
    expectStatus(await admin('DELETE', '/api-keys/sk_sdbx_noSuchKey000000000000'), 404);

    const publishable = await admin('POST', `/projects/${projectId}/publishable-keys`);
    expectStatus(publishable, 201);
    expectStatus(await call('GET', '/risk/config', { headers: { 'api-key': publishable.body.publishableKey } }), 200);
    expectStatus(await admin('DELETE', `/publishable-keys/${publishable.body.publishableKey}`), 204);
    expectStatus(await call('GET', '/risk/config', { headers: { 'api-key': publishable.body.publishableKey } }), 401);
    expectStatus(await call('GET', '/admin/projects'), 401);
    // Each usdc network and whether it is on a chain (simulated here; test-e2e/chain.e2e-spec.ts runs one).
    expectStatus(await admin('GET', '/chains'), 200);
    expectStatus(await call('GET', '/admin/chains'), 401);
    expectStatus(await admin('GET', '/reconciliation?network=ethereum'), 400);
    expectStatus(await admin('GET', '/reconciliation'), 400);
    // The read models' rebuild (docs/kubernetes.md): what can be rebuilt, a rebuild, and the refusals.
    expectStatus(await admin('GET', '/read-models/quoting'), 200);
    expectStatus(await admin('GET', '/read-models/ledger'), 404);
    expectStatus(await admin('POST', '/read-models/quoting/rebuild', { readModel: 'quotes' }), 200);
    expectStatus(await admin('POST', '/read-models/quoting/rebuild', { readModel: 'nope' }), 400);
    expectStatus(await call('POST', '/admin/read-models/quoting/rebuild', { body: {} }), 401);
    // The operators' audit log (docs/operators.md): the actions above are in it, and its chain verifies.
    expectStatus(await admin('GET', '/audit-log?limit=5'), 200);
    expectStatus(await admin('GET', `/audit-log?targetId=${projectId}&actor=admin-token`), 200);
    expectStatus(await admin('GET', '/audit-log?createdAfter=yesterday'), 400);
    expectStatus(await admin('GET', '/audit-log?cursor=not-a-cursor'), 400);
    expectStatus(await admin('GET', '/audit-log/verify'), 200);
    expectStatus(await call('GET', '/admin/audit-log'), 401);
    conforms();
  });

  it('the sandbox clock', async () => {
    const t = await tenant('conformance-clock');
    expectStatus(await t.get('/sandbox/clock'), 200);
    expectStatus(await t.post('/sandbox/clock/advance', { seconds: 5 }), 200);
    expectStatus(await t.post('/sandbox/clock/advance', { seconds: 0 }), 400);
    conforms();
  });

  it('customers, wallets and balances', async () => {
    const t = await tenant('conformance-customers');
    // With and without an email (null).
    const withEmail = await t.customer('Lovelace', { email: 'ada@example.com' });
    const withoutEmail = await t.customer('Byron');
    expectStatus(await t.get('/customers'), 200);
    expectStatus(await t.get(`/customers/${withEmail}`), 200);
    expectStatus(await t.get(`/customers/${UNKNOWN.customer}`), 404);
    expectStatus(await t.post(`/customers/${withoutEmail}/endorsements`, { name: 'cryptoCustody' }), 200);
    expectStatus(await t.post('/customers', { type: 'business', firstName: 'Ada', lastName: 'Lovelace' }), 400);
    const wallet = await t.wallet(withEmail, '125.50');
    expectStatus(await t.get(`/wallets?customerId=${withEmail}`), 200);
    expectStatus(await t.get(`/wallets/${wallet.id}`), 200);
    expectStatus(await t.get(`/wallets/${wallet.id}/balance`), 200);
    // The balance with its totalBalance, without it (the fiat component unreadable), and a provider failure.
    expectStatus(await t.get(`/customers/${withEmail}/balance`), 200);
    expectStatus(await t.get(`/customers/${withEmail}/balance?estimatedBalanceCurrencyCode=CAD`), 200);
    expectStatus(await t.get(`/customers/${await t.customer('FiatUnavailable')}/balance`), 200);
    expectStatus(await t.get(`/customers/${await t.customer('Unprovisioned')}/balance`), 404);
    conforms();
  });

  it('external accounts of every type and counterparties, with and without their optional fields', async () => {
    const t = await tenant('conformance-instruments');
    const customerId = await t.customer();
    const owner = { kind: 'customer', customerId };
    // Labelled and not; active, failed (failure set) and owned by a counterparty (owner set).
    const bankUs = await t.account('/external-accounts', {
      owner,
      type: 'bankUs',
      label: 'Payroll',
      metadata: { ref: '1' },
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021', bankName: 'Chase' },
    });
    await t.account('/external-accounts', {
      owner,
      type: 'bankIban',
      bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX', bankAddress: 'Frankfurt' },
    });
    await t.account('/external-accounts', {
      owner,
      type: 'bankCanada',
      label: null,
      bankCanada: { institutionNumber: '001', transitNumber: '12345', accountNumber: '1234567' },
    });
    await t.account('/external-accounts/cards', {
      owner,
      card: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123', billingAddress: BILLING },
    });
    const wallet = await t.account('/external-accounts', {
      owner,
      type: 'walletExternal',
      walletExternal: { address: EXTERNAL_WALLET, network: 'ethereum' },
    });
    await t.account(
      '/external-accounts',
      { owner, type: 'bankUs', bankUs: { accountNumber: '000123450002', routingNumber: '021000021' } },
      'failed',
    );
    expectStatus(
      await t.post('/external-accounts', {
        owner,
        type: 'bankUs',
        bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX' },
      }),
      422,
    );

    // Counterparties: an individual with every optional field, a business with none (nulls).
    const person = await t.post('/counterparties', {
      customerId,
      entityType: 'individual',
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'grace@example.com',
      phone: '+14155550123',
      taxId: '123-45-6789',
      address: { streetAddress: '1 Main St', city: 'Arlington', postalCode: '22201', country: 'US' },
    });
    expectStatus(person, 201);
    const business = await t.post('/counterparties', { customerId, entityType: 'business', businessName: 'Acme Ltd' });
    expectStatus(business, 201);
    expectStatus(
      await t.post('/counterparties', {
        customerId,
        entityType: 'individual',
        firstName: 'Grace',
        lastName: 'Hopper',
        phone: '555',
      }),
      400,
    );
    expectStatus(await t.get(`/counterparties?customerId=${customerId}`), 200);
    expectStatus(await t.get(`/counterparties/${person.body.id}`), 200);
    expectStatus(await t.patch(`/counterparties/${person.body.id}`, { email: null, phone: null, address: null }), 200);
    expectStatus(
      await t.patch(`/counterparties/${business.body.id}`, { email: 'ap@acme.example', address: { city: 'Boston' } }),
      200,
    );
    const owned = await t.account('/external-accounts', {
      owner: { kind: 'counterparty', counterpartyId: business.body.id },
      type: 'bankUs',
      bankUs: { accountNumber: '223456789012', routingNumber: '021000021', accountType: 'savings' },
    });

    expectStatus(await t.get(`/external-accounts?customerId=${customerId}`), 200);
    expectStatus(await t.get(`/external-accounts?customerId=${customerId}&counterpartyId=${business.body.id}`), 200);
    expectStatus(await t.get(`/external-accounts/${owned.id}`), 200);
    expectStatus(
      await t.patch(`/external-accounts/${bankUs.id}`, { label: null, metadata: { ref: null, note: 'x' } }),
      200,
    );
    expectStatus(await t.patch(`/external-accounts/${wallet.id}`, { label: 'Cold storage' }), 200);
    expectStatus(await t.patch(`/external-accounts/${wallet.id}`, { accountNumber: '1' }), 422);
    expectStatus(await t.post(`/external-accounts/${wallet.id}/simulate/invalidate`, { code: 'account_closed' }), 200);
    expectStatus(await t.del(`/external-accounts/${owned.id}`), 204);
    expectStatus(await t.del(`/external-accounts/${owned.id}`), 404);
    expectStatus(await t.del(`/counterparties/${person.body.id}`), 204);
    expectStatus(await t.get(`/counterparties/${person.body.id}`), 404);
    conforms();
  });

  describe('quotes and transactions', () => {
    let t: Tenant;
    let customerId: string;
    let wallet: { id: string; address: string };
    let bank: { id: string };
    let card: { id: string };
    let external: { id: string };
    beforeAll(async () => {
      t = await tenant('conformance-transactions');
      customerId = await t.customer();
      wallet = await t.wallet(customerId, '50000');
      const owner = { kind: 'customer', customerId };
      bank = await t.account('/external-accounts', {
        owner,
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      });
      card = await t.account('/external-accounts/cards', {
        owner,
        card: {
          cardNumber: '4242424242424242',
          expiryMonth: 12,
          expiryYear: 2031,
          cvc: '123',
          billingAddress: BILLING,
        },
      });
      external = await t.account('/external-accounts', {
        owner,
        type: 'walletExternal',
        walletExternal: { address: EXTERNAL_WALLET, network: 'ethereum' },
      });
    }, 60_000);

    const quote = async (body: Record<string, unknown>) => {
      const res = await t.post('/quotes', { customerId, ...body });
      expectStatus(res, 201);
      return res.body as { id: string };
    };
    const start = async (body: Record<string, unknown>) => {
      const res = await t.post('/transactions', { quoteId: (await quote(body)).id });
      expectStatus(res, 201);
      return res.body as { id: string };
    };
    const toBank = (amount: string, network = 'ach') => ({
      source: { type: 'walletOms', details: { id: wallet.id }, amount },
      destination: { type: 'bankUs', details: { id: bank.id, network, accountHolder: 'customer' } },
    });
    const cardBuy = (amount: string) => ({
      source: { type: 'card', details: { externalAccountId: card.id }, amount },
      destination: { type: 'walletOms', details: { id: wallet.id } },
    });

    it('every corridor, completed', async () => {
      const payout = await start({ ...toBank('100.00'), metadata: { order: '7' } });
      const crypto = await start({
        source: { type: 'walletOms', details: { id: wallet.id }, amount: '12.00' },
        destination: { type: 'walletExternal', details: { id: external.id } },
      });
      const buy = await start(cardBuy('40.00'));
      const pickup = await start({
        source: { type: 'walletOms', details: { id: wallet.id } },
        destination: { type: 'cash', details: { asset: 'usd', ...PICKUP_LOCATION }, amount: '60.00' },
      });
      // Each kind of party: another customer's wallet, a counterparty's external wallet; and a card sell.
      const other = await t.wallet(await t.customer('Other'));
      const toOther = await start({
        source: { type: 'walletOms', details: { id: wallet.id }, amount: '5.00' },
        destination: { type: 'walletOms', details: { id: other.id } },
      });
      const counterparty = await t.post('/counterparties', {
        customerId,
        entityType: 'individual',
        firstName: 'Grace',
        lastName: 'Hopper',
      });
      expectStatus(counterparty, 201);
      const theirs = await t.account('/external-accounts', {
        owner: { kind: 'counterparty', counterpartyId: counterparty.body.id },
        type: 'walletExternal',
        walletExternal: { address: COUNTERPARTY_WALLET, network: 'ethereum' },
      });
      const toCounterparty = await start({
        source: { type: 'walletOms', details: { id: wallet.id }, amount: '6.00' },
        destination: { type: 'walletExternal', details: { id: theirs.id } },
      });
      const sell = await start({
        source: { type: 'walletOms', details: { id: wallet.id }, amount: '7.00' },
        destination: { type: 'card', details: { externalAccountId: card.id } },
      });
      const quoteId = (
        await quote({
          source: { type: 'walletOms', details: { id: wallet.id } },
          destination: {
            type: 'bankUs',
            details: { id: bank.id, network: 'wire', accountHolder: 'customer' },
            amount: '30.00',
          },
        })
      ).id;
      expectStatus(await t.get(`/quotes/${quoteId}`), 200);
      expectStatus(await t.post('/transactions', { quoteId: UNKNOWN.transaction.replace('txn_', 'qt_') }), 404);
      await t.advance(5);
      await t.advance(5);
      for (const done of [crypto, buy, toOther, toCounterparty, sell]) await t.until(done.id, 'completed');
      const ready = await t.until(pickup.id, 'processing', 'processing.cashPickupReady');
      expectStatus(await t.post(`/transactions/${ready.id}/simulate/cash-pickup`, { outcome: 'collected' }), 200);
      expectStatus(await t.post(`/transactions/${ready.id}/simulate/cash-pickup`, { outcome: 'collected' }), 422);
      await t.advance(60);
      await t.until(payout.id, 'completed', null);
      expectStatus(await t.get(`/quotes/${quoteId}`), 200);
      expectStatus(await t.get('/transactions'), 200);
      expectStatus(await t.get(`/transactions?customerId=${customerId}&status=completed&limit=2`), 200);
      expectStatus(await t.get(`/transactions/${payout.id}`), 200);
      expectStatus(await t.get(`/transactions/${UNKNOWN.transaction}`), 404);
      conforms();
    });

    it('failed, held and operated on', async () => {
      // A payout refused before anything moved: returned to the sender (error.refund).
      const refused = await start(toBank('10.91', 'wire'));
      // A payout that failed after it was sent: held (recoverable), then refunded by an operator.
      const sentAndFailed = await start(toBank('10.92', 'wire'));
      // A card buy whose crypto failed after the charge: under review, then retried.
      const heldBuy = await start(cardBuy('40.94'));
      // Another held one marked failed.
      const markedBuy = await start(cardBuy('41.94'));
      // An amount under compliance review.
      const reviewed = await start(toBank('10000.00', 'wire'));
      await t.advance(5);
      await t.advance(5);
      await t.advance(30);
      await t.until(refused.id, 'failed', 'failed.returnedToSender');
      await t.until(sentAndFailed.id, 'failed', 'failed.outboundFailed');
      await t.until(heldBuy.id, 'processing', 'processing.underReview');
      await t.until(markedBuy.id, 'processing', 'processing.underReview');
      expectStatus(await t.get(`/transactions/${reviewed.id}`), 200);
      // The operator's queue, with the held ones in it.
      expectStatus(await admin('GET', '/transactions/held?limit=100'), 200);
      expectStatus(await admin('GET', '/transactions/held?projectId=nope'), 400);
      // Whose money it is, named.
      const held = (await t.get(`/transactions/${reviewed.id}`)).body as { customerId: string };
      expectStatus(await admin('GET', `/customers/${held.customerId}`), 200);
      expectStatus(await admin('GET', '/customers/cst_01m900000000000000000000aa'), 404);
      expectStatus(await admin('POST', `/transactions/${sentAndFailed.id}/retry`, {}), 409);
      expectStatus(await admin('POST', `/transactions/${sentAndFailed.id}/refund`, { reason: 'customer asked' }), 200);
      expectStatus(await admin('POST', `/transactions/${heldBuy.id}/retry`, {}), 200);
      expectStatus(await admin('POST', `/transactions/${markedBuy.id}/mark-failed`, { reason: 'gave up' }), 200);
      expectStatus(
        await admin('POST', `/transactions/${markedBuy.id}/complete-refund`, { reason: 'bank confirmed' }),
        422,
      );
      expectStatus(await admin('POST', `/transactions/${UNKNOWN.transaction}/complete-refund`, { reason: 'x' }), 404);
      await t.advance(60);
      await t.until(sentAndFailed.id, 'failed', 'failed.returnedToSender');
      await t.until(heldBuy.id, 'completed');
      expectStatus(await t.get(`/transactions?customerId=${customerId}`), 200);
      // Four eyes (docs/operators.md): with a threshold of 0.00 an action is a request (202); the static token
      // may list, read and withdraw it, never approve its own.
      expectStatus(await admin('PATCH', `/projects/${t.projectId}`, { fourEyesThreshold: '0.00' }), 200);
      const request = await admin('POST', `/transactions/${markedBuy.id}/refund`, { reason: 'customer asked' });
      expectStatus(request, 202);
      expectStatus(await admin('GET', `/approvals?projectId=${t.projectId}&status=pending`), 200);
      expectStatus(await admin('GET', '/approvals?status=maybe'), 400);
      expectStatus(await admin('GET', `/approvals/${request.body.id}`), 200);
      expectStatus(await admin('GET', '/approvals/nope'), 400);
      expectStatus(await admin('GET', '/approvals/apr_01h455vb4pex5vsknk084sn02q'), 404);
      expectStatus(await admin('POST', `/approvals/${request.body.id}/approve`, {}), 403);
      expectStatus(await admin('POST', `/approvals/${request.body.id}/reject`, { reason: 'withdrawn' }), 200);
      expectStatus(await admin('POST', `/approvals/${request.body.id}/reject`, {}), 409);
      expectStatus(await call('GET', '/admin/approvals'), 401);
      expectStatus(await admin('PATCH', `/projects/${t.projectId}`, { fourEyesThreshold: null }), 200);
      conforms();
    });
  });

  it('webhooks, deliveries and attempts, and the envelope of every kind of event', async () => {
    // (Many real changes, each waited for: longer than a plain test on a busy machine.)
    const t = await tenant('conformance-webhooks');
    // With and without a description (null); the first endpoint takes every event and fails its first attempt.
    receiver.fail('/conformance-all', 1, 500);
    const reviews = PARTNER_EVENT_CATALOGUE.filter((e) => e.endsWith('.underReview'));
    const all = await t.post('/webhooks', {
      url: receiver.url('/conformance-all'),
      subscriptions: ['*', ...reviews],
      description: 'Ops',
      timeoutMs: 3000,
      notifyThresholdSecs: 600,
    });
    expectStatus(all, 201);
    const plain = await t.post('/webhooks', {
      url: receiver.url('/conformance-plain'),
      subscriptions: ['endorsement.updated'],
    });
    expectStatus(plain, 201);
    expectStatus(await t.post('/webhooks', { url: receiver.url('/x'), subscriptions: ['no.such.event'] }), 422);
    const hook = all.body.id as string;
    expectStatus(await t.get('/webhooks'), 200);
    expectStatus(await t.get(`/webhooks/${hook}`), 200);
    expectStatus(await t.patch(`/webhooks/${hook}`, { description: null }), 200);
    expectStatus(await t.patch(`/webhooks/${plain.body.id}`, { description: 'Endorsements only' }), 200);
    expectStatus(await t.post(`/webhooks/${hook}/rotate-key`), 200);

    const sent = await t.post(`/webhooks/${hook}/test`);
    expectStatus(sent, 201);
    // The first attempt fails (its status code and body recorded); the retry 5 s later succeeds.
    const delivery = (id: string) => t.get(`/webhooks/${hook}/deliveries/${id}`).then((r) => r.body);
    const failedOnce = await eventually(
      async () => ((await delivery(sent.body.id)).attempts?.length >= 1 ? delivery(sent.body.id) : undefined),
      15_000,
    );
    expect(failedOnce.attempts[0].statusCode).toBe(500);
    await t.advance(5);
    await eventually(async () => ((await delivery(sent.body.id)).status === 'delivered' ? true : undefined), 15_000);
    expectStatus(await t.get(`/webhooks/${hook}/deliveries?status=delivered&test=true`), 200);
    expectStatus(await t.get(`/webhooks/${hook}/deliveries/whd_01h455vb4pex5vsknk084sn02q`), 404);
    expectStatus(await t.post(`/webhooks/${hook}/deliveries/retry`, { deliveryIds: [sent.body.id] }), 200);
    expectStatus(await t.post(`/webhooks/${hook}/deliveries/retry`, {}), 422);

    // Every event of this version, each from a real change: endorsements, a wallet, accounts verified,
    // declined, renamed and deleted, a counterparty created and deleted, cash-ins refreshed, completed
    // and expired, and transactions of each direction held for compliance review.
    const customerId = await t.customer('Events');
    const owner = { kind: 'customer', customerId };
    const wallet = await t.wallet(customerId, '30000');
    const externalWallet = await t.account('/external-accounts', {
      owner,
      type: 'walletExternal',
      walletExternal: { address: EXTERNAL_WALLET, network: 'ethereum' },
    });
    const bank = await t.account('/external-accounts', {
      owner,
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    const card = await t.account('/external-accounts/cards', {
      owner,
      card: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123', billingAddress: BILLING },
    });
    const declined = await t.account(
      '/external-accounts',
      { owner, type: 'bankUs', bankUs: { accountNumber: '000123450002', routingNumber: '021000021' } },
      'failed',
    );
    expectStatus(await t.patch(`/external-accounts/${bank.id}`, { label: 'Payroll' }), 200);
    expectStatus(await t.del(`/external-accounts/${declined.id}`), 204);
    const counterparty = await t.post('/counterparties', {
      customerId,
      entityType: 'business',
      businessName: 'Acme Ltd',
    });
    expectStatus(counterparty, 201);
    expectStatus(await t.del(`/counterparties/${counterparty.body.id}`), 204);
    const cashIn = () =>
      t.post('/cash-ins', {
        customerId,
        source: { asset: 'usd' },
        destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: wallet.id } },
        cash: CASH_IN_LOCATION,
      });
    const completed = await cashIn();
    expectStatus(completed, 201);
    expectStatus(await t.post(`/cash-ins/${completed.body.id}/refresh`), 200);
    expectStatus(await t.post(`/cash-ins/${completed.body.id}/simulate/deposit`, { amount: '20.00' }), 200);
    expectStatus(await cashIn(), 201);
    const start = async (body: Record<string, unknown>) => {
      const quote = await t.post('/quotes', { customerId, ...body });
      expectStatus(quote, 201);
      expectStatus(await t.post('/transactions', { quoteId: quote.body.id }), 201);
    };
    // 10,000 or more is held for review before its first leg; a card buy's crypto failing (.94) is held too.
    await start({
      source: { type: 'walletOms', details: { id: wallet.id }, amount: '10000.00' },
      destination: { type: 'bankUs', details: { id: bank.id, network: 'wire', accountHolder: 'customer' } },
    });
    await start({
      source: { type: 'walletOms', details: { id: wallet.id }, amount: '10000.00' },
      destination: { type: 'walletExternal', details: { id: externalWallet.id } },
    });
    await start({
      source: { type: 'card', details: { externalAccountId: card.id }, amount: '40.94' },
      destination: { type: 'walletOms', details: { id: wallet.id } },
    });
    await t.advance(5);
    await t.advance(5);
    // A deposit address through its life: created, provisioned (active), updated, frozen, closed; and
    // one whose provisioning fails.
    const depositAddress = await t.post('/deposit-addresses', {
      customerId,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: { externalAccountId: bank.id },
      payout: { rail: 'ach' },
    });
    expectStatus(depositAddress, 201);
    const failing = await t.post('/deposit-addresses', {
      customerId,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: { externalAccountId: bank.id },
      payout: { rail: 'ach' },
      label: 'ProvisioningFails',
    });
    expectStatus(failing, 201);
    const addressStatus = async (id: string, status: string) =>
      eventually(
        async () => ((await t.get(`/deposit-addresses/${id}`)).body.status === status ? true : undefined),
        20_000,
      );
    await addressStatus(depositAddress.body.id, 'active');
    await addressStatus(failing.body.id, 'failed');
    expectStatus(await t.patch(`/deposit-addresses/${depositAddress.body.id}`, { label: 'Inlet' }), 200);
    // Its deposits' legs: paid out over ACH, refused (.91), returned by the bank (.94), held for an
    // unregistered sender, and over wire and SWIFT from addresses on those rails.
    const iban = await t.account('/external-accounts', {
      owner,
      type: 'bankIban',
      bankIban: { iban: 'GB29NWBK60161331926819', BIC: 'NWBKGB2L', bankAddress: '1 Princes St, London' },
    });
    const inlet = async (fields: Record<string, unknown>) => {
      const created = await t.post('/deposit-addresses', {
        customerId,
        expectedSourceAsset: 'usdc',
        expectedSourceNetwork: 'meridianchain',
        destination: { externalAccountId: bank.id },
        payout: { rail: 'ach' },
        ...fields,
      });
      expectStatus(created, 201);
      await addressStatus(created.body.id, 'active');
      return created.body.id as string;
    };
    const [wire, swift, attributed] = [
      await inlet({ payout: { rail: 'wire' } }),
      await inlet({ destination: { externalAccountId: iban.id }, payout: { rail: 'swift' } }),
      await inlet({ requiresCounterpartyWalletRegistration: true }),
    ];
    const deposit = async (id: string, amount: string) =>
      expectStatus(
        await t.post(`/deposit-addresses/${id}/simulate/crypto-deposit`, {
          amount,
          senderAddress: EXTERNAL_WALLET.replace(/.$/, '0'),
        }),
        201,
      );
    for (const amount of ['25.00', '25.91', '25.94']) {
      await deposit(depositAddress.body.id, amount);
      await deposit(wire, amount);
      await deposit(swift, amount);
    }
    await deposit(attributed, '28.00');
    // Virtual accounts' inbound transfers: delivered to a wallet and to a bank account, refused (.91),
    // returned (.92), and whose delivery fails (.94).
    const virtualAccount = async (destination: Record<string, unknown>) => {
      const created = await t.post('/virtual-accounts', {
        customerId,
        source: { asset: 'usd', network: 'ach' },
        destination,
        accountHolder: 'customer',
        type: 'bankUs',
      });
      expectStatus(created, 201);
      await eventually(async () => {
        await t.advance(5);
        return (await t.get(`/virtual-accounts/${created.body.id}`)).body.status === 'active' ? true : undefined;
      }, 20_000);
      return created.body.id as string;
    };
    const [toWallet, toBank] = [
      await virtualAccount({ type: 'walletOms', walletId: wallet.id }),
      await virtualAccount({ type: 'bankUs', externalAccountId: bank.id, payout: { rail: 'wire' } }),
    ];
    const inbound = async (id: string, amount: string) => {
      const res = await t.post(`/virtual-accounts/${id}/simulate/inbound-transfer`, { amount });
      expectStatus(res, 201);
      return res.body.transactionId as string;
    };
    const delivered: string[] = [];
    for (const amount of ['25.00', '25.91', '25.92', '25.94'])
      delivered.push(await inbound(toWallet, amount), await inbound(toBank, amount));
    await t.advance(61);
    expectStatus(await t.post(`/deposit-addresses/${depositAddress.body.id}/simulate/freeze`), 200);
    // A deposit to a frozen address goes back to its sender (the crypto payout legs); to one whose return
    // wallet was invalidated since, the return is refused (crypto_payout.failed) and held for an operator.
    await deposit(depositAddress.body.id, '29.00');
    const returnWallet = await t.account('/external-accounts', {
      owner,
      type: 'walletExternal',
      walletExternal: { address: EXTERNAL_WALLET.replace(/.$/, '1'), network: 'meridianchain' },
    });
    const returning = await inlet({ returnDestination: { externalAccountId: returnWallet.id } });
    expectStatus(await t.post(`/deposit-addresses/${returning}/simulate/freeze`), 200);
    expectStatus(await t.post(`/external-accounts/${returnWallet.id}/simulate/invalidate`, {}), 200);
    await deposit(returning, '29.00');
    expectStatus(await t.post(`/deposit-addresses/${depositAddress.body.id}/simulate/close`), 200);
    // Each settled transfer's delivery is scheduled once its settlement is handled: only then may the clock move on.
    for (const id of delivered)
      await eventually(
        async () =>
          (await t.get(`/transactions/${id}`)).body.legs.length >= 2 ||
          (await t.get(`/transactions/${id}`)).body.status === 'failed'
            ? true
            : undefined,
        20_000,
      );
    // A virtual account through its life: created, provisioned (active), updated, frozen, unfrozen, closed,
    // deleted; and one whose provisioning fails.
    const lifecycleAccount = async (fields: Record<string, unknown> = {}) => {
      const res = await t.post('/virtual-accounts', {
        customerId,
        source: { asset: 'usd', network: 'ach' },
        destination: { type: 'walletOms', walletId: wallet.id },
        accountHolder: 'customer',
        type: 'bankUs',
        ...fields,
      });
      expectStatus(res, 201);
      return res.body.id as string;
    };
    const accountStatus = async (id: string, status: string) =>
      eventually(
        async () => ((await t.get(`/virtual-accounts/${id}`)).body.status === status ? true : undefined),
        20_000,
      );
    const [payroll, refused] = [
      await lifecycleAccount({ returnDestination: { externalAccountId: bank.id }, returnPayout: { rail: 'ach' } }),
      await lifecycleAccount({ label: 'ProvisioningFails' }),
    ];
    await accountStatus(payroll, 'active');
    await accountStatus(refused, 'failed');
    expectStatus(await t.patch(`/virtual-accounts/${payroll}`, { label: 'Payroll' }), 200);
    expectStatus(await t.post(`/virtual-accounts/${payroll}/simulate/freeze`), 200);
    expectStatus(await t.post(`/virtual-accounts/${payroll}/simulate/unfreeze`), 200);
    expectStatus(await t.post(`/virtual-accounts/${payroll}/simulate/close`), 200);
    expectStatus(await t.del(`/virtual-accounts/${payroll}`), 202);
    await accountStatus(payroll, 'deleted');
    // The pending cash-in's code lapses an hour later.
    await t.advance(3700);
    // A failed delivery refunded by the operator, and the refund completed by the operator while in flight.
    const failedDelivery = delivered[6];
    await eventually(
      async () =>
        (await t.get(`/transactions/${failedDelivery}`)).body.subStatus === 'processing.underReview' ? true : undefined,
      20_000,
    );
    expectStatus(await admin('POST', `/transactions/${failedDelivery}/refund`, { reason: 'back to the sender' }), 200);
    expectStatus(
      await admin('POST', `/transactions/${failedDelivery}/complete-refund`, { reason: 'the bank confirmed it' }),
      200,
    );

    const listed = async () => {
      const found: Array<{ id: string; event: string }> = [];
      for (let cursor = ''; ;) {
        const page = (await t.get(`/webhooks/${hook}/deliveries?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).body;
        found.push(...page.data);
        if (!page.hasMore) return found;
        cursor = page.nextCursor;
      }
    };
    let missing: string[] = [];
    const deliveries = await eventually(async () => {
      const found = await listed();
      missing = SANDBOX_PARTNER_EVENTS.filter((e) => !found.some((d) => d.event === e));
      return missing.length === 0 ? found : undefined;
    }, 30_000).catch((error: Error) => {
      throw new Error(`${error.message}: no delivery yet of ${missing.join(', ')}`);
    });
    for (const event of new Set(deliveries.map((d) => d.event)))
      expectStatus(await t.get(`/webhooks/${hook}/deliveries/${deliveries.find((d) => d.event === event)!.id}`), 200);
    expectStatus(await t.get(`/webhooks/${plain.body.id}/deliveries`), 200);
    // Every body as the receiver got it matches the document's webhooks, for every event of this version.
    const received = await eventually(async () => {
      const bodies = receiver.at('/conformance-all').map((r) => r.body);
      return SANDBOX_PARTNER_EVENTS.every((e) => bodies.some((b) => (b?.event ?? b?.eventType) === e))
        ? bodies
        : undefined;
    }, 30_000);
    expect(received.flatMap((body) => conformance.checkWebhook(body))).toEqual([]);
    expect(receiver.at('/conformance-plain').flatMap((r) => conformance.checkWebhook(r.body))).toEqual([]);

    // The Events API (ADR 0034): every event above, listed, each kind read, some sent again.
    const events: Array<{ id: string; event?: string; eventType?: string; createdAt: string }> = [];
    for (let cursor = ''; ;) {
      const page = await t.get(`/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      expectStatus(page, 200);
      events.push(...page.body.data);
      if (!page.body.hasMore) break;
      cursor = page.body.nextCursor;
    }
    for (const name of new Set(events.map((e) => e.event ?? e.eventType)))
      expectStatus(await t.get(`/events/${events.find((e) => (e.event ?? e.eventType) === name)!.id}`), 200);
    expectStatus(
      await t.get(
        `/events?type=transaction.statusChanged&resourceId=${customerId}&createdAfter=${events[events.length - 1].createdAt}&createdBefore=${events[0].createdAt}`,
      ),
      200,
    );
    expectStatus(await t.get('/events?type=no.such.event'), 400);
    expectStatus(await t.get('/events/evt_01h455vb4pex5vsknk084sn02q'), 404);
    expectStatus(await t.post(`/webhooks/${hook}/deliveries`, { eventIds: events.slice(0, 3).map((e) => e.id) }), 201);
    expectStatus(
      await t.post(`/webhooks/${plain.body.id}/deliveries`, { eventIds: events.slice(0, 3).map((e) => e.id) }),
      201,
    );
    expectStatus(await t.post(`/webhooks/${hook}/deliveries`, { eventIds: ['evt_01h455vb4pex5vsknk084sn02q'] }), 404);

    expectStatus(await t.post(`/webhooks/${hook}/disable`), 200);
    expectStatus(await t.post(`/webhooks/${hook}/test`), 409);
    expectStatus(await t.post(`/webhooks/${hook}/enable`), 200);
    // The same endpoint by an operator (docs/operators.md), and the refusals.
    expectStatus(await admin('GET', `/webhooks/${hook}`), 200);
    expectStatus(await admin('GET', '/webhooks/wh_01h455vb4pex5vsknk084sn02q'), 404);
    expectStatus(await admin('POST', `/webhooks/${hook}/disable`), 200);
    expectStatus(await admin('POST', `/webhooks/${hook}/enable`), 200);
    expectStatus(await admin('POST', '/webhooks/not-a-webhook/enable'), 400);
    expectStatus(await admin('POST', `/webhooks/${hook}/deliveries/retry`, { status: 'failed' }), 200);
    expectStatus(await admin('POST', `/webhooks/${hook}/deliveries/retry`, {}), 422);
    expectStatus(await t.del(`/webhooks/${hook}`), 204);
    expectStatus(await t.get(`/webhooks/${hook}`), 404);
    conforms();
  }, 120_000);

  it('cash-ins and cash locations', async () => {
    const t = await tenant('conformance-cash-ins');
    const customerId = await t.customer();
    const wallet = await t.wallet(customerId);
    // Locations with a distance (coordinates given) and without (null), for both flows.
    expectStatus(await t.get('/cash-locations'), 200);
    expectStatus(await t.get('/cash-locations?latitude=34.0522&longitude=-118.2437&limit=3'), 200);
    expectStatus(await t.get('/cash-locations?flow=cash_out&provider=bigmart'), 200);
    expectStatus(await t.get('/cash-locations?latitude=91&longitude=0'), 400);
    const create = (source: Record<string, unknown>, wallet_: Record<string, unknown> = { id: wallet.id }) =>
      t.post('/cash-ins', {
        customerId,
        source,
        destination: { asset: 'usdc', network: 'meridianchain', wallet: wallet_ },
        cash: CASH_IN_LOCATION,
        metadata: { order: '9' },
      });
    // With an indicated amount (estimates) and without (null amounts), and to an address.
    const estimated = await create({ asset: 'usd', indicatedAmount: '100.00' });
    expectStatus(estimated, 201);
    const bare = await create({ asset: 'usd', indicatedAmount: null }, { blockchainAddress: EXTERNAL_WALLET });
    expectStatus(bare, 201);
    expectStatus(await create({ asset: 'eur' }), 400);
    expectStatus(await t.get('/cash-ins'), 200);
    expectStatus(await t.get(`/cash-ins/${estimated.body.id}`), 200);
    expectStatus(await t.post(`/cash-ins/${bare.body.id}/refresh`), 200);
    // Completed (subStatus settled, transactionId and completedAt set), then its auto-created transaction.
    const done = await t.post(`/cash-ins/${estimated.body.id}/simulate/deposit`, {
      amount: '87.50',
      code: estimated.body.depositInstructions.code,
    });
    expectStatus(done, 200);
    expectStatus(await t.post(`/cash-ins/${estimated.body.id}/simulate/deposit`, { amount: '1.00' }), 422);
    await eventually(async () =>
      (await t.get(`/transactions/${done.body.transactionId}`)).status === 200 ? true : undefined,
    );
    await t.advance(5);
    await t.until(done.body.transactionId, 'completed');
    // To an address given as is: the transaction's destination is an unregistered party.
    const toAddress = await create({ asset: 'usd' }, { blockchainAddress: COUNTERPARTY_WALLET });
    expectStatus(toAddress, 201);
    const sentOn = await t.post(`/cash-ins/${toAddress.body.id}/simulate/deposit`, { amount: '25.00' });
    expectStatus(sentOn, 200);
    await eventually(async () =>
      (await t.get(`/transactions/${sentOn.body.transactionId}`)).status === 200 ? true : undefined,
    );
    // Expired: the code lapses an hour later on the project clock.
    await t.advance(3700);
    await eventually(async () =>
      (await t.get(`/cash-ins/${bare.body.id}`)).body.status === 'expired' ? true : undefined,
    );
    expectStatus(await t.get('/cash-ins?limit=1'), 200);
    expectStatus(await t.get('/cash-ins/ci_01h455vb4pex5vsknk084sn02q'), 404);
    conforms();
  });

  it('deposit addresses', async () => {
    const t = await tenant('conformance-deposit-addresses');
    const customerId = await t.customer();
    const owner = { kind: 'customer', customerId };
    const bank = await t.account('/external-accounts', {
      owner,
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    const iban = await t.account('/external-accounts', {
      owner,
      type: 'bankIban',
      bankIban: { iban: 'DE89370400440532013000', BIC: 'COBADEFFXXX' },
    });
    const canada = await t.account('/external-accounts', {
      owner,
      type: 'bankCanada',
      bankCanada: { institutionNumber: '001', transitNumber: '12345', accountNumber: '1234567' },
    });
    const back = await t.account('/external-accounts', {
      owner,
      type: 'walletExternal',
      walletExternal: { address: EXTERNAL_WALLET, network: 'meridianchain' },
    });
    const counterparty = await t.post('/counterparties', {
      customerId,
      entityType: 'individual',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    expectStatus(counterparty, 201);
    const theirs = await t.account('/external-accounts', {
      owner: { kind: 'counterparty', counterpartyId: counterparty.body.id },
      type: 'bankUs',
      bankUs: { accountNumber: '223456789012', routingNumber: '021000021' },
    });
    const base = { customerId, expectedSourceAsset: 'usdc', expectedSourceNetwork: 'meridianchain' };
    const status = async (id: string, wanted: string) =>
      eventually(
        async () => ((await t.get(`/deposit-addresses/${id}`)).body.status === wanted ? true : undefined),
        20_000,
      );
    // Every optional field set (and depositInstructions null while pending), then none; each kind of bank account.
    const full = await t.post('/deposit-addresses', {
      ...base,
      destination: { externalAccountId: theirs.id },
      payout: { rail: 'ach', secCode: 'PPD', companyDiscretionaryData: 'REF 1' },
      returnDestination: { externalAccountId: back.id },
      requiresCounterpartyWalletRegistration: true,
      sponsorGas: true,
      label: 'Full',
      metadata: { ref: '1' },
    });
    expectStatus(full, 201);
    const plain = await t.post('/deposit-addresses', {
      ...base,
      destination: { externalAccountId: bank.id },
      payout: { rail: 'wire' },
    });
    expectStatus(plain, 201);
    expectStatus(
      await t.post('/deposit-addresses', {
        ...base,
        destination: { externalAccountId: iban.id },
        payout: { rail: 'swift' },
      }),
      201,
    );
    expectStatus(
      await t.post('/deposit-addresses', {
        ...base,
        destination: { externalAccountId: canada.id },
        payout: { rail: 'local' },
      }),
      201,
    );
    expectStatus(
      await t.post('/deposit-addresses', {
        ...base,
        destination: { externalAccountId: back.id },
        payout: { rail: 'ach' },
      }),
      422,
    );
    await status(plain.body.id, 'active');
    await status(full.body.id, 'active');
    expectStatus(await t.get('/deposit-addresses'), 200);
    expectStatus(await t.get(`/deposit-addresses?customerId=${customerId}&limit=2`), 200);
    expectStatus(await t.get(`/deposit-addresses/${full.body.id}`), 200);
    expectStatus(await t.get('/deposit-addresses/da_01h455vb4pex5vsknk084sn02q'), 404);
    expectStatus(
      await t.patch(`/deposit-addresses/${full.body.id}`, {
        label: null,
        returnDestination: null,
        metadata: { ref: null },
      }),
      200,
    );
    expectStatus(
      await t.patch(`/deposit-addresses/${plain.body.id}`, { payout: { rail: 'ach' }, label: 'Plain' }),
      200,
    );
    expectStatus(
      await t.post(`/deposit-addresses/${plain.body.id}/simulate/crypto-deposit`, {
        amount: '10.00',
        senderAddress: COUNTERPARTY_WALLET,
      }),
      201,
    );
    expectStatus(
      await t.post(`/deposit-addresses/${plain.body.id}/simulate/crypto-deposit`, { amount: '10.001' }),
      422,
    );
    // The destination deleted: inactiveActionRequired, with its hold; re-pointed: active again.
    expectStatus(await t.del(`/external-accounts/${bank.id}`), 204);
    await status(plain.body.id, 'inactiveActionRequired');
    expectStatus(await t.get(`/deposit-addresses/${plain.body.id}`), 200);
    expectStatus(
      await t.patch(`/deposit-addresses/${plain.body.id}`, {
        destination: { externalAccountId: iban.id },
        payout: { rail: 'swift' },
      }),
      200,
    );
    expectStatus(await t.post(`/deposit-addresses/${plain.body.id}/simulate/freeze`), 200);
    expectStatus(await t.post(`/deposit-addresses/${plain.body.id}/simulate/freeze`), 422);
    expectStatus(await t.post(`/deposit-addresses/${plain.body.id}/simulate/unfreeze`), 200);
    expectStatus(await t.post(`/deposit-addresses/${plain.body.id}/simulate/close`), 200);
    expectStatus(await t.post(`/deposit-addresses/${plain.body.id}/simulate/unfreeze`), 422);
    conforms();
  });

  it('virtual accounts', async () => {
    const t = await tenant('conformance-virtual-accounts');
    const customerId = await t.customer();
    const owner = { kind: 'customer', customerId };
    const bank = await t.account('/external-accounts', {
      owner,
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    const external = await t.account('/external-accounts', {
      owner,
      type: 'walletExternal',
      walletExternal: { address: EXTERNAL_WALLET, network: 'meridianchain' },
    });
    const wallet = await t.wallet(customerId);
    const counterparty = await t.post('/counterparties', {
      customerId,
      entityType: 'individual',
      firstName: 'Grace',
      lastName: 'Hopper',
    });
    expectStatus(counterparty, 201);
    const theirs = await t.account('/external-accounts', {
      owner: { kind: 'counterparty', counterpartyId: counterparty.body.id },
      type: 'bankUs',
      bankUs: { accountNumber: '223456789012', routingNumber: '021000021' },
    });
    const base = { customerId, source: { asset: 'usd', network: 'wire' }, accountHolder: 'customer', type: 'bankUs' };
    const status = async (id: string, wanted: string) =>
      eventually(
        async () => ((await t.get(`/virtual-accounts/${id}`)).body.status === wanted ? true : undefined),
        20_000,
      );
    // Every optional field set (bankDetails null while pending), then none; each kind of destination.
    const full = await t.post('/virtual-accounts', {
      ...base,
      destination: {
        type: 'bankUs',
        externalAccountId: theirs.id,
        payout: { rail: 'ach', secCode: 'PPD', companyDiscretionaryData: 'REF 1' },
      },
      returnDestination: { externalAccountId: bank.id },
      returnPayout: { rail: 'wire' },
      sponsorGas: true,
      label: 'Full',
      metadata: { ref: '1' },
    });
    expectStatus(full, 201);
    const plain = await t.post('/virtual-accounts', {
      ...base,
      destination: { type: 'walletExternal', externalAccountId: external.id },
    });
    expectStatus(plain, 201);
    const custodial = await t.post('/virtual-accounts', {
      ...base,
      destination: { type: 'walletOms', walletId: wallet.id },
      label: 'CloseUnavailable',
    });
    expectStatus(custodial, 201);
    expectStatus(
      await t.post('/virtual-accounts', {
        ...base,
        destination: { type: 'bankUs', externalAccountId: bank.id, payout: { rail: 'swift' } },
      }),
      422,
    );
    expectStatus(
      await t.post(`/virtual-accounts/${plain.body.id}/simulate/inbound-transfer`, { amount: '10.00' }),
      422,
    );
    await status(full.body.id, 'active');
    await status(plain.body.id, 'active');
    await status(custodial.body.id, 'active');
    expectStatus(await t.get('/virtual-accounts'), 200);
    expectStatus(await t.get(`/virtual-accounts?customerId=${customerId}&limit=2`), 200);
    expectStatus(await t.get(`/virtual-accounts/${full.body.id}`), 200);
    expectStatus(await t.get('/virtual-accounts/va_01h455vb4pex5vsknk084sn02q'), 404);
    expectStatus(
      await t.patch(`/virtual-accounts/${full.body.id}`, {
        label: null,
        returnDestination: null,
        metadata: { ref: null },
      }),
      200,
    );
    expectStatus(
      await t.patch(`/virtual-accounts/${plain.body.id}`, {
        label: 'Plain',
        returnDestination: { externalAccountId: bank.id },
        returnPayout: { rail: 'ach' },
      }),
      200,
    );
    expectStatus(await t.post(`/virtual-accounts/${plain.body.id}/simulate/freeze`), 200);
    expectStatus(await t.post(`/virtual-accounts/${plain.body.id}/simulate/freeze`), 422);
    expectStatus(await t.post(`/virtual-accounts/${plain.body.id}/simulate/unfreeze`), 200);
    expectStatus(await t.post(`/virtual-accounts/${plain.body.id}/simulate/close`), 200);
    expectStatus(await t.post(`/virtual-accounts/${plain.body.id}/simulate/unfreeze`), 422);
    expectStatus(
      await t.post(`/virtual-accounts/${full.body.id}/simulate/inbound-transfer`, {
        amount: '10.00',
        rail: 'wire',
        senderName: 'Acme',
      }),
      201,
    );
    expectStatus(
      await t.post(`/virtual-accounts/${full.body.id}/simulate/inbound-transfer`, { amount: '10.001' }),
      400,
    );
    // The delete: the bank cannot close now (CloseUnavailable, 503), accepted (202: deleting, then
    // deleted); a pending account cannot be deleted (422).
    expectStatus(await t.del(`/virtual-accounts/${custodial.body.id}`), 503);
    expectStatus(await t.del(`/virtual-accounts/${plain.body.id}`), 202);
    await status(plain.body.id, 'deleted');
    expectStatus(await t.get(`/virtual-accounts/${plain.body.id}`), 200);
    const pending = await t.post('/virtual-accounts', {
      ...base,
      destination: { type: 'walletOms', walletId: wallet.id },
      label: 'ProvisioningSlow',
    });
    expectStatus(await t.del(`/virtual-accounts/${pending.body.id}`), 422);
    conforms();
  });

  it('every route of the document was exercised, and every one that can succeed did', () => {
    expect(conformance.unexercised()).toEqual([]);
    expect(conformance.withoutSuccess().sort()).toEqual(Object.keys(NO_SUCCESS_POSSIBLE).sort());
    conforms();
  });
});
