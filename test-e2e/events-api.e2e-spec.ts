// Issue 21, item 3 (ADR 0034): the Events API. Every partner event of a project
// is listed (GET /events, newest first; filters type, resourceId, createdAfter,
// createdBefore) and read (GET /events/{eventId}) as its deliveries carried it,
// for the delivery retention window; POST /webhooks/{id}/deliveries {eventIds}
// sends chosen events to one endpoint again, as new deliveries with the events'
// evt_ ids, within its subscriptions. Per project; compliance review events only
// while an endpoint names them (spec: Events). Real HTTP receivers, both modes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { settledRowCounts } from './support/row-counts';
import { newTenant } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver, type ReceivedDelivery } from './support/webhook-receiver';

const EVT = /^evt_[0-9a-hjkmnp-tv-z]{26}$/;
const WHD = /^whd_[0-9a-hjkmnp-tv-z]{26}$/;
const UNKNOWN_EVENT = 'evt_01h455vb4pex5vsknk084sn02q';
const DAY = 86_400;

interface PartnerEvent {
  id: string;
  object: 'event';
  event?: string;
  eventType?: string;
  eventId?: string;
  sequence?: number;
  createdAt: string;
  occurredAt: string;
  data: { id: string; object: string } & Record<string, unknown>;
}

const nameOf = (e: { event?: string; eventType?: string }) => (e.event ?? e.eventType)!;
const eventIdOf = (r: ReceivedDelivery) => String(r.headers['webhook-event-id']);

function verifies(delivery: ReceivedDelivery, signingKey: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(delivery.headers['webhook-signature']));
  if (!match) return false;
  return timingSafeEqual(
    createHmac('sha256', signingKey).update(`${match[1]}.${delivery.rawBody}`).digest(),
    Buffer.from(match[2], 'hex'),
  );
}

describe('the Events API', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own: its own events, endpoints and sandbox clock. */
  async function tenant(name: string) {
    const base = await newTenant(platform, { name, receiver });
    const { call } = base;
    const t = {
      ...base,
      now: async () => (await call('GET', '/sandbox/clock')).body.now as string,
      /** Every page of GET /events with this query, in the order the pages gave them. */
      events: async (query = '', limit = 100): Promise<PartnerEvent[]> => {
        const all: PartnerEvent[] = [];
        for (let cursor: string | null = null; ;) {
          const res = await call('GET', `/events?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
          expect(res.status).toBe(200);
          all.push(...res.body.data);
          if (!res.body.hasMore) return all;
          cursor = res.body.nextCursor;
        }
      },
      /** Every delivery of an endpoint, newest first. */
      deliveries: async (
        webhookId: string,
        query = '',
      ): Promise<Array<{ id: string; eventId: string; status: string }>> => {
        const all: Array<{ id: string; eventId: string; status: string }> = [];
        for (let cursor: string | null = null; ;) {
          const page: {
            data: Array<{ id: string; eventId: string; status: string }>;
            hasMore: boolean;
            nextCursor: string | null;
          } = (
            await call('GET', `/webhooks/${webhookId}/deliveries?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`)
          ).body;
          all.push(...page.data);
          if (!page.hasMore) return all;
          cursor = page.nextCursor;
        }
      },
      /** A customer (its endorsement events), an external account through its life and a counterparty. */
      activity: async () => {
        const customer = await base.customer({}, ['cryptoCustody']);
        const account = await base.bankUs(customer.id);
        expect((await call('PATCH', `/external-accounts/${account.id}`, { label: 'Payroll' })).status).toBe(200);
        await base.counterparty(customer.id);
        return { customerId: customer.id, accountId: account.id };
      },
    };
    return t;
  }
  type Tenant = Awaited<ReturnType<typeof tenant>>;

  /** What activity() announces: three endorsement events, four of the account's, the counterparty's. */
  const ACTIVITY = [
    'endorsement.updated',
    'endorsement.updated',
    'endorsement.active',
    'externalAccount.created',
    'externalAccount.statusChanged',
    'externalAccount.verified',
    'externalAccount.updated',
    'counterparty.statusChanged',
  ];
  const sameNames = (events: Array<{ event?: string; eventType?: string }>, names: string[]) =>
    JSON.stringify(events.map(nameOf).sort()) === JSON.stringify([...names].sort());
  /** Once the project's events are exactly these names (they are recorded as the fan-out reads them). */
  const eventsNamed = (t: Tenant, names: string[], query = '') =>
    eventually(async () => {
      const events = await t.events(query);
      return sameNames(events, names) ? events : undefined;
    }, 30_000);
  const arrivals = (path: string, done: (got: ReceivedDelivery[]) => boolean) =>
    eventually(async () => (done(receiver.at(path)) ? receiver.at(path) : undefined), 30_000);

  describe('lists what the webhooks delivered', () => {
    let t: Tenant;
    let hook: { id: string; signingKey: string };
    let made: { customerId: string; accountId: string };
    let events: PartnerEvent[];
    let received: ReceivedDelivery[];

    beforeAll(async () => {
      t = await tenant('events-delivered');
      hook = await t.endpoint('/delivered');
      made = await t.activity();
      received = await arrivals('/delivered', (got) =>
        sameNames(
          got.map((r) => r.body),
          ACTIVITY,
        ),
      );
      events = await eventsNamed(t, ACTIVITY);
    }, 90_000);

    it('lists exactly the delivered events, by the ids the deliveries carried, each as its delivery posted it', async () => {
      expect(events.map((e) => e.id).sort()).toEqual(received.map(eventIdOf).sort());
      for (const event of events) {
        const delivery = received.find((r) => eventIdOf(r) === event.id)!;
        expect(verifies(delivery, hook.signingKey)).toBe(true);
        // The envelope as posted, with the event's evt_ where the delivery had its whd_.
        const { id: deliveryId, ...envelope } = delivery.body;
        expect(deliveryId).toMatch(WHD);
        expect(event).toEqual({ id: expect.stringMatching(EVT), object: 'event', ...envelope });
        expect(Object.keys(event)).toEqual(['id', 'object', ...Object.keys(envelope)]);
        if (event.eventType) expect(event.eventId).toBe(event.id);
        expect((await t.get(`/events/${event.id}`)).body).toEqual(event);
      }
    });

    it("lists newest first, each resource's events in the order they were delivered", async () => {
      const delivered = (await t.deliveries(hook.id)).map((d) => d.eventId);
      const resources = [...new Set(events.map((e) => e.data.id))];
      expect(resources.sort()).toEqual([made.accountId, made.customerId, expect.stringMatching(/^cpty_/)].sort());
      for (const resource of resources) {
        const listed = events.filter((e) => e.data.id === resource);
        expect({ resource, order: listed.map((e) => e.id) }).toEqual({
          resource,
          order: delivered.filter((id) => listed.some((e) => e.id === id)),
        });
        const sequences = listed.map((e) => e.sequence!).reverse();
        expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      }
      expect(events.filter((e) => e.data.id === made.accountId).map(nameOf)).toEqual([
        'externalAccount.updated',
        'externalAccount.verified',
        'externalAccount.statusChanged',
        'externalAccount.created',
      ]);
    });

    it('pages with a cursor and filters by type, resource and creation time', async () => {
      expect(await t.events('', 3)).toEqual(events);
      const first = await t.get('/events?limit=3');
      expect(first.body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
      expect(first.body.data).toEqual(events.slice(0, 3));

      expect(await t.events('&type=externalAccount.statusChanged')).toEqual(
        events.filter((e) => e.eventType === 'externalAccount.statusChanged'),
      );
      expect(await t.events('&type=endorsement.updated')).toEqual(
        events.filter((e) => e.event === 'endorsement.updated'),
      );
      expect(await t.events(`&resourceId=${made.accountId}`)).toEqual(
        events.filter((e) => e.data.id === made.accountId),
      );
      expect(await t.events(`&resourceId=${made.accountId}&type=externalAccount.updated`)).toEqual(
        events.filter((e) => e.event === 'externalAccount.updated'),
      );
      expect(await t.events('&type=cashIn.created')).toEqual([]);

      // createdAfter is inclusive, createdBefore exclusive.
      const middle = events[3];
      expect(await t.events(`&createdAfter=${middle.createdAt}`)).toEqual(
        events.filter((e) => e.createdAt >= middle.createdAt),
      );
      expect(await t.events(`&createdBefore=${middle.createdAt}`)).toEqual(
        events.filter((e) => e.createdAt < middle.createdAt),
      );
      const last = events[0].createdAt;
      expect(
        await t.events(
          `&createdAfter=${events[events.length - 1].createdAt}&createdBefore=${new Date(Date.parse(last) + 1).toISOString()}`,
        ),
      ).toEqual(events);
    });

    it('refuses bad filters and ids with a 400 naming them, and answers 404 for an event it does not have', async () => {
      const refused = async (query: string, error: string, cause: RegExp) => {
        const res = await t.get(`/events${query}`);
        expectError(res, 400, error);
        expect(res.body.cause).toMatch(cause);
      };
      await refused('?type=transaction.created', 'InvalidRequest', /^type: .*event catalogue/);
      await refused('?type=webhook.test', 'InvalidRequest', /^type: /);
      await refused('?resourceId=not-an-id', 'InvalidRequest', /^resourceId: /);
      await refused('?createdAfter=yesterday', 'InvalidRequest', /^createdAfter: .*ISO 8601/);
      await refused('?createdBefore=2026-02-30T00:00:00Z', 'InvalidRequest', /^createdBefore: /);
      await refused(
        '?createdAfter=2026-02-01T00:00:00Z&createdBefore=2026-01-01T00:00:00Z',
        'InvalidRequest',
        /createdAfter: must be before createdBefore/,
      );
      await refused(
        '?createdAfter=2026-01-01T00:00:00Z&createdBefore=2026-01-01T00:00:00Z',
        'InvalidRequest',
        /createdAfter: must be before createdBefore/,
      );
      await refused('?limit=0', 'InvalidRequest', /^limit: /);
      await refused('?cursor=nope', 'InvalidCursor', /cursor/);
      await refused('?since=2026-01-01T00:00:00Z', 'InvalidRequest', /^since: unknown field/);
      const malformed = await t.get('/events/whd_01h455vb4pex5vsknk084sn02q');
      expectError(malformed, 400, 'InvalidEventID');
      expect(malformed.body.cause).toContain('whd_01h455vb4pex5vsknk084sn02q');
      expectError(await t.get(`/events/${UNKNOWN_EVENT}`), 404, 'EventNotFound');
    });
  });

  it("never shows a project another project's events, though every event is recorded, subscribed to or not", async () => {
    const [mine, theirs] = await Promise.all([tenant('events-mine'), tenant('events-theirs')]);
    const hook = await mine.endpoint('/mine');
    const [ours, others] = await Promise.all([mine.activity(), theirs.activity()]);
    // The other project has no endpoint: its events are listed all the same.
    const [myEvents, theirEvents] = await Promise.all([eventsNamed(mine, ACTIVITY), eventsNamed(theirs, ACTIVITY)]);
    expect(myEvents.map((e) => e.id).filter((id) => theirEvents.some((e) => e.id === id))).toEqual([]);
    for (const e of theirEvents) expect(e.data.id).not.toMatch(new RegExp(`^(${ours.customerId}|${ours.accountId})$`));

    const foreign = theirEvents[0].id;
    expectError(await mine.get(`/events/${foreign}`), 404, 'EventNotFound');
    expect(await mine.events(`&resourceId=${others.accountId}`)).toEqual([]);
    expect((await theirs.get(`/events/${foreign}`)).status).toBe(200);
    const resent = await mine.post(`/webhooks/${hook.id}/deliveries`, { eventIds: [myEvents[0].id, foreign] });
    expectError(resent, 404, 'EventNotFound');
    expect(resent.body.cause).toContain(foreign);
    expect(resent.body.cause).not.toContain(myEvents[0].id);
    // Their endpoint id is not ours to use.
    const theirHook = await theirs.endpoint('/theirs-unused');
    expectError(
      await mine.post(`/webhooks/${theirHook.id}/deliveries`, { eventIds: [myEvents[0].id] }),
      404,
      'WebhookNotFound',
    );
  }, 90_000);

  it('lets a partner whose endpoint was disabled for a day catch up: GET /events?createdAfter=, then the missed events again with their ids', async () => {
    const t = await tenant('events-catch-up');
    const hook = await t.endpoint('/catch-up');
    const customer = (await platform.endorsedCustomer(t.token, {}, ['cryptoCustody'])) as { id: string };
    const before = await arrivals('/catch-up', (got) =>
      sameNames(
        got.map((r) => r.body),
        ACTIVITY.slice(0, 3),
      ),
    );

    // Down: the partner disables its endpoint (deploying, say) and notes when.
    expect((await t.post(`/webhooks/${hook.id}/disable`)).status).toBe(200);
    const downSince = await t.now();
    const account = await t.post('/external-accounts', {
      owner: { kind: 'customer', customerId: customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    expect(account.status).toBe(201);
    await eventually(async () =>
      (await t.get(`/external-accounts/${account.body.id}`)).body.status === 'active' ? true : undefined,
    );
    await t.advance(DAY);
    expect((await t.patch(`/external-accounts/${account.body.id}`, { label: 'Payroll' })).status).toBe(200);
    const missedNames = [
      'externalAccount.created',
      'externalAccount.statusChanged',
      'externalAccount.verified',
      'externalAccount.updated',
    ];
    const missed = await eventsNamed(t, missedNames, `&createdAfter=${downSince}`);
    await platform.settle();
    // A disabled endpoint gets no delivery: nothing arrived, nothing is queued for it.
    expect(receiver.at('/catch-up')).toHaveLength(before.length);
    expect((await t.deliveries(hook.id)).map((d) => d.eventId).filter((id) => missed.some((e) => e.id === id))).toEqual(
      [],
    );
    // A day later by the project's clock, the updated account's event among them.
    expect(Date.parse(missed[0].createdAt) - Date.parse(downSince)).toBeGreaterThanOrEqual(DAY * 1000);

    // Back up: enable, and ask for what was missed (in any order: they are sent in the order they occurred).
    expect((await t.post(`/webhooks/${hook.id}/enable`)).status).toBe(200);
    const resent = await t.post(`/webhooks/${hook.id}/deliveries`, { eventIds: missed.map((e) => e.id) });
    expect(resent.status).toBe(201);
    expect(resent.body.notSubscribed).toEqual([]);
    expect(resent.body.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual(
      missed.map((e) => e.id).reverse(),
    );
    for (const d of resent.body.deliveries)
      expect(d).toMatchObject({
        id: expect.stringMatching(WHD),
        object: 'webhookDelivery',
        webhookId: hook.id,
        status: 'queued',
        test: false,
        attemptCount: 0,
      });

    const after = await arrivals('/catch-up', (got) => got.length >= before.length + missed.length);
    const caughtUp = after.slice(before.length);
    expect(caughtUp.map(eventIdOf).sort()).toEqual(missed.map((e) => e.id).sort());
    for (const r of caughtUp) {
      const event = missed.find((e) => e.id === eventIdOf(r))!;
      const delivery = resent.body.deliveries.find((d: { eventId: string }) => d.eventId === event.id);
      expect(verifies(r, hook.signingKey)).toBe(true);
      expect(r.headers['webhook-id']).toBe(delivery.id);
      // The event as it was, in a delivery of its own: a new whd_ and creation time, the same evt_ and data.
      const { id: _evt, object: _object, createdAt: _recorded, ...unchanged } = event;
      expect(r.body).toEqual({ id: delivery.id, ...unchanged, createdAt: delivery.createdAt });
      expect(Object.keys(r.body)).toEqual(Object.keys(event).filter((key) => key !== 'object'));
      if (r.body.eventType) expect(r.body.eventId).toBe(event.id);
    }
    const resentIds: string[] = resent.body.deliveries.map((d: { id: string }) => d.id);
    await eventually(async () =>
      (await t.deliveries(hook.id, '&status=delivered')).filter((d) => resentIds.includes(d.id)).length ===
      resentIds.length
        ? true
        : undefined,
    );

    // Asked again, an event already delivered is sent again, as one more delivery of it.
    const first = eventIdOf(before[0]);
    const again = await t.post(`/webhooks/${hook.id}/deliveries`, { eventIds: [first, first] });
    expect(again.status).toBe(201);
    expect(again.body.deliveries).toHaveLength(1);
    await arrivals('/catch-up', (got) => got.filter((r) => eventIdOf(r) === first).length === 2);
    await eventually(async () =>
      (await t.deliveries(hook.id, `&eventId=${first}`)).map((d) => d.status).join() === 'delivered,delivered'
        ? true
        : undefined,
    );
  }, 120_000);

  it('sends only what the endpoint subscribes to, names the rest, and refuses what it cannot send, storing nothing', async () => {
    const t = await tenant('events-resend');
    const narrow = await t.endpoint('/narrow', ['externalAccount.verified']);
    const made = await t.activity();
    const events = await eventsNamed(t, ACTIVITY);
    const verified = events.find((e) => e.event === 'externalAccount.verified')!;
    await arrivals('/narrow', (got) => got.length === 1);
    const others = events.filter((e) => e !== verified).map((e) => e.id);
    const res = await t.post(`/webhooks/${narrow.id}/deliveries`, { eventIds: [...others, verified.id] });
    expect(res.status).toBe(201);
    expect(res.body.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([verified.id]);
    expect(res.body.notSubscribed.sort()).toEqual([...others].sort());
    await arrivals('/narrow', (got) => got.length === 2);
    expect(receiver.at('/narrow').map(eventIdOf)).toEqual([verified.id, verified.id]);

    const before = await settledRowCounts(platform);
    expectError(
      await t.post(`/webhooks/${narrow.id}/deliveries`, { eventIds: [verified.id, 'evt_nope'] }),
      400,
      'InvalidEventID',
    );
    expectError(await t.post(`/webhooks/${narrow.id}/deliveries`, { eventIds: [] }), 400, 'InvalidRequest');
    expectError(
      await t.post(`/webhooks/${narrow.id}/deliveries`, { eventIds: Array(101).fill(verified.id) }),
      400,
      'InvalidRequest',
    );
    expectError(await t.post(`/webhooks/${narrow.id}/deliveries`, {}), 400, 'InvalidRequest');
    expectError(
      await t.post(`/webhooks/${narrow.id}/deliveries`, { eventIds: [verified.id], status: 'failed' }),
      400,
      'InvalidRequest',
    );
    const unknown = await t.post(`/webhooks/${narrow.id}/deliveries`, { eventIds: [verified.id, UNKNOWN_EVENT] });
    expectError(unknown, 404, 'EventNotFound');
    expect(unknown.body.cause).toMatch(new RegExp(`^eventIds: no event ${UNKNOWN_EVENT} in this project`));
    expectError(
      await t.post('/webhooks/wh_01h455vb4pex5vsknk084sn02q/deliveries', { eventIds: [verified.id] }),
      404,
      'WebhookNotFound',
    );
    expect((await t.post(`/webhooks/${narrow.id}/disable`)).status).toBe(200);
    expectError(
      await t.post(`/webhooks/${narrow.id}/deliveries`, { eventIds: [verified.id] }),
      409,
      'WebhookNotEnabled',
    );
    expect(await settledRowCounts(platform)).toMatchObject({
      'webhooks.deliveries': before['webhooks.deliveries'],
      'webhooks.partner_events': before['webhooks.partner_events'],
    });
    expect(made.accountId).toBe(verified.data.id);
  }, 90_000);

  it('shows a compliance review event only while an endpoint of the project names it', async () => {
    const t = await tenant('events-review');
    await t.endpoint('/review-all');
    const customer = (await platform.endorsedCustomer(t.token)) as { id: string };
    const wallet = (await t.post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' }))
      .body;
    expect((await t.post(`/sandbox/wallets/${wallet.id}/fund`, { amount: '20000' })).status).toBe(200);
    const bank = await t.post('/external-accounts', {
      owner: { kind: 'customer', customerId: customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    await eventually(async () =>
      (await t.get(`/external-accounts/${bank.body.id}`)).body.status === 'active' ? true : undefined,
    );
    const quote = await t.post('/quotes', {
      customerId: customer.id,
      source: { type: 'walletOms', details: { id: wallet.id }, amount: '15000.00' },
      destination: { type: 'bankUs', details: { id: bank.body.id, network: 'ach', accountHolder: 'customer' } },
    });
    expect(quote.status).toBe(201);
    const txn = (await t.post('/transactions', { quoteId: quote.body.id })).body;
    expect(txn.subStatus).toBe('processing.underReview');
    const REVIEW = 'transaction.cryptoToFiat.underReview';
    // The hold is announced by transaction.statusChanged to every '*' endpoint, and by the review event
    // to those that name it: none yet.
    await eventually(
      async () =>
        (await t.events(`&resourceId=${txn.id}&type=transaction.statusChanged`)).some(
          (e) => e.data.subStatus === 'processing.underReview',
        )
          ? true
          : undefined,
      30_000,
    );
    await platform.settle();
    expect(await t.events(`&type=${REVIEW}`)).toEqual([]);
    expect((await t.events(`&resourceId=${txn.id}`)).map(nameOf)).not.toContain(REVIEW);

    const naming = await t.endpoint('/review-named', [REVIEW]);
    const [review] = await eventually(async () => {
      const found = await t.events(`&type=${REVIEW}`);
      return found.length === 1 ? found : undefined;
    });
    expect(review).toMatchObject({
      id: expect.stringMatching(EVT),
      object: 'event',
      event: REVIEW,
      data: { id: txn.id, subStatus: 'processing.underReview' },
    });
    expect((await t.get(`/events/${review.id}`)).body).toEqual(review);
    // The endpoint that names it may have it sent; the '*' one is not sent it.
    const sent = await t.post(`/webhooks/${naming.id}/deliveries`, { eventIds: [review.id] });
    expect(sent.status).toBe(201);
    expect(sent.body.deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([review.id]);
    const [arrived] = await arrivals('/review-named', (got) => got.length === 1);
    expect(arrived.body).toMatchObject({ event: REVIEW, data: { id: txn.id } });
    expect(eventIdOf(arrived)).toBe(review.id);

    // No endpoint names it any more: it is not shown again.
    expect((await t.patch(`/webhooks/${naming.id}`, { subscriptions: ['transaction.statusChanged'] })).status).toBe(
      200,
    );
    expectError(await t.get(`/events/${review.id}`), 404, 'EventNotFound');
    expect(await t.events(`&type=${REVIEW}`)).toEqual([]);
  }, 120_000);

  it("keeps events for the retention window of the project's clock, 30 days", async () => {
    const t = await tenant('events-retention');
    await platform.endorsedCustomer(t.token, {}, ['cryptoCustody']);
    const events = await eventsNamed(t, ACTIVITY.slice(0, 3));
    const hook = await t.endpoint('/retention');
    await t.advance(29 * DAY);
    expect((await t.get(`/events/${events[0].id}`)).status).toBe(200);
    expect(await t.events()).toEqual(events);
    await t.advance(2 * DAY);
    expectError(await t.get(`/events/${events[0].id}`), 404, 'EventNotFound');
    expect(await t.events()).toEqual([]);
    expectError(await t.post(`/webhooks/${hook.id}/deliveries`, { eventIds: [events[0].id] }), 404, 'EventNotFound');
  }, 90_000);
});
