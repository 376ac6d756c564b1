// Spec: Events / Envelope (`data`: the full resource at the time of the event; `changedFields` on
// updates) and Catalog; ADR 0018 (`data` is exactly what GET answers then); issue 26 item 2 and
// its "done means": every delivered event's `data` is compared with the resource as the API showed
// it right after the change that produced the event (the change's own response, or a GET polled
// until the change was visible), for every resource whose changes are announced, so a field
// dropped or stale on the wire cannot pass. Over HTTP, both modes.
import { isDeepStrictEqual } from 'node:util';
import { PARTNER_EVENT_DEFINITIONS, STATUS_CHANGED_EVENTS } from '@mm/contracts';
import { newTenant } from './support/tenant';
import { eventually, START_TIMEOUT_MS, TestPlatform, type Response } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

type Resource = Record<string, unknown> & { id: string; object: string };
type Envelope = {
  id: string;
  event?: string;
  eventType?: string;
  sequence?: number;
  changedFields?: string[];
  data: Resource;
} & Record<string, unknown>;

const BILLING = { addressLine1: '1 Market St', city: 'San Francisco', state: 'CA', country: 'US', zipCode: '94105' };
const LA_BIGMART = { locationId: 'loc_01m846c3h4e06945jf6mfht9tc', locationReference: 'BIGMART-1001' };
const ENVELOPE_FIELDS = [
  'id',
  'event',
  'eventType',
  'eventId',
  'previousStatus',
  'sequence',
  'createdAt',
  'occurredAt',
  'changedFields',
  'data',
];

describe('every delivered event carries its resource as the API showed it after the change', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  /** Every resource body the API answered (responses to changes, and reads), by resource id, in order. */
  const shown = new Map<string, Resource[]>();
  /** Resources deleted in the test: a GET answers 404, so their last event is compared with their last read. */
  const deleted = new Set<string>();
  /** This file's endpoints and the paths they deliver to. */
  const endpoints: Array<{ id: string; path: string }> = [];

  const keep = (res: Response) => {
    const body = res.body as Resource | undefined;
    if (
      res.status < 300 &&
      body &&
      typeof body === 'object' &&
      typeof body.id === 'string' &&
      typeof body.object === 'string'
    ) {
      const list = shown.get(body.id) ?? [];
      list.push(JSON.parse(JSON.stringify(body)) as Resource);
      shown.set(body.id, list);
    }
    return res;
  };

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own (its own clock) whose endpoint hears `subscriptions`; every answer, its set-up's included, is kept. */
  async function tenant(name: string, subscriptions: string[]) {
    const base = await newTenant(platform, {
      name,
      receiver,
      send: async (method, path, options) => keep(await platform.request(method, path, options)),
    });
    const { get } = base;
    const created = async (res: Promise<Response>) => {
      const answered = await res;
      expect(answered.status).toBeLessThan(300);
      return answered.body as Resource;
    };
    /** Reads until the change is visible (each read kept): what a GET shows right after it. */
    const until = (path: string, visible: (body: Record<string, any>) => boolean) =>
      eventually(async () => {
        const res = await get(path);
        return res.status === 200 && visible(res.body) ? (res.body as Resource) : undefined;
      }, 30_000);
    const hook = await base.endpoint(`/${name}`, subscriptions);
    endpoints.push({ id: hook.id, path: `/${name}` });
    return { ...base, created, until, hook };
  }

  it('announces customers, wallets, external accounts, counterparties, transactions, deposit addresses, virtual accounts and endpoints with their GET shape', async () => {
    const t = await tenant('shapes', ['*']);
    expect(
      (await platform.admin('PATCH', `/projects/${t.projectId}`, { body: { features: { depositAddresses: true } } }))
        .status,
    ).toBe(200);

    // A customer: each endorsement requested (the answer shows it pending), then approved (a read shows it active).
    const customer = await t.created(
      t.post('/customers', { type: 'individual', firstName: 'Katherine', lastName: 'Johnson' }),
    );
    for (const name of ['basic', 'cryptoCustody', 'usd']) {
      const requested = await t.post(`/customers/${customer.id}/endorsements`, { name });
      expect(requested.body.endorsements).toContainEqual({ name, status: 'pending' });
      await t.until(`/customers/${customer.id}`, (c) =>
        c.endorsements.some((e: { name: string; status: string }) => e.name === name && e.status === 'active'),
      );
    }

    // A custodial wallet, funded (no event of its own).
    const wallet = await t.created(
      t.post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' }),
    );
    await t.get(`/wallets/${wallet.id}`);
    expect((await t.post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '300' })).status).toBe(200);

    // External accounts: registered pending, provisioned active, changed, invalidated, deleted.
    const owner = { kind: 'customer', customerId: customer.id };
    const register = async (path: string, body: Record<string, unknown>) => {
      const account = await t.created(t.post(path, body));
      return t.until(`/external-accounts/${account.id}`, (a) => a.status === 'active');
    };
    const card = await register('/external-accounts/cards', {
      owner,
      card: { cardNumber: '5555555555554444', expiryMonth: 12, expiryYear: 2031, cvc: '123', billingAddress: BILLING },
    });
    const payroll = await register('/external-accounts', {
      owner,
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    const closing = await register('/external-accounts', {
      owner,
      type: 'bankUs',
      bankUs: { accountNumber: '987654321098', routingNumber: '021000021' },
    });
    await t.patch(`/external-accounts/${closing.id}`, { label: 'Closing', metadata: { team: 'ops' } });
    expect((await t.post(`/external-accounts/${closing.id}/simulate/invalidate`, {})).body.status).toBe('invalid');
    expect((await t.call('DELETE', `/external-accounts/${closing.id}`)).status).toBe(204);
    deleted.add(closing.id);

    // A counterparty, created then deleted.
    const counterparty = await t.created(
      t.post('/counterparties', { customerId: customer.id, entityType: 'business', businessName: 'Acme Ltd' }),
    );
    await t.get(`/counterparties/${counterparty.id}`);
    expect((await t.call('DELETE', `/counterparties/${counterparty.id}`)).status).toBe(204);
    deleted.add(counterparty.id);

    // Transactions: a card buy (the charge, then the USDC out) and a card sell, step by step on the project clock.
    const quote = async (body: Record<string, unknown>) =>
      (await t.created(t.post('/quotes', { customerId: customer.id, ...body }))).id;
    const buy = await t.created(
      t.post('/transactions', {
        quoteId: await quote({
          source: { type: 'card', details: { externalAccountId: card.id }, amount: '40.00' },
          destination: { type: 'walletOms', details: { id: wallet.id } },
        }),
      }),
    );
    const sell = await t.created(
      t.post('/transactions', {
        quoteId: await quote({
          source: { type: 'walletOms', details: { id: wallet.id }, amount: '15.00' },
          destination: { type: 'card', details: { externalAccountId: card.id } },
        }),
      }),
    );
    await t.advance(5);
    await t.until(`/transactions/${buy.id}`, (x) => x.subStatus === 'processing.fundsPulled' && x.legs.length === 2);
    await t.until(`/transactions/${sell.id}`, (x) => x.status === 'completed');
    await t.advance(5);
    await t.until(`/transactions/${buy.id}`, (x) => x.status === 'completed');

    // A deposit address: created, provisioned, changed, frozen and unfrozen.
    const address = await t.created(
      t.post('/deposit-addresses', {
        customerId: customer.id,
        expectedSourceAsset: 'usdc',
        expectedSourceNetwork: 'meridianchain',
        destination: { externalAccountId: payroll.id },
        payout: { rail: 'ach' },
      }),
    );
    await t.advance(5);
    await t.until(`/deposit-addresses/${address.id}`, (a) => a.status === 'active');
    await t.patch(`/deposit-addresses/${address.id}`, { label: 'Payroll inlet', metadata: { team: 'ops' } });
    expect((await t.post(`/deposit-addresses/${address.id}/simulate/freeze`)).body.status).toBe('frozen');
    expect((await t.post(`/deposit-addresses/${address.id}/simulate/unfreeze`)).body.status).toBe('active');

    // A virtual account: created, provisioned, changed, frozen and unfrozen.
    const account = await t.created(
      t.post('/virtual-accounts', {
        customerId: customer.id,
        source: { asset: 'usd', network: 'ach' },
        destination: { type: 'walletOms', walletId: wallet.id },
        accountHolder: 'customer',
        type: 'bankUs',
      }),
    );
    await t.advance(5);
    await t.until(`/virtual-accounts/${account.id}`, (a) => a.status === 'active');
    await t.patch(`/virtual-accounts/${account.id}`, { label: 'Salary', metadata: { team: 'ops' } });
    expect((await t.post(`/virtual-accounts/${account.id}/simulate/freeze`)).body.status).toBe('frozen');
    expect((await t.post(`/virtual-accounts/${account.id}/simulate/unfreeze`)).body.status).toBe('active');

    // The endpoint itself: webhook.test carries it as GET shows it.
    expect((await t.post(`/webhooks/${t.hook.id}/test`)).status).toBe(201);
    await t.get(`/webhooks/${t.hook.id}`);
  }, 180_000);

  it('announces cash-ins created, refreshed, completed and expired with their GET shape', async () => {
    const t = await tenant('cash-shapes', ['cashIn.created', 'cashIn.updated', 'cashIn.completed', 'cashIn.expired']);
    const ada = (await platform.endorsedCustomer(t.token)) as { id: string };
    const wallet = await t.created(t.post(`/customers/${ada.id}/wallets`, { asset: 'usdc', network: 'meridianchain' }));
    const cashIn = (indicatedAmount: string) =>
      t.created(
        t.post('/cash-ins', {
          customerId: ada.id,
          source: { asset: 'usd', indicatedAmount },
          destination: { asset: 'usdc', network: 'meridianchain', wallet: { id: wallet.id } },
          cash: LA_BIGMART,
        }),
      );
    const deposited = await cashIn('100.00');
    await t.post(`/cash-ins/${deposited.id}/refresh`);
    await t.post(`/cash-ins/${deposited.id}/simulate/deposit`, { amount: '100.00' });
    await t.until(`/cash-ins/${deposited.id}`, (c) => c.status === 'completed');
    const lapsing = await cashIn('60.00');
    await t.advance(3601);
    await t.until(`/cash-ins/${lapsing.id}`, (c) => c.status === 'expired');
  }, 120_000);

  it('delivered every event with data equal to what the API showed after its change, in sequence order, and changedFields on every update', async () => {
    await platform.settle();
    const hooks = endpoints.map((e) => e.id);
    const total = await eventually(async () => {
      const [row] = await platform.db.query<{ total: number; undelivered: number }>(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE status <> 'delivered')::int AS undelivered FROM webhooks.deliveries WHERE webhook_id = ANY($1)`,
        [hooks],
      );
      const received = new Set(endpoints.flatMap((e) => receiver.at(e.path).map((d) => d.body?.id))).size;
      return row.undelivered === 0 && received >= row.total ? row.total : undefined;
    }, 60_000);
    const deliveries = [
      ...new Map(
        endpoints.flatMap((e) => receiver.at(e.path).map((d) => d.body as Envelope)).map((b) => [b.id, b]),
      ).values(),
    ];
    expect(deliveries).toHaveLength(total);

    // Every resource of the catalogue was announced in this file (quotes have no events).
    expect([...new Set(deliveries.map((d) => d.data.object))].sort()).toEqual(
      [
        'cashIn',
        'counterparty',
        'customer',
        'depositAddress',
        'externalAccount',
        'transaction',
        'virtualAccount',
        'wallet',
        'webhookEndpoint',
      ].sort(),
    );

    const problems: unknown[] = [];
    const byResource = new Map<string, Envelope[]>();
    for (const delivery of deliveries) {
      const name = (delivery.event ?? delivery.eventType)!;
      const definition = PARTNER_EVENT_DEFINITIONS.find((e) => e.name === name);
      const extra = Object.keys(delivery).filter((k) => !ENVELOPE_FIELDS.includes(k));
      if (!definition || extra.length > 0) problems.push({ name, unknownEvent: !definition, extra });
      if (STATUS_CHANGED_EVENTS.includes(name) !== (delivery.eventType !== undefined))
        problems.push({ name, naming: Object.keys(delivery) });
      // changedFields: on every update, non-empty, only fields its catalogue entry lists; on nothing else.
      const changed = delivery.changedFields;
      if (name.endsWith('.updated')) {
        if (
          !Array.isArray(changed) ||
          changed.length === 0 ||
          changed.some((f) => !definition?.changedFields?.includes(f))
        )
          problems.push({ name, changedFields: changed ?? 'missing' });
      } else if (changed !== undefined) problems.push({ name, changedFields: changed });
      if (name !== 'webhook.test')
        byResource.set(delivery.data.id, [...(byResource.get(delivery.data.id) ?? []), delivery]);
      else if (!(shown.get(delivery.data.id) ?? []).some((s) => isDeepStrictEqual(s, delivery.data)))
        problems.push({ name, data: delivery.data, shown: shown.get(delivery.data.id)?.at(-1) });
    }

    // Each resource's events, in sequence order, match what the API showed, in the order it showed it.
    for (const [id, events] of byResource) {
      const seen = shown.get(id) ?? [];
      let at = 0;
      for (const delivery of events.sort((a, b) => a.sequence! - b.sequence!)) {
        const name = (delivery.event ?? delivery.eventType)!;
        const gone = deleted.has(id) && (name === 'externalAccount.deleted' || delivery.data.status === 'deleted');
        // A deleted resource answers 404: its last event is the last read, as of the deletion.
        const expected = gone
          ? [{ ...seen.at(-1), status: delivery.data.status, updatedAt: delivery.data.updatedAt }]
          : seen.slice(at);
        const found = expected.findIndex((s) => isDeepStrictEqual(s, delivery.data));
        if (found < 0)
          problems.push({
            name,
            sequence: delivery.sequence,
            data: delivery.data,
            lastShown: expected.at(-1) ?? seen.at(-1) ?? 'never shown',
          });
        else if (!gone) at += found;
      }
    }
    expect(problems).toEqual([]);
  });
});
