// The dashboard's webhook views in Chromium (browser.ts), at a desktop width and a phone's: a suspended endpoint
// says why with Enable in place, also when a retry is refused for it; every listed delivery is selected and
// retried in one request, every failed one by status; attempts keep their numbers across a retry; at 390 px
// endpoints and deliveries read as cards whose URLs wrap across the card. Spec: Endpoints / Webhooks, States /
// Webhook endpoint and delivery; docs/dashboard.md (Webhooks, An endpoint, A delivery).
import { START_TIMEOUT_MS, TestPlatform, eventually } from '../support/test-platform';
import { WebhookReceiver } from '../support/webhook-receiver';
import { describeWithBrowser, launchBrowser, WatchedPage, signInAsPartner } from './browser';
import type { Browser } from 'playwright-core';

jest.setTimeout(90_000);

/** The retry schedule (spec: Delivery and verification 3): delay before the next attempt, by attempts so far. */
const SCHEDULE = [0, 5, 10, 30, 60, 600, 3600, 21_600, 86_400, 172_800];
const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];

describeWithBrowser('the webhook views in a browser', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let page: WatchedPage | undefined;

  beforeAll(async () => {
    [platform, receiver, browser] = await Promise.all([TestPlatform.start(), WebhookReceiver.start(), launchBrowser()]);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await platform?.stop();
  });
  afterEach(async () => {
    const open = page;
    page = undefined;
    await open?.close(expect.getState().currentTestName ?? 'test');
  });

  /** A project of the test's own (its own sandbox clock), and its partner's requests. */
  async function partner(name: string) {
    const project = await platform.newProject(name);
    const api = (method: string, path: string, body?: unknown) =>
      platform.request(method, `/v0.13${path}`, { token: project.token, body });
    const delivery = async (webhookId: string, id: string) =>
      (await api('GET', `/webhooks/${webhookId}/deliveries/${id}`)).body;
    const attemptsReach = (webhookId: string, id: string, n: number) =>
      eventually(async () => ((await delivery(webhookId, id)).attempts.length >= n ? true : undefined), 15_000);
    /**
     * Ten failed attempts of each delivery over about three days of the project's clock: each is failed, and the
     * endpoint is suspended by the service.
     */
    const failUntilSuspended = async (webhookId: string, ids: string[]) => {
      for (const id of ids) await attemptsReach(webhookId, id, 1);
      for (let n = 1; n < 10; n++) {
        expect((await api('POST', '/sandbox/clock/advance', { seconds: SCHEDULE[n] })).status).toBe(200);
        for (const id of ids) await attemptsReach(webhookId, id, n + 1);
      }
      await eventually(async () =>
        (await api('GET', `/webhooks/${webhookId}`)).body.status === 'suspended' ? true : undefined,
      );
    };
    return { ...project, api, delivery, attemptsReach, failUntilSuspended };
  }

  /** A new page of this width, signed in through the form as the project's partner. */
  async function partnerPage(
    project: { apiKey: string; apiSecret: string },
    viewport: { width: number; height: number },
  ): Promise<WatchedPage> {
    const w = (page = await WatchedPage.open(browser, platform.url, viewport));
    await signInAsPartner(w, project);
    return w;
  }

  /** The page is no wider than the screen. */
  async function fits(w: WatchedPage): Promise<void> {
    const widths = await w.page.evaluate(() => ({
      page: (globalThis as any).document.documentElement.scrollWidth,
      screen: (globalThis as any).innerWidth,
    }));
    expect({ ...widths, fits: widths.page <= widths.screen }).toEqual({ ...widths, fits: true });
  }

  describe.each(VIEWPORTS)('at $width px', (viewport) => {
    const narrow = viewport.width < 576;

    it('explains a suspended endpoint with Enable in place, also when a retry is refused for it, and numbers the retried attempts on', async () => {
      const p = await partner(`suspended ${viewport.width}`);
      const path = `/suspended-${viewport.width}`;
      receiver.fail(path, Infinity, 500);
      const hook = (await p.api('POST', '/webhooks', { url: receiver.url(path), subscriptions: ['*'] })).body;
      const sent = (await p.api('POST', `/webhooks/${hook.id}/test`)).body;
      await p.failUntilSuspended(hook.id, [sent.id]);

      const w = await partnerPage(p, viewport);
      // The browser logs each 409 the API answers a retry with here.
      w.expectConsoleError(/status of 409/);
      // On the delivery's page first: its retry, refused, says why with Enable rather than the refusal's words.
      await w.visit(`/webhooks/${hook.id}/deliveries/${sent.id}`);
      await w.page.getByRole('note', { name: 'Why this endpoint sends nothing' }).waitFor();
      await w.page.getByRole('button', { name: 'Retry this delivery' }).click();
      const refusedHere = w.page.getByRole('alert').filter({ hasText: 'Not sent: the endpoint is suspended' });
      await refusedHere.getByRole('button', { name: 'Enable' }).waitFor();
      await expect(refusedHere.textContent()).resolves.not.toContain('POST /webhooks');
      await w.checkAccessibility();
      if (narrow) await fits(w);

      await w.visit(`/webhooks/${hook.id}`);
      await w.waitForStatus('endpoint-status', 'suspended');
      const why = w.page.getByRole('note', { name: 'Why this endpoint sends nothing' });
      await expect(why.textContent()).resolves.toContain('Suspended: every attempt failed for about three days');
      await w.checkAccessibility();
      if (narrow) await fits(w);

      // Retried while suspended: the API refuses, and the page says why, with Enable, rather than the refusal's
      // words naming a route.
      await w.page.getByRole('button', { name: 'Retry every failed' }).click();
      const refusal = w.page.getByRole('alert').filter({ hasText: 'Not sent: the endpoint is suspended' });
      await refusal.waitFor();
      await expect(refusal.textContent()).resolves.not.toContain('POST /webhooks');
      await expect(why.count()).resolves.toBe(0);
      await w.checkAccessibility();

      receiver.fail(path, 0);
      await refusal.getByRole('button', { name: 'Enable' }).click();
      await w.waitForStatus('endpoint-status', 'enabled');
      await w.page.getByRole('status').filter({ hasText: 'Enabled' }).waitFor();
      await expect(w.page.getByRole('note', { name: 'Why this endpoint sends nothing' }).count()).resolves.toBe(0);
      await w.page.getByRole('button', { name: 'Retry every failed' }).click();
      await w.page.getByRole('status').filter({ hasText: 'Requeued: 1 delivery.' }).waitFor();

      // The delivery's page: the retry's attempt is the 11th, and the count the schedule goes by started again.
      await w.page.getByRole('link', { name: sent.id }).click();
      await w.page.getByRole('heading', { name: `Delivery ${sent.id}` }).waitFor();
      await w.waitForStatus('delivery-status', 'delivered');
      await w.page.getByTestId('delivery-attempts').filter({ hasText: '11 in all, 1 since the last retry' }).waitFor();
      const numbers = await w.page.getByRole('table').locator('tbody tr td:first-child').allTextContents();
      expect(numbers).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11']);
      await w.checkAccessibility();
    });

    it('selects every listed delivery and retries them in one request, each sent once more and never twice at once', async () => {
      const p = await partner(`select all ${viewport.width}`);
      // A long URL, as partners' are: on a phone it wraps across the card, not two characters a line.
      const path = `/select-all-${viewport.width}/partner-webhooks/money-movement/receiver?source=meridian-sandbox`;
      receiver.fail(path, Infinity, 500);
      const hook = (await p.api('POST', '/webhooks', { url: receiver.url(path), subscriptions: ['*'] })).body;
      const sent: string[] = [];
      for (let i = 0; i < 3; i++) sent.push((await p.api('POST', `/webhooks/${hook.id}/test`)).body.id);
      // Failed, so that nothing but the page's retry sends them again; the endpoint enabled again after its suspension.
      await p.failUntilSuspended(hook.id, sent);
      expect((await p.api('POST', `/webhooks/${hook.id}/enable`)).body.status).toBe('enabled');
      receiver.fail(path, 0);

      const w = await partnerPage(p, viewport);
      await w.visit('/webhooks');
      if (narrow) {
        // A card per endpoint, no table: the URL has the card's width.
        const card = w.page.getByRole('article', { name: `Endpoint ${hook.id}` });
        const url = card.locator('code', { hasText: 'select-all' });
        const box = (await url.boundingBox())!;
        expect({ urlWidth: box.width, wide: box.width >= viewport.width / 2 }).toEqual({
          urlWidth: box.width,
          wide: true,
        });
        await expect(w.page.getByRole('table').count()).resolves.toBe(0);
        await fits(w);
      } else {
        await w.page.getByRole('table').getByRole('link', { name: hook.id }).waitFor();
      }
      await w.checkAccessibility();

      await w.page.getByRole('link', { name: hook.id }).click();
      await w.page.getByRole('heading', { name: `Webhook endpoint ${hook.id}` }).waitFor();
      await w.loaded();
      for (const id of sent) await w.page.getByRole('link', { name: id }).waitFor();
      if (narrow) {
        await expect(w.page.getByRole('article', { name: /^Delivery whd_/ }).count()).resolves.toBe(3);
        await fits(w);
      }
      await w.page.getByLabel('Select all 3 listed').check();
      for (const id of sent) await expect(w.page.getByLabel(`Select delivery ${id}`).isChecked()).resolves.toBe(true);
      await w.checkAccessibility();
      const before = receiver.at(path).length;
      await w.page.getByRole('button', { name: 'Retry selected (3)' }).click();
      await w.page.getByRole('status').filter({ hasText: 'Requeued: 3 deliveries.' }).waitFor();
      await w.page.getByRole('button', { name: 'Retry selected (0)' }).waitFor();

      for (const id of sent) {
        const done = await eventually(async () => {
          const d = await p.delivery(hook.id, id);
          return d.status === 'delivered' ? d : undefined;
        }, 15_000);
        expect(done.attempts.map((a: { attempt: number; statusCode: number }) => [a.attempt, a.statusCode])).toEqual([
          ...SCHEDULE.map((_, i) => [i + 1, 500]),
          [11, 200],
        ]);
      }
      // Each delivery was sent once more for the one click, each send after the one before it was answered.
      const got = receiver.at(path).slice(before);
      expect(got.map((r) => r.body?.id).sort()).toEqual([...sent].sort());
      for (const id of sent) {
        const sends = receiver.at(path).filter((r) => r.body?.id === id);
        expect(sends).toHaveLength(11);
        sends.slice(1).forEach((r, i) => expect(r.at).toBeGreaterThanOrEqual(sends[i].answeredAt!));
      }
      await w.checkAccessibility();
    });
  });
});
