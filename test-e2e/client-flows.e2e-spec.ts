// Issue 21, items 1, 2 and 4: the client package against the running
// platform, in both modes, so that it is tested against the real server and
// not against a stand-in. The document the platform serves is the one the
// package was generated from; one flow per resource runs through the package
// alone: a payout to a bank account completed and its webhook verified by
// webhooks.verify, a cash-in, external accounts and counterparties, webhook
// endpoints and their deliveries, a deposit address, a virtual account; and the
// README's client quick start runs as written. Everything happens in one
// project of the file's own, through one client.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as Client from '@meridian/money-movement';
import {
  ApiError,
  eventTypeOf,
  MoneyMovement,
  waitFor,
  WebhookVerificationError,
  type Customer,
  type ExternalAccount,
  type Wallet,
} from '@meridian/money-movement';
import { eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver, type ReceivedDelivery } from './support/webhook-receiver';

const ROOT = join(__dirname, '..');
const EXTERNAL_WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
/** Long enough for a loaded machine running nine processes; the waits end as soon as the condition holds. */
const WITHIN = { timeoutMs: 30_000, intervalMs: 100 };

describe('the client package against the platform', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let mm: MoneyMovement;
  let credentials: { apiKey: string; apiSecret: string };
  let signingKey: string;
  let customer: Customer;
  let wallet: Wallet;
  let bank: ExternalAccount;
  const HOOK = '/client-flows';
  const advance = (seconds: number) => mm.sandbox.clock.advance({ seconds });
  const deliveries = (match: (delivery: ReceivedDelivery) => boolean) =>
    eventually(async () => receiver.at(HOOK).find(match), 30_000);

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
    const project = await platform.newProject('client flows');
    credentials = { apiKey: project.apiKey, apiSecret: project.apiSecret };
    expect(
      (
        await platform.admin('PATCH', `/projects/${project.projectId}`, {
          body: { features: { depositAddresses: true } },
        })
      ).status,
    ).toBe(200);
    mm = new MoneyMovement({ ...credentials, baseUrl: `${platform.url}/v0.13`, fetch: platform.fetch });
    const endpoint = await mm.webhooks.create({ url: receiver.url(HOOK), subscriptions: ['*'] });
    signingKey = endpoint.signingKey;
    const created = await mm.customers.create({
      type: 'individual',
      firstName: 'Ada',
      lastName: 'Lovelace',
      endorsements: ['basic', 'cryptoCustody', 'usd'],
    });
    customer = await waitFor(
      () => mm.customers.get(created.id),
      (c) => c.endorsements.every((e) => e.status === 'active'),
      WITHIN,
    );
    wallet = await mm.wallets.create(customer.id, { asset: 'usdc', network: 'meridianchain' });
    await mm.sandbox.wallets.fund(wallet.id, { amount: '500.00' });
    const registered = await mm.externalAccounts.create({
      owner: { kind: 'customer', customerId: customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    bank = await waitFor(
      () => mm.externalAccounts.get(registered.id),
      (a) => a.status === 'active',
      WITHIN,
    );
  }, START_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  it('was generated from the OpenAPI document this platform serves', async () => {
    const served = await platform.request('GET', '/openapi.json');
    expect(served.status).toBe(200);
    const committed = JSON.parse(readFileSync(join(ROOT, 'packages', 'client', 'openapi.json'), 'utf8'));
    // What the types are made of; the order of keys is not compared (the gateway merges the services' documents).
    const generatedFrom = (d: Record<string, any>) => ({
      info: d.info,
      paths: d.paths,
      schemas: d.components.schemas,
      webhooks: d.webhooks,
    });
    expect(generatedFrom(served.body)).toEqual(generatedFrom(committed));
    expect(served.body.info.version).toBe(Client.CONTRACT_LABEL);
  });

  it('pays out to a bank account until completed, and verifies the webhook that says so', async () => {
    const quote = await mm.quotes.create({
      customerId: customer.id,
      source: { type: 'walletOms', details: { id: wallet.id }, amount: '25.00' },
      destination: { type: 'bankUs', details: { id: bank.id, network: 'ach', accountHolder: 'customer' } },
    });
    expect(quote).toMatchObject({
      status: 'open',
      pricing: { source: { amountGross: '25.00' }, destination: { amountNet: '25.00' } },
    });
    const transaction = await mm.transactions.create({ quoteId: quote.id });
    expect(transaction).toMatchObject({ status: 'processing', precursor: { type: 'quote', id: quote.id } });
    // A second call is a second operation: the quote was accepted once (issue 42, item 4).
    expect(await mm.transactions.create({ quoteId: quote.id }).catch((e: ApiError) => [e.status, e.error])).toEqual([
      409,
      'QuoteAlreadyAccepted',
    ]);
    expect((await mm.wallets.balance(wallet.id)).data.balance).toBe('475.00');
    // ACH settles a minute later in the sandbox.
    await advance(60);
    const completed = await waitFor(
      () => mm.transactions.get(transaction.id),
      (t) => t.status === 'completed',
      WITHIN,
    );
    expect(completed.legs.every((leg) => leg.status === 'settled')).toBe(true);
    const listed: string[] = [];
    for await (const t of mm.transactions.list({ customerId: customer.id, status: 'completed', limit: 1 }))
      listed.push(t.id);
    expect(listed).toContain(transaction.id);

    const delivery = await deliveries(
      (d) => d.body?.data?.id === transaction.id && d.body?.data?.status === 'completed',
    );
    const event = mm.webhooks.verify(delivery.rawBody, delivery.headers['webhook-signature'], signingKey);
    expect(eventTypeOf(event)).toBe('transaction.statusChanged');
    if (!('eventType' in event) || event.eventType !== 'transaction.statusChanged')
      throw new Error(`not a transaction event: ${delivery.rawBody}`);
    expect({ id: event.data.id, status: event.data.status, previousStatus: event.previousStatus }).toEqual({
      id: transaction.id,
      status: 'completed',
      previousStatus: 'processing',
    });
    const refusal = (() => {
      try {
        mm.webhooks.verify(
          delivery.rawBody.replace('"completed"', '"failed"'),
          delivery.headers['webhook-signature'],
          signingKey,
        );
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(WebhookVerificationError);
    expect((refusal as WebhookVerificationError).reason).toBe('badSignature');
  });

  it("lists a transaction's events through the Events API and sends one to an endpoint again", async () => {
    const [transaction] = await mm.transactions
      .list({ customerId: customer.id, status: 'completed', limit: 1 })
      .toArray(1);
    const events = await waitFor(
      () => mm.events.list({ resourceId: transaction.id }).toArray(),
      (list) => list.some((e) => e.data.status === 'completed'),
      WITHIN,
    );
    const completed = events.find((e) => e.data.status === 'completed')!;
    expect(completed).toMatchObject({
      object: 'event',
      eventType: 'transaction.statusChanged',
      data: { id: transaction.id },
    });
    expect(await mm.events.get(completed.id)).toEqual(completed);
    const endpoint = (await mm.webhooks.list().toArray()).find((w) => w.url === receiver.url(HOOK))!;
    const resent = await mm.webhooks.deliveries.resend(endpoint.id, { eventIds: [completed.id] });
    expect(resent.deliveries).toHaveLength(1);
    const again = await deliveries((d) => d.body?.id === resent.deliveries[0].id);
    expect(mm.webhooks.verify(again.rawBody, again.headers['webhook-signature'], signingKey)).toMatchObject({
      eventId: completed.id,
      data: { id: transaction.id, status: 'completed' },
    });
  });

  it("throws the API's refusals as ApiError, with the request id of the response", async () => {
    const unknown = 'cst_01h455vb4pex5vsknk084sn02q';
    const error = await mm.customers.get(unknown).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const { status, code, msg, cause, requestId } = error as ApiError;
    expect({ status, error: (error as ApiError).error, code, msg }).toEqual({
      status: 404,
      error: 'CustomerNotFound',
      code: 10001,
      msg: 'customer not found',
    });
    expect(cause).toEqual(expect.any(String));
    expect(requestId).toEqual(expect.any(String));
    // The id the platform logged the request under.
    await eventually(async () => (platform.logs().includes(requestId!) ? true : undefined));
  });

  it('runs a cash-in: a code at a nearby location, refreshed, deposited, and its transaction', async () => {
    const [location] = (await mm.cashLocations.list({ flow: 'cash_in', limit: 1 }).firstPage()).data;
    const cashIn = await mm.cashIns.create({
      customerId: customer.id,
      source: { asset: 'usd', indicatedAmount: '40.00' },
      destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: wallet.id } },
      cash: { locationId: location.locId, locationReference: location.cashLocationReference },
    });
    expect(cashIn.status).toBe('pending');
    const refreshed = await mm.cashIns.refresh(cashIn.id);
    const code = refreshed.depositInstructions?.code;
    expect(code).toEqual(expect.any(String));
    const completed = await mm.sandbox.cashIns.deposit(cashIn.id, { amount: '40.00', code: code! });
    expect(completed).toMatchObject({ id: cashIn.id, status: 'completed' });
    const transaction = await waitFor(
      () => mm.transactions.get(completed.transactionId!).catch(() => undefined),
      (t) => t !== undefined,
      WITHIN,
    );
    expect(transaction).toMatchObject({
      sourceToDestination: 'cashToCrypto',
      precursor: { type: 'cashIn', id: cashIn.id },
    });
    expect((await mm.cashIns.list().toArray()).map((c) => c.id)).toContain(cashIn.id);
  });

  it('registers, lists, changes and deletes external accounts and counterparties', async () => {
    const counterparty = await mm.counterparties.create({
      customerId: customer.id,
      entityType: 'business',
      businessName: 'Acme Ltd',
    });
    const theirs = await mm.externalAccounts.create({
      owner: { kind: 'counterparty', counterpartyId: counterparty.id },
      type: 'walletExternal',
      walletExternal: { address: EXTERNAL_WALLET, network: 'meridianchain' },
    });
    await waitFor(
      () => mm.externalAccounts.get(theirs.id),
      (a) => a.status === 'active',
      WITHIN,
    );
    const ids: string[] = [];
    for await (const account of mm.externalAccounts.list({ customerId: customer.id, limit: 1 })) ids.push(account.id);
    expect(ids).toEqual(expect.arrayContaining([bank.id, theirs.id]));
    expect((await mm.externalAccounts.update(theirs.id, { label: 'Acme treasury' })).label).toBe('Acme treasury');
    expect((await mm.counterparties.update(counterparty.id, { businessName: 'Acme Inc' })).name).toBe('Acme Inc');
    expect((await mm.counterparties.list({ customerId: customer.id }).toArray()).map((c) => c.id)).toContain(
      counterparty.id,
    );
    // Still owning an active account, the counterparty cannot go: a refusal, not retried.
    expect(await mm.counterparties.delete(counterparty.id).catch((e: ApiError) => [e.status, e.error])).toEqual([
      409,
      'CounterpartyHasActiveExternalAccounts',
    ]);
    await mm.externalAccounts.delete(theirs.id);
    expect(await mm.externalAccounts.get(theirs.id).catch((e: ApiError) => e.status)).toBe(404);
    await mm.counterparties.delete(counterparty.id);
    expect(await mm.counterparties.get(counterparty.id).catch((e: ApiError) => e.status)).toBe(404);
  });

  it('manages a webhook endpoint: test deliveries, their history and retries, a key rotation, deletion', async () => {
    const path = '/client-flows-managed';
    const endpoint = await mm.webhooks.create({
      url: receiver.url(path),
      subscriptions: ['wallet.provisioned'],
      description: 'managed',
    });
    expect((await mm.webhooks.list().toArray()).map((w) => w.id)).toContain(endpoint.id);
    expect(await mm.webhooks.update(endpoint.id, { description: 'managed by the client' })).toMatchObject({
      id: endpoint.id,
      description: 'managed by the client',
    });
    const test = await mm.webhooks.test(endpoint.id);
    const first = await eventually(async () => receiver.at(path).find((d) => d.body?.id === test.id), 30_000);
    expect(
      eventTypeOf(mm.webhooks.verify(first.rawBody, first.headers['webhook-signature'], endpoint.signingKey)),
    ).toBe('webhook.test');
    const delivered = await waitFor(
      () => mm.webhooks.deliveries.get(endpoint.id, test.id),
      (d) => d.status === 'delivered',
      WITHIN,
    );
    expect(delivered.attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 200 })]);
    expect((await mm.webhooks.deliveries.list(endpoint.id, { test: 'true' }).toArray()).map((d) => d.id)).toEqual([
      test.id,
    ]);
    expect(await mm.webhooks.deliveries.retry(endpoint.id, { deliveryIds: [test.id] })).toEqual({
      requeued: 1,
      deliveryIds: [test.id],
    });
    await eventually(
      async () => (receiver.at(path).filter((d) => d.body?.id === test.id).length >= 2 ? true : undefined),
      30_000,
    );

    expect((await mm.webhooks.disable(endpoint.id)).status).toBe('disabled');
    expect(await mm.webhooks.test(endpoint.id).catch((e: ApiError) => e.error)).toBe('WebhookNotEnabled');
    expect((await mm.webhooks.enable(endpoint.id)).status).toBe('enabled');
    const rotated = await mm.webhooks.rotateKey(endpoint.id);
    expect(rotated.signingKey).not.toBe(endpoint.signingKey);
    // A second test is another delivery, not a replay of the first.
    const second = await mm.webhooks.test(endpoint.id);
    expect(second.id).not.toBe(test.id);
    const latest = await eventually(async () => receiver.at(path).find((d) => d.body?.id === second.id), 30_000);
    expect(mm.webhooks.verify(latest.rawBody, latest.headers['webhook-signature'], rotated.signingKey)).toMatchObject({
      id: second.id,
      event: 'webhook.test',
    });
    // For a day after the rotation the old key signs too (docs/webhooks.md): a receiver still holding it verifies.
    expect(mm.webhooks.verify(latest.rawBody, latest.headers['webhook-signature'], endpoint.signingKey)).toMatchObject({
      id: second.id,
    });
    expect(() => mm.webhooks.verify(latest.rawBody, latest.headers['webhook-signature'], 'whsec_another')).toThrow(
      WebhookVerificationError,
    );

    await mm.webhooks.delete(endpoint.id);
    expect(await mm.webhooks.get(endpoint.id).catch((e: ApiError) => e.status)).toBe(404);
  });

  it('opens a deposit address and pays a deposit out to the bank account', async () => {
    const address = await mm.depositAddresses.create({
      customerId: customer.id,
      expectedSourceAsset: 'usdc',
      expectedSourceNetwork: 'meridianchain',
      destination: { externalAccountId: bank.id },
      payout: { rail: 'ach' },
    });
    expect(address).toMatchObject({ status: 'pending', depositInstructions: null });
    const active = await waitFor(
      () => mm.depositAddresses.get(address.id),
      (a) => a.status === 'active',
      WITHIN,
    );
    expect(active.depositInstructions).toMatchObject({
      asset: 'usdc',
      network: 'meridianchain',
      address: expect.any(String),
    });
    expect((await mm.depositAddresses.update(address.id, { label: 'payroll' })).label).toBe('payroll');
    const deposit = await mm.sandbox.depositAddresses.cryptoDeposit(address.id, { amount: '12.00' });
    const transaction = await mm.transactions.get(deposit.transactionId!);
    expect(transaction).toMatchObject({
      sourceToDestination: 'cryptoToFiatAccount',
      precursor: { type: 'depositAddress', id: address.id },
    });
    expect((await mm.depositAddresses.list({ customerId: customer.id }).toArray()).map((a) => a.id)).toEqual([
      address.id,
    ]);
  });

  it('opens a virtual account and delivers an inbound transfer to the wallet', async () => {
    const account = await mm.virtualAccounts.create({
      customerId: customer.id,
      source: { asset: 'usd', network: 'ach' },
      destination: { type: 'walletOms', walletId: wallet.id },
      accountHolder: 'customer',
      type: 'bankUs',
    });
    expect(account).toMatchObject({ status: 'pending', bankDetails: null });
    // The bank answers on the project's clock: move it on while waiting.
    const active = await waitFor(
      async () => {
        const read = await mm.virtualAccounts.get(account.id);
        if (read.status !== 'active') await advance(1);
        return read;
      },
      (a) => a.status === 'active',
      WITHIN,
    );
    expect(active.bankDetails).toMatchObject({ routingNumber: expect.any(String) });
    expect((await mm.virtualAccounts.update(account.id, { label: 'salary' })).label).toBe('salary');
    const transfer = await mm.sandbox.virtualAccounts.inboundTransfer(account.id, { amount: '30.00' });
    expect(transfer).toMatchObject({ object: 'virtualAccountDeposit', virtualAccountId: account.id, amount: '30.00' });
    const transaction = await mm.transactions.get(transfer.transactionId);
    expect(transaction).toMatchObject({
      sourceToDestination: 'fiatAccountToCrypto',
      precursor: { type: 'virtualAccount', id: account.id },
    });
    expect((await mm.virtualAccounts.list({ customerId: customer.id }).toArray()).map((a) => a.id)).toEqual([
      account.id,
    ]);
  });

  describe('Idempotency-Keys (issue 42, item 4)', () => {
    const john = () => ({
      customerId: customer.id,
      entityType: 'individual' as const,
      firstName: 'John',
      lastName: 'Smith',
    });
    const johnSmiths = async (customerId: string) =>
      (await mm.counterparties.list({ customerId }).toArray()).filter((c) => c.name === 'John Smith');

    it('makes two resources of two creates with the same body: customers, wallets, counterparties, external accounts, webhooks, deposit addresses, virtual accounts', async () => {
      const twice = async <T extends { id: string }>(create: () => Promise<T>): Promise<[T, T]> => [
        await create(),
        await create(),
      ];
      const [ada1, ada2] = await twice(() =>
        mm.customers.create({ type: 'individual', firstName: 'Ada', lastName: 'Byron' }),
      );
      const [w1, w2] = await twice(() => mm.wallets.create(customer.id, { asset: 'usdc', network: 'ethereum' }));
      const [c1, c2] = await twice(() => mm.counterparties.create(john()));
      const [e1, e2] = await twice(() =>
        mm.externalAccounts.create({
          owner: { kind: 'customer', customerId: customer.id },
          type: 'bankUs',
          bankUs: { accountNumber: '99887766554', routingNumber: '021000021' },
        }),
      );
      const [h1, h2] = await twice(() =>
        mm.webhooks.create({ url: receiver.url('/client-flows-twice'), subscriptions: ['wallet.provisioned'] }),
      );
      const [d1, d2] = await twice(() =>
        mm.depositAddresses.create({
          customerId: customer.id,
          expectedSourceAsset: 'usdc',
          expectedSourceNetwork: 'meridianchain',
          destination: { externalAccountId: bank.id },
          payout: { rail: 'ach' },
        }),
      );
      const [v1, v2] = await twice(() =>
        mm.virtualAccounts.create({
          customerId: customer.id,
          source: { asset: 'usd', network: 'ach' },
          destination: { type: 'walletOms', walletId: wallet.id },
          accountHolder: 'customer',
          type: 'bankUs',
        }),
      );
      for (const [a, b] of [
        [ada1, ada2],
        [w1, w2],
        [c1, c2],
        [e1, e2],
        [h1, h2],
        [d1, d2],
        [v1, v2],
      ] as Array<[{ id: string }, { id: string }]>)
        expect(a.id).not.toBe(b.id);
      // The second endpoint has a signing key of its own, not the first's.
      expect(h2.signingKey).not.toBe(h1.signingKey);
      // And each is there to read.
      expect((await mm.counterparties.list({ customerId: customer.id }).toArray()).map((c) => c.id)).toEqual(
        expect.arrayContaining([c1.id, c2.id]),
      );
      expect((await mm.wallets.list({ customerId: customer.id }).toArray()).map((w) => w.id)).toEqual(
        expect.arrayContaining([w1.id, w2.id]),
      );
      await mm.webhooks.delete(h1.id);
      await mm.webhooks.delete(h2.id);
    });

    it('makes ONE resource of one call retried after its connection dropped or a 503, once the API had made it', async () => {
      const someone = await mm.customers.create({ type: 'individual', firstName: 'Grace', lastName: 'Hopper' });
      // Between the client and the API, something loses the first answer to each POST /counterparties after the
      // API made the counterparty: once the connection, once a 503 (a proxy timing out).
      const lost: Array<'connection' | 'status'> = ['connection', 'status'];
      const sent: string[] = [];
      const lossy = new MoneyMovement({
        ...credentials,
        baseUrl: `${platform.url}/v0.13`,
        fetch: async (request) => {
          const response = await platform.fetch(request);
          if (request.method !== 'POST' || !request.url.endsWith('/counterparties')) return response;
          sent.push(request.headers.get('idempotency-key')!);
          const loss = sent.length % 2 === 1 ? lost.shift() : undefined;
          if (loss === 'connection') throw new TypeError('fetch failed: other side closed');
          if (loss === 'status') {
            return new Response(
              JSON.stringify({
                error: 'ServiceUnavailable',
                code: 1503,
                msg: 'service unavailable',
                cause: 'the upstream timed out',
                status: 503,
              }),
              {
                status: 503,
                headers: { 'content-type': 'application/json', 'retry-after': '0' },
              },
            );
          }
          return response;
        },
      });
      const first = await lossy.counterparties.create({ ...john(), customerId: someone.id });
      expect(await johnSmiths(someone.id)).toEqual([expect.objectContaining({ id: first.id })]);
      const second = await lossy.counterparties.create({ ...john(), customerId: someone.id });
      // Two calls, each sent twice with its own key: two counterparties, not four, and not one.
      expect(sent).toHaveLength(4);
      expect([sent[0] === sent[1], sent[2] === sent[3], sent[0] === sent[2]]).toEqual([true, true, false]);
      expect(second.id).not.toBe(first.id);
      expect((await johnSmiths(someone.id)).map((c) => c.id).sort()).toEqual([first.id, second.id].sort());
    });

    it('finds what the first run made when a re-run passes the idempotencyKey of its own operation', async () => {
      // A partner's job that signs up its user 42 and pays a welcome bonus in: run twice (after a crash, say).
      const bonusWallet = await mm.wallets.create(customer.id, { asset: 'usdc', network: 'meridianchain' });
      const job = async () => {
        const run = new MoneyMovement({ ...credentials, baseUrl: `${platform.url}/v0.13`, fetch: platform.fetch });
        const signedUp = await run.customers.create(
          { type: 'individual', firstName: 'Mary', lastName: 'Jackson' },
          { idempotencyKey: 'signup-user-42' },
        );
        const funded = await run.sandbox.wallets.fund(
          bonusWallet.id,
          { amount: '1.00' },
          { idempotencyKey: 'welcome-bonus-user-42' },
        );
        return { customerId: signedUp.id, funded };
      };
      const first = await job();
      const again = await job();
      expect(again.customerId).toBe(first.customerId);
      expect(again.funded).toEqual(first.funded);
      expect(
        (await mm.customers.list().toArray())
          .filter((c) => c.firstName === 'Mary' && c.lastName === 'Jackson')
          .map((c) => c.id),
      ).toEqual([first.customerId]);
      // Paid in once.
      expect((await mm.wallets.balance(bonusWallet.id)).data.balance).toBe('1.00');
    });
  });

  it("runs the README's client quick start as written, with the banner's three values filled in", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const project = await platform.newProject('client README quick start');
    const filled = block!
      .replace("'<the API line of the banner>'", JSON.stringify(`${platform.url}/v0.13`))
      .replace("'<the API key line>'", JSON.stringify(project.apiKey))
      .replace("'<the API secret line>'", JSON.stringify(project.apiSecret));
    expect(filled.match(/<[^>\n]*>/g) ?? []).toEqual([]);
    // Its one import, from the package; the rest runs as an async function's body with those names.
    const imported = /^import \{([^}]+)\} from '@meridian\/money-movement';\n/m.exec(filled);
    expect(imported).not.toBeNull();
    const names = imported![1].split(',').map((n) => n.trim());
    const printed: unknown[] = [];
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<void>;
    const run = new AsyncFunction(...names, 'console', filled.replace(imported![0], ''));
    await run(...names.map((n) => (Client as Record<string, unknown>)[n]), {
      log: (...args: unknown[]) => printed.push(...args),
    });
    expect(printed).toEqual([
      expect.objectContaining({
        object: 'transaction',
        status: 'completed',
        sourceToDestination: 'cryptoToFiatAccount',
      }),
    ]);
  }, 60_000);
});
