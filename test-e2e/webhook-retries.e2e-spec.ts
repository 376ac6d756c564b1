// Spec: Endpoints / Webhooks (POST /webhooks/{webhookId}/deliveries/retry: "requeues matching deliveries; resets
// attempt count and requeues immediately"), Webhook endpoint and delivery (per-attempt HTTP records). What a retry
// asked by hand keeps (docs/webhooks.md, Retrying a delivery): a delivery's attempts are numbered on across
// automatic and manual attempts, and a receiver never gets two sends of one delivery at once, whether the retry
// meets a scheduled attempt in flight or one that falls due at the same moment. In both modes.
import { newTenant, type Tenant } from './support/tenant';
import { eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver, type ReceivedDelivery } from './support/webhook-receiver';

/** The retry schedule (spec: Delivery and verification 3): delay before the next attempt, by attempts so far. */
const SCHEDULE = [0, 5, 10, 30, 60, 600, 3600, 21_600, 86_400, 172_800];

describe('webhook retries asked by hand', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    [platform, receiver] = await Promise.all([TestPlatform.shared(), WebhookReceiver.start()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.stop();
    await platform?.stop();
  });

  const tenant = (name: string) => newTenant(platform, { name, receiver });
  const delivery = (t: Tenant, webhookId: string, id: string) =>
    t.get(`/webhooks/${webhookId}/deliveries/${id}`).then((r) => r.body);
  const attemptsReach = (t: Tenant, webhookId: string, id: string, n: number) =>
    eventually(async () => {
      const d = await delivery(t, webhookId, id);
      return d.attempts.length >= n ? d : undefined;
    }, 15_000);
  const numbers = (d: { attempts: Array<{ attempt: number }> }) => d.attempts.map((a) => a.attempt);
  /** Each send of the delivery arrived once the one before it had been answered: never two at once. */
  const oneAtATime = (got: ReceivedDelivery[]) =>
    got.slice(1).forEach((r, i) => expect(r.at).toBeGreaterThanOrEqual(got[i].answeredAt ?? Infinity));

  /**
   * A claim has run since now: a delivery of another endpoint is retried and its new attempt awaited, made by a
   * claim that would have taken any other due, unleased delivery of the project too.
   */
  async function claimMarker(t: Tenant, path: string) {
    const other = await t.endpoint(path);
    const marker = (await t.post(`/webhooks/${other.id}/test`)).body;
    let attempts = (await attemptsReach(t, other.id, marker.id, 1)).attempts.length;
    return async () => {
      expect((await t.post(`/webhooks/${other.id}/deliveries/retry`, { deliveryIds: [marker.id] })).status).toBe(200);
      attempts = (await attemptsReach(t, other.id, marker.id, attempts + 1)).attempts.length;
    };
  }

  it('sends a retry asked as the scheduled attempt falls due once at a time, and numbers the attempts on', async () => {
    const t = await tenant('retry-when-due');
    const path = '/retry-when-due';
    receiver.fail(path, 1, 500);
    const hook = await t.endpoint(path, ['*'], { timeoutMs: 10_000 });
    const aClaimHasRun = await claimMarker(t, '/retry-when-due-marker');
    const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
    const first = await attemptsReach(t, hook.id, sent.id, 1);
    expect(first).toMatchObject({ status: 'queued', attemptCount: 1 });

    // The scheduled attempt falls due (the clock passes its 5 s) while the partner retries by hand; whichever is
    // claimed first is held open by the receiver, and the other must not be sent beside it.
    const held = receiver.holdNext(path);
    const [, retried] = await Promise.all([
      t.advance(SCHEDULE[1]),
      t.post(`/webhooks/${hook.id}/deliveries/retry`, { deliveryIds: [sent.id] }),
    ]);
    expect(retried.body).toEqual({ requeued: 1, deliveryIds: [sent.id] });
    await held.arrived;
    await aClaimHasRun();
    expect(receiver.at(path)).toHaveLength(2);

    // Answered: delivered after one more attempt at most (the retry, had it met the scheduled attempt in flight).
    held.answer(200);
    const done = await eventually(async () => {
      const d = await delivery(t, hook.id, sent.id);
      return d.status === 'delivered' ? d : undefined;
    });
    await aClaimHasRun();
    const got = receiver.at(path);
    expect(got.length === 2 || got.length === 3).toBe(true);
    expect(got.map((r) => r.headers['webhook-id'])).toEqual(got.map(() => sent.id));
    oneAtATime(got);
    const final = await delivery(t, hook.id, sent.id);
    expect(final.status).toBe(done.status);
    expect(numbers(final)).toEqual(got.map((_, i) => i + 1));
    expect(final.attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([
      500,
      ...got.slice(1).map(() => 200),
    ]);
    expect(final.nextAttemptAt).toBeNull();
  });

  it('retries every failed delivery of an endpoint in one call by status, each numbered on from its tenth attempt', async () => {
    const t = await tenant('retry-every-failed');
    const path = '/retry-every-failed';
    receiver.fail(path, Infinity, 500);
    const hook = await t.endpoint(path, ['*'], { notifyThresholdSecs: 86_400 });
    const sent = [(await t.post(`/webhooks/${hook.id}/test`)).body, (await t.post(`/webhooks/${hook.id}/test`)).body];
    for (const d of sent) await attemptsReach(t, hook.id, d.id, 1);
    for (let n = 1; n < 10; n++) {
      await t.advance(SCHEDULE[n]);
      for (const d of sent) await attemptsReach(t, hook.id, d.id, n + 1);
    }
    const failed = await eventually(async () => {
      const page = (await t.get(`/webhooks/${hook.id}/deliveries?status=failed`)).body.data;
      return page.length === 2 ? page : undefined;
    });
    expect(failed.map((d: { attemptCount: number }) => d.attemptCount)).toEqual([10, 10]);
    // Three days down: suspended by the service, and a retry needs it enabled again.
    await eventually(async () =>
      (await t.get(`/webhooks/${hook.id}`)).body.status === 'suspended' ? true : undefined,
    );
    expect((await t.post(`/webhooks/${hook.id}/enable`)).body.status).toBe('enabled');

    receiver.fail(path, 0);
    const before = receiver.at(path).length;
    const retried = await t.post(`/webhooks/${hook.id}/deliveries/retry`, { status: 'failed' });
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ requeued: 2, deliveryIds: expect.arrayContaining(sent.map((d) => d.id)) });
    for (const d of sent) {
      const again = await eventually(async () => {
        const now = await delivery(t, hook.id, d.id);
        return now.status === 'delivered' ? now : undefined;
      });
      // The count the schedule goes by starts again; the history's numbers go on.
      expect(again.attemptCount).toBe(1);
      expect(numbers(again)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    }
    expect(receiver.at(path).length - before).toBe(2);
  });
});
