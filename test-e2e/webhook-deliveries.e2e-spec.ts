// Spec: Events (Envelope, Catalog, Operation to event ties, Delivery and
// verification), Webhook endpoint and delivery, States/Webhook, Endpoints /
// Webhooks, Limits 5; API-CONTRACT: Webhooks on the wire. Deliveries to a real
// HTTP receiver on loopback, in both modes; signatures checked by independent
// implementations (Node crypto here, and Stripe's verifier).
import { createHmac, timingSafeEqual } from 'node:crypto';
import Stripe from 'stripe';
import { constructWebhookEvent, verifyWebhookSignature, WebhookSignatureError } from '@mm/contracts';
import { settledRowCounts } from './support/row-counts';
import { newTenant, type Tenant } from './support/tenant';
import { eventually, expectError, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver, type ReceivedDelivery } from './support/webhook-receiver';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const WHD = /^whd_[0-9a-hjkmnp-tv-z]{26}$/;
const EVT = /^evt_[0-9a-hjkmnp-tv-z]{26}$/;
/** The retry schedule (spec: Delivery and verification 3): delay before the next attempt, by attempts so far. */
const SCHEDULE = [0, 5, 10, 30, 60, 600, 3600, 21_600, 86_400, 172_800];

/** An independent verifier: HMAC-SHA256 over `<t>.<raw body>` keyed with the key's UTF-8 bytes. */
function verifiesWith(delivery: ReceivedDelivery, signingKey: string): boolean {
  // `t=<unix>` and one `v1=<hex>` per signing key (two or more during a key rotation's overlap).
  const header = String(delivery.headers['webhook-signature']);
  const match = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/.exec(header);
  if (!match) return false;
  const expected = createHmac('sha256', signingKey).update(`${match[1]}.${delivery.rawBody}`).digest();
  return match[2]
    .split(',v1=')
    .slice(1)
    .some((signature) => timingSafeEqual(expected, Buffer.from(signature, 'hex')));
}

describe('webhook deliveries', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  const stripe = new Stripe('sk_test_unused');

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  /** A project of its own, so that advancing its clock moves nothing else. */
  const tenant = (name: string) => newTenant(platform, { name, receiver });

  const arrivals = (path: string, n: number, timeoutMs = 15_000) =>
    eventually(async () => (receiver.at(path).length >= n ? receiver.at(path) : undefined), timeoutMs);
  const delivery = (t: Tenant, webhookId: string, id: string) =>
    t.get(`/webhooks/${webhookId}/deliveries/${id}`).then((r) => r.body);
  const attemptsReach = (t: Tenant, webhookId: string, id: string, n: number) =>
    eventually(async () => {
      const d = await delivery(t, webhookId, id);
      // The attempt's record and the delivery's next state commit together.
      return d.attempts.length >= n ? d : undefined;
    }, 15_000);

  describe('the envelope of each event family', () => {
    let t: Tenant;
    let hook: { id: string; signingKey: string };
    let customer: { id: string };
    let ext: { id: string };
    let wallet: { id: string };
    let counterparty: { id: string };
    const events = () => receiver.at('/families').map((r) => r.body);
    const named = (name: string) => events().filter((b) => (b.event ?? b.eventType) === name);

    beforeAll(async () => {
      t = await tenant('families');
      hook = await t.endpoint('/families');
      customer = (
        await t.post('/customers', {
          type: 'individual',
          firstName: 'Ada',
          lastName: 'Lovelace',
          endorsements: ['cryptoCustody'],
        })
      ).body;
      // A custodial wallet needs the cryptoCustody endorsement active (docs/endorsements.md).
      await eventually(async () =>
        (await t.get(`/customers/${customer.id}`)).body.endorsements[0].status === 'active' ? true : undefined,
      );
      wallet = (await t.post(`/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'ethereum' })).body;
      counterparty = (
        await t.post('/counterparties', { customerId: customer.id, entityType: 'business', businessName: 'Acme Ltd' })
      ).body;
      ext = (
        await t.post('/external-accounts', {
          owner: { kind: 'customer', customerId: customer.id },
          type: 'bankUs',
          bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
        })
      ).body;
      // endorsement.updated x2 + endorsement.active, wallet.provisioned, counterparty.statusChanged,
      // externalAccount.created, .statusChanged, .verified.
      // Deliveries run concurrently: wait for each event the tests below read, not only the last one made.
      const expected = [
        'externalAccount.verified',
        'externalAccount.statusChanged',
        'externalAccount.created',
        'endorsement.active',
        'wallet.provisioned',
        'counterparty.statusChanged',
      ];
      await eventually(async () =>
        expected.every((name) => named(name).length >= 1) && named('endorsement.updated').length >= 2
          ? true
          : undefined,
      );
    });

    it('posts JSON with the delivery id and a signature every verifier accepts', async () => {
      for (const r of receiver.at('/families')) {
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['webhook-id']).toBe(r.body.id);
        expect(r.headers['webhook-signature']).toMatch(/^t=\d{10},v1=[0-9a-f]{64}$/);
        expect(verifiesWith(r, hook.signingKey)).toBe(true);
        // Stripe's verifier, given the key as is, and the contract lib's helper.
        expect(
          stripe.webhooks.constructEvent(r.rawBody, String(r.headers['webhook-signature']), hook.signingKey),
        ).toEqual(r.body);
        expect(constructWebhookEvent(r.rawBody, String(r.headers['webhook-signature']), hook.signingKey)).toEqual(
          r.body,
        );
      }
    });

    it('refuses a tampered body, another key and a stale timestamp', () => {
      const r = receiver.at('/families')[0];
      const header = String(r.headers['webhook-signature']);
      expect(() => verifyWebhookSignature(r.rawBody.replace('"', ' "'), header, hook.signingKey)).toThrow(
        WebhookSignatureError,
      );
      expect(() => verifyWebhookSignature(r.rawBody, header, 'whsec_other')).toThrow(WebhookSignatureError);
      expect(() =>
        verifyWebhookSignature(r.rawBody, header, hook.signingKey, { now: Math.floor(Date.now() / 1000) + 301 }),
      ).toThrow(/300 s/);
      expect(() =>
        stripe.webhooks.constructEvent(r.rawBody, header, hook.signingKey, 300, undefined, Date.now() + 301_000),
      ).toThrow();
    });

    it('gives the statusChanged events eventType, eventId and previousStatus, and the others event', async () => {
      const [changed] = named('externalAccount.statusChanged');
      expect(Object.keys(changed)).toEqual([
        'id',
        'eventType',
        'eventId',
        'previousStatus',
        'sequence',
        'createdAt',
        'occurredAt',
        'data',
      ]);
      expect(changed).toMatchObject({
        id: expect.stringMatching(WHD),
        eventType: 'externalAccount.statusChanged',
        eventId: expect.stringMatching(EVT),
        previousStatus: 'pending',
        createdAt: expect.stringMatching(ISO),
        occurredAt: expect.stringMatching(ISO),
      });
      expect(changed.data).toMatchObject({ id: ext.id, object: 'externalAccount', status: 'active' });
      const [created] = named('externalAccount.created');
      expect(Object.keys(created)).toEqual(['id', 'event', 'sequence', 'createdAt', 'occurredAt', 'data']);
      // The resource as it was at the time: created as pending.
      expect(created.data).toMatchObject({ id: ext.id, status: 'pending' });
      const [cp] = named('counterparty.statusChanged');
      expect(cp).toMatchObject({
        eventType: 'counterparty.statusChanged',
        previousStatus: null,
        data: { id: counterparty.id, object: 'counterparty', status: 'active' },
      });
      expect(named('wallet.provisioned')[0].data).toEqual((await t.get(`/wallets/${wallet.id}`)).body);
      expect(named('endorsement.active')[0].data).toMatchObject({
        id: customer.id,
        endorsements: [{ name: 'cryptoCustody', status: 'active' }],
      });
      expect(named('endorsement.updated').map((e) => e.data.endorsements[0].status)).toEqual(['pending', 'active']);
    });

    it('numbers each resource monotonically, gives every delivery its own id, and data is the full resource', async () => {
      const ofExt = events()
        .filter((e) => e.data.id === ext.id)
        .sort((a, b) => a.sequence - b.sequence);
      expect(ofExt.map((e) => e.event ?? e.eventType)).toEqual([
        'externalAccount.created',
        'externalAccount.statusChanged',
        'externalAccount.verified',
      ]);
      expect(ofExt.map((e) => e.sequence)).toEqual([1, 2, 3]);
      expect(new Set(events().map((e) => e.id)).size).toBe(events().length);
      expect(ofExt[2].data).toEqual((await t.get(`/external-accounts/${ext.id}`)).body);
    });

    it('announces a deletion with the resource as deleted', async () => {
      expect((await t.del(`/external-accounts/${ext.id}`)).status).toBe(204);
      expect((await t.del(`/counterparties/${counterparty.id}`)).status).toBe(204);
      await eventually(async () =>
        named('externalAccount.deleted').length === 1 && named('counterparty.statusChanged').length === 2
          ? true
          : undefined,
      );
      expect(named('externalAccount.deleted')[0].data).toMatchObject({ id: ext.id, object: 'externalAccount' });
      expect(named('counterparty.statusChanged')[1]).toMatchObject({
        previousStatus: 'active',
        data: { id: counterparty.id, status: 'deleted' },
      });
    });

    it('lists the deliveries with their filters, and shows one with its attempts', async () => {
      // The receiver answers before the webhooks service records the attempt: wait for the records.
      const all = await eventually(async () => {
        const res = await t.get(`/webhooks/${hook.id}/deliveries?limit=100`);
        return res.status !== 200 || res.body.data.every((d: { status: string }) => d.status === 'delivered')
          ? res
          : undefined;
      });
      expect(all.status).toBe(200);
      expect(all.body.data.length).toBe(receiver.at('/families').length);
      const one = all.body.data[0];
      expect(one).toEqual({
        id: expect.stringMatching(WHD),
        object: 'webhookDelivery',
        webhookId: hook.id,
        eventId: expect.stringMatching(EVT),
        event: expect.any(String),
        test: false,
        status: 'delivered',
        attemptCount: 1,
        nextAttemptAt: null,
        lastAttemptAt: expect.stringMatching(ISO),
        deliveredAt: expect.stringMatching(ISO),
        createdAt: expect.stringMatching(ISO),
        updatedAt: expect.stringMatching(ISO),
      });
      const detail = await t.get(`/webhooks/${hook.id}/deliveries/${one.id}`);
      expect(detail.body.payload).toEqual(receiver.at('/families').find((r) => r.body.id === one.id)!.body);
      expect(detail.body.attempts).toEqual([
        {
          attempt: 1,
          attemptedAt: expect.stringMatching(ISO),
          durationMs: expect.any(Number),
          statusCode: 200,
          error: null,
          responseBody: 'ok',
        },
      ]);
      const byEvent = await t.get(`/webhooks/${hook.id}/deliveries?eventId=${one.eventId}`);
      expect(byEvent.body.data.map((d: { id: string }) => d.id)).toEqual([one.id]);
      expect((await t.get(`/webhooks/${hook.id}/deliveries?status=failed`)).body.data).toEqual([]);
      expect((await t.get(`/webhooks/${hook.id}/deliveries?test=true`)).body.data).toEqual([]);
      expect((await t.get(`/webhooks/${hook.id}/deliveries?createdAfter=2999-01-01T00:00:00Z`)).body.data).toEqual([]);
      expect(
        (await t.get(`/webhooks/${hook.id}/deliveries?createdBefore=2999-01-01T00:00:00Z&limit=100`)).body.data.length,
      ).toBe(all.body.data.length);
      const page = await t.get(`/webhooks/${hook.id}/deliveries?limit=2`);
      expect(page.body).toMatchObject({ hasMore: true, nextCursor: expect.any(String) });
      const next = await t.get(`/webhooks/${hook.id}/deliveries?limit=2&cursor=${page.body.nextCursor}`);
      expect(next.body.data[0].id < page.body.data[1].id).toBe(true);
    });

    it.each([
      ['status=sent', 'InvalidRequest'],
      ['test=yes', 'InvalidRequest'],
      ['eventId=evt_x', 'InvalidRequest'],
      ['createdAfter=yesterday', 'InvalidRequest'],
      ['limit=0', 'InvalidRequest'],
    ])('refuses the filter %s', async (query, error) => {
      expectError(await t.get(`/webhooks/${hook.id}/deliveries?${query}`), 400, error);
    });

    it('answers 400 for a malformed id and 404 for an unknown one', async () => {
      expectError(await t.get(`/webhooks/${hook.id}/deliveries/nope`), 400, 'InvalidWebhookDeliveryID');
      expectError(
        await t.get(`/webhooks/${hook.id}/deliveries/whd_01h455vb4pex5vsknk084sn02q`),
        404,
        'WebhookDeliveryNotFound',
      );
      expectError(await t.get(`/webhooks/wh_01h455vb4pex5vsknk084sn02q/deliveries`), 404, 'WebhookNotFound');
      // Another project's endpoint is unknown here.
      const other = await tenant('other');
      expectError(await other.get(`/webhooks/${hook.id}/deliveries`), 404, 'WebhookNotFound');
    });
  });

  describe('subscriptions, test sends and disabled endpoints', () => {
    it('delivers only the events an endpoint names; webhook.test whatever it names', async () => {
      const t = await tenant('subscriptions');
      const named = await t.endpoint('/named', ['externalAccount.statusChanged']);
      const customer = (await t.post('/customers', { type: 'individual', firstName: 'Grace', lastName: 'Hopper' }))
        .body;
      await t.post('/external-accounts', {
        owner: { kind: 'customer', customerId: customer.id },
        type: 'bankUs',
        bankUs: { accountNumber: '99887766', routingNumber: '021000021' },
      });
      const [first] = await arrivals('/named', 1);
      expect(first.body.eventType).toBe('externalAccount.statusChanged');
      const test = await t.post(`/webhooks/${named.id}/test`);
      expect(test.status).toBe(201);
      expect(test.body).toMatchObject({
        object: 'webhookDelivery',
        webhookId: named.id,
        event: 'webhook.test',
        test: true,
        status: 'queued',
      });
      const received = await arrivals('/named', 2);
      expect(received[1].body).toEqual({
        id: test.body.id,
        event: 'webhook.test',
        createdAt: expect.stringMatching(ISO),
        occurredAt: expect.stringMatching(ISO),
        data: (await t.get(`/webhooks/${named.id}`)).body,
      });
      expect(verifiesWith(received[1], named.signingKey)).toBe(true);
      expect(
        (await t.get(`/webhooks/${named.id}/deliveries?test=true`)).body.data.map((d: { id: string }) => d.id),
      ).toEqual([test.body.id]);
      await platform.settle();
      expect(receiver.at('/named').map((r) => r.body.event ?? r.body.eventType)).toEqual([
        'externalAccount.statusChanged',
        'webhook.test',
      ]);
    });

    it("sends a resource's events to an endpoint one after another, in the order they occurred, each once the one before was answered", async () => {
      // Ordering is best effort (spec), kept wherever one sender can keep it: a receiver slow to answer
      // does not get a resource's next event before it has answered the one before.
      const t = await tenant('ordered');
      const hangMs = 500;
      receiver.hang('/ordered', hangMs);
      await t.endpoint('/ordered', [
        'externalAccount.created',
        'externalAccount.statusChanged',
        'externalAccount.verified',
      ]);
      const customer = (await t.post('/customers', { type: 'individual', firstName: 'Edsger', lastName: 'Dijkstra' }))
        .body;
      await t.post('/external-accounts', {
        owner: { kind: 'customer', customerId: customer.id },
        type: 'bankUs',
        bankUs: { accountNumber: '55667788', routingNumber: '021000021' },
      });
      const got = await arrivals('/ordered', 3);
      expect(got.map((r) => r.body.event ?? r.body.eventType)).toEqual([
        'externalAccount.created',
        'externalAccount.statusChanged',
        'externalAccount.verified',
      ]);
      const sequences = got.map((r) => Number(r.body.sequence));
      expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
      // Each arrived after the answer to the one before it (the receiver answers hangMs after arrival).
      for (let i = 1; i < got.length; i++) expect(got[i].at - got[i - 1].at).toBeGreaterThanOrEqual(hangMs);
    });

    it('creates no delivery rows for a disabled endpoint, and refuses to test it', async () => {
      const t = await tenant('disabled');
      const hook = await t.endpoint('/disabled');
      expect((await t.post(`/webhooks/${hook.id}/disable`)).body.status).toBe('disabled');
      await t.post('/customers', { type: 'individual', firstName: 'Off', lastName: 'Line', endorsements: ['basic'] });
      await platform.settle();
      expectError(await t.post(`/webhooks/${hook.id}/test`), 409, 'WebhookNotEnabled');
      expect((await t.get(`/webhooks/${hook.id}/deliveries`)).body.data).toEqual([]);
      expect(receiver.at('/disabled')).toEqual([]);
    });
  });

  describe('the retry schedule on the sandbox clock', () => {
    it('tries a receiver that fails 3 times exactly 4 times, at 0s, 5s, 10s and 30s intervals', async () => {
      const t = await tenant('flaky');
      receiver.fail('/flaky', 3, 503);
      const hook = await t.endpoint('/flaky');
      const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
      await arrivals('/flaky', 1);
      await attemptsReach(t, hook.id, sent.id, 1);
      // Not before its time: the retry is due 5 s (project time) after the first attempt, and is made
      // only once the project's clock has reached that (real time passes too: nothing here races it).
      const first = await delivery(t, hook.id, sent.id);
      const dueAt = Date.parse(first.nextAttemptAt);
      expect((dueAt - Date.parse(first.attempts[0].attemptedAt)) / 1000).toBeGreaterThanOrEqual(SCHEDULE[1]);
      await t.advance(4);
      await t.advance(1);
      await arrivals('/flaky', 2);
      await attemptsReach(t, hook.id, sent.id, 2);
      expect(Date.parse((await delivery(t, hook.id, sent.id)).attempts[1].attemptedAt)).toBeGreaterThanOrEqual(dueAt);
      await t.advance(10);
      await arrivals('/flaky', 3);
      await attemptsReach(t, hook.id, sent.id, 3);
      await t.advance(30);
      await arrivals('/flaky', 4);
      const done = await eventually(async () => {
        const d = await delivery(t, hook.id, sent.id);
        return d.status === 'delivered' ? d : undefined;
      });
      expect(done.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 503, 200]);
      expect(done.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4]);
      const at = done.attempts.map((a: { attemptedAt: string }) => Date.parse(a.attemptedAt));
      const gaps = at.slice(1).map((x: number, i: number) => (x - at[i]) / 1000);
      gaps.forEach((gap: number, i: number) => expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i + 1]));
      // Every attempt is signed afresh, over the same body and id.
      const bodies = receiver.at('/flaky').map((r) => r.rawBody);
      expect(new Set(bodies).size).toBe(1);
      receiver.at('/flaky').forEach((r) => expect(verifiesWith(r, hook.signingKey)).toBe(true));
      await platform.settle();
      expect(receiver.at('/flaky')).toHaveLength(4);
    });

    it('records an attempt, and schedules the next, on the clock the database holds, even where the process has not yet heard of an advance', async () => {
      const t = await tenant('unheard');
      receiver.fail('/unheard', 3, 503);
      const hook = await t.endpoint('/unheard');
      const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
      await attemptsReach(t, hook.id, sent.id, 1);
      // The clock moves 5 s on, and no process is told: with triggers off for this one write, no
      // notification goes out. Every process's copy of the clock is now stale, as one that has not
      // yet heard an advance would be; the claim, in PostgreSQL, finds the retry due all the same.
      const [project] = await platform.db.query<{ project_id: string }>(
        `SELECT project_id FROM webhooks.deliveries WHERE id = $1`,
        [sent.id],
      );
      await platform.db.query(
        `BEGIN; SET LOCAL session_replication_role = replica;
         INSERT INTO platform.sandbox_clocks (project_id, offset_ms) VALUES ('${project.project_id}', 5000)
           ON CONFLICT (project_id) DO UPDATE SET offset_ms = platform.sandbox_clocks.offset_ms + 5000;
         COMMIT;`,
      );
      await attemptsReach(t, hook.id, sent.id, 2);
      const d = await delivery(t, hook.id, sent.id);
      const [first, second] = d.attempts.map((a: { attemptedAt: string }) => Date.parse(a.attemptedAt));
      // Made when the database's clock said it was due, and recorded at that time.
      expect((second - first) / 1000).toBeGreaterThanOrEqual(SCHEDULE[1]);
      // The next one is 10 s after the record, on the same clock.
      expect((Date.parse(d.nextAttemptAt) - second) / 1000).toBeGreaterThanOrEqual(SCHEDULE[2]);
    });

    it('fails a delivery after 10 attempts over about three days, suspends the endpoint, records skipped rows, and replays them after enable', async () => {
      const t = await tenant('dead');
      receiver.fail('/dead', Infinity, 410);
      const hook = await t.endpoint('/dead', ['*'], { notifyThresholdSecs: 600 });
      const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
      await attemptsReach(t, hook.id, sent.id, 1);
      for (let n = 1; n < 10; n++) {
        await t.advance(SCHEDULE[n]);
        await attemptsReach(t, hook.id, sent.id, n + 1);
      }
      const failed = await eventually(async () => {
        const d = await delivery(t, hook.id, sent.id);
        return d.status === 'failed' ? d : undefined;
      });
      expect(failed).toMatchObject({ attemptCount: 10, nextAttemptAt: null });
      expect(failed.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual(Array(10).fill(410));
      expect(receiver.at('/dead')).toHaveLength(10);
      // About three days of continuous failure: suspended by the service, noticed once as down.
      const endpoint = await eventually(async () => {
        const e = (await t.get(`/webhooks/${hook.id}`)).body;
        return e.status === 'suspended' ? e : undefined;
      });
      expect(endpoint.status).toBe('suspended');
      await eventually(async () =>
        platform.logs().includes(`webhook endpoint ${hook.id}`) &&
        platform.logs().includes('down: every attempt has failed')
          ? true
          : undefined,
      );
      const [{ n: downNotices }] = await platform.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhooks.events WHERE type = 'webhookEndpoint.downNotified' AND data->>'webhookId' = $1`,
        [hook.id],
      );
      expect(downNotices).toBe(1);
      // While suspended, matching events are recorded as skipped and not sent.
      await t.post('/customers', { type: 'individual', firstName: 'Skip', lastName: 'Ped', endorsements: ['basic'] });
      // The customer's events (created, endorsement, ...) fan out one by one: wait until every one has landed.
      await eventually(async () => {
        const page = (await t.get(`/webhooks/${hook.id}/deliveries?status=skipped`)).body.data;
        return page.length >= 2 ? page : undefined;
      });
      let skipped = (await t.get(`/webhooks/${hook.id}/deliveries?status=skipped`)).body.data;
      for (let still = 0; still < 4;) {
        await new Promise((r) => setTimeout(r, 250));
        const page = (await t.get(`/webhooks/${hook.id}/deliveries?status=skipped`)).body.data;
        still = page.length === skipped.length ? still + 1 : 0;
        skipped = page;
      }
      expect(skipped.every((d: { attemptCount: number }) => d.attemptCount === 0)).toBe(true);
      expectError(
        await t.post(`/webhooks/${hook.id}/deliveries/retry`, { status: 'skipped' }),
        409,
        'WebhookNotEnabled',
      );
      expect(receiver.at('/dead')).toHaveLength(10);
      // Enable, fix the receiver, and re-fire the skipped ones and the failed one.
      receiver.fail('/dead', 0);
      expect((await t.post(`/webhooks/${hook.id}/enable`)).body.status).toBe('enabled');
      const retried = await t.post(`/webhooks/${hook.id}/deliveries/retry`, { status: 'skipped' });
      expect(retried.status).toBe(200);
      expect(retried.body).toEqual({
        requeued: skipped.length,
        deliveryIds: expect.arrayContaining(skipped.map((d: { id: string }) => d.id)),
      });
      const byId = await t.post(`/webhooks/${hook.id}/deliveries/retry`, { deliveryIds: [sent.id] });
      expect(byId.body).toEqual({ requeued: 1, deliveryIds: [sent.id] });
      await arrivals('/dead', 10 + skipped.length + 1);
      const again = await eventually(async () => {
        const d = await delivery(t, hook.id, sent.id);
        return d.status === 'delivered' ? d : undefined;
      });
      // The attempt count starts again; the history keeps every attempt, numbered on from the last.
      expect(again.attemptCount).toBe(1);
      expect(again.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    });

    it('notifies a down endpoint once, notifyThresholdSecs after its first failure; a success ends the episode and enable resets it', async () => {
      const t = await tenant('down');
      receiver.fail('/down', Infinity, 500);
      const hook = await t.endpoint('/down', ['*'], { notifyThresholdSecs: 600 });
      const noticesAt = async () =>
        await platform.db.query<{ down_since: string; at: string }>(
          `SELECT data->>'downSince' AS down_since, data->>'at' AS at FROM webhooks.events WHERE type = 'webhookEndpoint.downNotified' AND data->>'webhookId' = $1 ORDER BY global_position`,
          [hook.id],
        );
      const notices = async () => (await noticesAt()).map((r) => r.down_since);
      const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
      const first = await attemptsReach(t, hook.id, sent.id, 1);
      // Attempts at 0, 5, 15, 45 and 105 s fail; the threshold is 600 s after the first.
      for (const [n, step] of [
        [2, 5],
        [3, 10],
        [4, 30],
        [5, 60],
      ] as const) {
        await t.advance(step);
        await attemptsReach(t, hook.id, sent.id, n);
      }
      // Past the threshold on the project clock. The notice is judged by the project time it was decided
      // at, not by when this test looks: the clock's wall-clock part moves on while a loaded machine works.
      await t.advance(600 - 105 + 1);
      const [notice] = await eventually(async () => ((await noticesAt()).length > 0 ? noticesAt() : undefined));
      expect(notice.down_since).toBe(first.attempts[0].attemptedAt);
      expect(Date.parse(notice.at) - Date.parse(notice.down_since)).toBeGreaterThanOrEqual(600_000);
      // More failures in the same episode: no second notice.
      await t.advance(600);
      await attemptsReach(t, hook.id, sent.id, 6);
      await new Promise((r) => setTimeout(r, 1500));
      expect(await notices()).toHaveLength(1);
      // A success ends the episode; the next failure starts another, noticed once more.
      receiver.fail('/down', 0);
      await t.post(`/webhooks/${hook.id}/test`);
      await eventually(async () =>
        (await t.get(`/webhooks/${hook.id}/deliveries?status=delivered`)).body.data.length === 1 ? true : undefined,
      );
      receiver.fail('/down', Infinity, 500);
      const third = (await t.post(`/webhooks/${hook.id}/test`)).body;
      await attemptsReach(t, hook.id, third.id, 1);
      await t.advance(700);
      await eventually(async () => ((await notices()).length === 2 ? true : undefined));
      expect((await t.get(`/webhooks/${hook.id}`)).body.status).toBe('enabled');
    });

    it('counts an answer slower than timeoutMs as a failed attempt', async () => {
      const t = await tenant('slow');
      receiver.hang('/slow', 3000);
      const hook = await t.endpoint('/slow', ['*'], { timeoutMs: 500 });
      const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
      const d = await attemptsReach(t, hook.id, sent.id, 1);
      expect(d.status).toBe('queued');
      expect(d.attempts[0]).toMatchObject({ statusCode: null, error: 'timeout after 500 ms' });
      // Queued for its retry: counted on the webhooks service's /metrics (docs/metrics.md), with the oldest's wait.
      const metrics = await platform.metrics('webhooks');
      expect(Number(/^mm_webhook_deliveries_queued (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
      expect(Number(/^mm_webhook_oldest_queued_seconds ([\d.e+-]+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(0);
      // Its attempt counted, by what it left the delivery (queued for a retry).
      expect(
        Number(/^mm_webhook_attempts_total\{outcome="queued"\} (\d+)$/m.exec(metrics)?.[1]),
      ).toBeGreaterThanOrEqual(1);
      expect(metrics).toMatch(/^mm_webhook_endpoints_suspended \d+$/m);
      expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(450);
      expect(d.attempts[0].durationMs).toBeLessThan(2500);
    });
  });

  describe('retry, rotate-key, deletion and retention', () => {
    it('refuses a retry that names neither, or both, ids and a status', async () => {
      const t = await tenant('retry-validation');
      const hook = await t.endpoint('/retry-validation');
      const before = await settledRowCounts(platform);
      expectError(await t.post(`/webhooks/${hook.id}/deliveries/retry`, {}), 422, 'InvalidDeliveryRetry');
      expectError(
        await t.post(`/webhooks/${hook.id}/deliveries/retry`, {
          deliveryIds: ['whd_01h455vb4pex5vsknk084sn02q'],
          status: 'failed',
        }),
        422,
        'InvalidDeliveryRetry',
      );
      expectError(
        await t.post(`/webhooks/${hook.id}/deliveries/retry`, { deliveryIds: ['nope'] }),
        400,
        'InvalidWebhookDeliveryID',
      );
      expectError(
        await t.post(`/webhooks/${hook.id}/deliveries/retry`, {
          status: 'failed',
          createdAfter: '2026-02-01T00:00:00Z',
          createdBefore: '2026-01-01T00:00:00Z',
        }),
        422,
        'InvalidDeliveryRetry',
      );
      expectError(await t.post(`/webhooks/${hook.id}/deliveries/retry`, { status: 'lost' }), 400, 'InvalidRequest');
      expectError(await t.post(`/webhooks/${hook.id}/deliveries/retry`, { deliveryIds: [] }), 400, 'InvalidRequest');
      expect(await settledRowCounts(platform)).toEqual(before);
      expect((await t.post(`/webhooks/${hook.id}/deliveries/retry`, { status: 'failed' })).body).toEqual({
        requeued: 0,
        deliveryIds: [],
      });
    });

    it('makes a retry of a delivery whose attempt is in flight right after that attempt, never beside it, and numbers its attempts on', async () => {
      const t = await tenant('retry-in-flight');
      // The whole timeout: the receiver holds attempts open while the test retries them.
      const hook = await t.endpoint('/retry-in-flight', ['*'], { timeoutMs: 10_000 });
      // A delivery of another endpoint, retried after each retry below: its new attempt is made by a claim that
      // ran after that retry, and which would have taken the retried delivery too had the retry let it go.
      const other = await t.endpoint('/retry-in-flight-marker');
      const marker = (await t.post(`/webhooks/${other.id}/test`)).body;
      let markerAttempts = await attemptsReach(t, other.id, marker.id, 1).then(() => 1);
      const retry = async (webhookId: string, id: string) =>
        expect((await t.post(`/webhooks/${webhookId}/deliveries/retry`, { deliveryIds: [id] })).body).toEqual({
          requeued: 1,
          deliveryIds: [id],
        });
      const aClaimHasRun = async () => {
        await retry(other.id, marker.id);
        await attemptsReach(t, other.id, marker.id, ++markerAttempts);
      };

      // Attempt 1, handed to the worker by the test send itself, is held open by the receiver while the partner
      // retries the delivery: the retry is accepted, and waits for the attempt in flight.
      const first = receiver.holdNext('/retry-in-flight');
      const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
      await first.arrived;
      const second = receiver.holdNext('/retry-in-flight');
      await retry(hook.id, sent.id);
      await aClaimHasRun();
      expect(receiver.at('/retry-in-flight')).toHaveLength(1);
      // Attempt 1 fails; the retry's attempt follows at once (the clock does not move), claimed from the table.
      first.answer(503);
      await second.arrived;
      // Retried again while that claimed attempt is in flight: the same.
      await retry(hook.id, sent.id);
      await aClaimHasRun();
      expect(receiver.at('/retry-in-flight')).toHaveLength(2);
      second.answer(200);
      // Delivered, and retried all the same: one more attempt, after it.
      await arrivals('/retry-in-flight', 3);
      const done = await eventually(async () => {
        const d = await delivery(t, hook.id, sent.id);
        return d.status === 'delivered' && d.attempts.length === 3 ? d : undefined;
      });
      expect(done.attempts.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([
        [1, 503],
        [2, 200],
        [3, 200],
      ]);
      // The attempt count starts again with each retry (spec: Endpoints / Webhooks); the numbers go on.
      expect(done).toMatchObject({ attemptCount: 1, nextAttemptAt: null });
      // One at a time: each attempt of the delivery arrived once the one before it had been answered.
      const got = receiver.at('/retry-in-flight');
      expect(got.map((r) => r.headers['webhook-id'])).toEqual([sent.id, sent.id, sent.id]);
      got.slice(1).forEach((r, i) => expect(r.at).toBeGreaterThanOrEqual(got[i].answeredAt!));
      await platform.settle();
      expect(receiver.at('/retry-in-flight')).toHaveLength(3);
    });

    it('signs with the new key after rotate-key, and with the old one beside it for a day', async () => {
      const t = await tenant('rotate');
      const hook = await t.endpoint('/rotate');
      await t.post(`/webhooks/${hook.id}/test`);
      const [before] = await arrivals('/rotate', 1);
      expect(verifiesWith(before, hook.signingKey)).toBe(true);
      expect(String(before.headers['webhook-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      const rotated = (await t.post(`/webhooks/${hook.id}/rotate-key`)).body;
      expect(rotated.signingKey).not.toBe(hook.signingKey);
      // For a day, both keys' signatures: a receiver verifies with either while it deploys the new key.
      await t.post(`/webhooks/${hook.id}/test`);
      const [, during] = await arrivals('/rotate', 2);
      expect(String(during.headers['webhook-signature'])).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(verifiesWith(during, rotated.signingKey)).toBe(true);
      expect(verifiesWith(during, hook.signingKey)).toBe(true);
      expect(() =>
        stripe.webhooks.constructEvent(during.rawBody, String(during.headers['webhook-signature']), hook.signingKey),
      ).not.toThrow();
      // A second rotation: the first key's day is not cut short, the second key joins it.
      const again = (await t.post(`/webhooks/${hook.id}/rotate-key`)).body;
      await t.advance(23 * 3600);
      await t.post(`/webhooks/${hook.id}/test`);
      const [, , twice] = await arrivals('/rotate', 3);
      for (const key of [again.signingKey, rotated.signingKey, hook.signingKey])
        expect(verifiesWith(twice, key)).toBe(true);
      // A day after the rotations (on the project's clock), the retired keys stop signing.
      await t.advance(3600);
      await t.post(`/webhooks/${hook.id}/test`);
      const [, , , after] = await arrivals('/rotate', 4);
      expect(verifiesWith(after, again.signingKey)).toBe(true);
      expect(verifiesWith(after, rotated.signingKey)).toBe(false);
      expect(verifiesWith(after, hook.signingKey)).toBe(false);
      expect(() =>
        stripe.webhooks.constructEvent(after.rawBody, String(after.headers['webhook-signature']), hook.signingKey),
      ).toThrow();
    });

    it("keeps a deleted endpoint's deliveries resolvable, and forgets them after the retention window", async () => {
      const t = await tenant('deleted');
      const hook = await t.endpoint('/deleted');
      const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
      await arrivals('/deleted', 1);
      expect((await t.del(`/webhooks/${hook.id}`)).status).toBe(204);
      expectError(await t.get(`/webhooks/${hook.id}`), 404, 'WebhookNotFound');
      expect((await t.get(`/webhooks/${hook.id}/deliveries/${sent.id}`)).body).toMatchObject({
        id: sent.id,
        status: 'delivered',
      });
      expect((await t.get(`/webhooks/${hook.id}/deliveries`)).body.data.map((d: { id: string }) => d.id)).toEqual([
        sent.id,
      ]);
      expectError(await t.post(`/webhooks/${hook.id}/test`), 404, 'WebhookNotFound');
      // 30 days by default, on the project's clock.
      await t.advance(29 * 86_400);
      expect((await t.get(`/webhooks/${hook.id}/deliveries/${sent.id}`)).status).toBe(200);
      await t.advance(2 * 86_400);
      expectError(await t.get(`/webhooks/${hook.id}/deliveries/${sent.id}`), 404, 'WebhookDeliveryNotFound');
      expect((await t.get(`/webhooks/${hook.id}/deliveries`)).body.data).toEqual([]);
    });
  });
});
