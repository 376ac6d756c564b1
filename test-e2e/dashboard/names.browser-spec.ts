// Issue 47, items 1, 5 and 6: a dashboard that names things. A partner's lists and detail views name the
// customer, say where the money went (a bank account's last four, holder and rail), read statuses and kinds
// as words and link every object they mention; no visible text is a whole id (short ids with a copy button
// are). On a phone the navigation folds behind a menu button and tables read as cards; the project clock
// ticks on its own. The operator's queue names each item's reason, amount, customer and age and offers only
// the actions that apply. Each view is checked by axe and kept as a screenshot, at 1280 and 390 px.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, TestPlatform, ADMIN_TOKEN, eventually } from '../support/test-platform';
import { describeWithBrowser, launchBrowser, SCREENSHOTS, WatchedPage, signInAsPartner } from './browser';
import { bankPayout } from '../support/bank-payout';

jest.setTimeout(120_000);

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** Visible text of the page (header and view) that holds a whole TypeID, outside copy buttons. */
async function bareIds(w: WatchedPage): Promise<string[]> {
  return w.page.evaluate(() => {
    const { document, NodeFilter } = globalThis as any;
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      if (!element || element.closest('button.copy') || element.getClientRects().length === 0) continue;
      const match = /\b[a-z]{2,4}_[0-9a-z]{26}\b/.exec(node.textContent ?? '');
      if (match) found.push(`${match[0]} in <${element.tagName.toLowerCase()}>: ${element.textContent.slice(0, 80)}`);
    }
    return found;
  });
}

describeWithBrowser('a dashboard that names things', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let project: { projectId: string; apiKey: string; apiSecret: string; token: string };
  let page: WatchedPage | undefined;
  let payout: { id: string; quoteId: string; customerId: string; accountId: string };

  const api = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token: project.token, body });

  /** Ada Lovelace pays 25.95 USDC out to her bank account ••9012 (.95: the provider leaves it unanswered). */
  async function adasPayout(amount: string) {
    const made = await bankPayout(platform, project.token, amount, { firstName: 'Ada', lastName: 'Lovelace' });
    return { id: made.transaction.id, quoteId: made.quoteId, customerId: made.customerId, accountId: made.accountId };
  }

  beforeAll(async () => {
    [platform, browser] = await Promise.all([TestPlatform.start(), launchBrowser()]);
    project = await platform.newProject('Named things');
    payout = await adasPayout('25.95');
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
  });
  afterEach(async () => {
    const open = page;
    page = undefined;
    await open?.close(expect.getState().currentTestName ?? 'test');
  });

  async function partnerPage(viewport: { width: number; height: number }): Promise<WatchedPage> {
    const w = (page = await WatchedPage.open(browser, platform.url, viewport));
    await w.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url });
    await signInAsPartner(w, project);
    return w;
  }

  /** Opens a view, waits for the text it should show, then checks names, axe and keeps a screenshot. */
  async function check(w: WatchedPage, hash: string, shows: string[], name: string): Promise<void> {
    await w.visit(hash);
    for (const text of shows) await w.page.locator('#content').getByText(text).first().waitFor();
    await w.loaded();
    expect({ hash, bare: await bareIds(w) }).toEqual({ hash, bare: [] });
    const widths = await w.page.evaluate(() => ({
      page: (globalThis as any).document.documentElement.scrollWidth,
      screen: (globalThis as any).innerWidth,
    }));
    expect({ hash, fits: widths.page <= widths.screen }).toEqual({ hash, fits: true });
    await w.checkAccessibility();
    await w.page.screenshot({ path: join(SCREENSHOTS, `names-${name}.png`), fullPage: true });
  }

  for (const [size, viewport] of [
    ['1280', DESKTOP],
    ['390', PHONE],
  ] as const) {
    it(`names the customer, the bank account and the kind on every partner list and detail view, at ${size} px`, async () => {
      const w = await partnerPage(viewport);
      const views: Array<[string, string[], string]> = [
        ['/transactions', ['Ada Lovelace', 'Crypto to bank account', '••9012'], 'transactions'],
        [`/transactions/${payout.id}`, ['Ada Lovelace', 'US bank account ••9012', 'Payout'], 'transaction'],
        ['/customers', ['Ada Lovelace'], 'customers'],
        [`/customers/${payout.customerId}`, ['USDC on meridianchain'], 'customer'],
        ['/quotes', ['Ada Lovelace', 'Crypto to bank account'], 'quotes'],
        [`/quotes/${payout.quoteId}`, ['Ada Lovelace', 'US bank account ••9012'], 'quote'],
        ['/cash-ins', [], 'cash-ins'],
        [`/external-accounts?customerId=${payout.customerId}`, ['US bank account ••9012'], 'external-accounts'],
        [`/external-accounts/${payout.accountId}`, ['US bank account ••9012', 'Ada Lovelace'], 'external-account'],
      ];
      for (const [hash, shows, name] of views) await check(w, hash, shows, `${name}-${size}`);

      // The transaction's page: where the money went, its quote linked, raw values only on hover or copied.
      await w.visit(`/transactions/${payout.id}`);
      const destination = w.page.getByTestId('transaction-destination');
      await destination.getByText('Ada Lovelace').waitFor();
      await expect(destination.textContent()).resolves.toMatch(/US bank account ••9012, Ada Lovelace, ACH/);
      const content = (await w.page.locator('#content').innerText()).replace(/\s+/g, ' ');
      expect(content).not.toMatch(/cryptoToFiatAccount|\(wire\)|walletOms|processing\./);
      await w.page
        .getByRole('button', { name: `Copy id ${payout.id}` })
        .first()
        .click();
      await expect(w.page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).resolves.toBe(payout.id);
      await w.page.getByRole('link', { name: 'Quote', exact: true }).click();
      await w.page.getByRole('heading', { name: /^Quote qt_…/ }).waitFor();
      await w.page.getByRole('link', { name: 'Open the transaction' }).click();
      await w.page.getByRole('heading', { name: /^Transaction txn_…/ }).waitFor();
      await w.page.getByRole('link', { name: 'Ada Lovelace', exact: true }).first().click();
      await w.page.getByRole('heading', { name: /^Ada Lovelace cst_…/ }).waitFor();

      // External accounts: chosen by customer name, each a card of what it is, never a key: value dump.
      await w.visit('/external-accounts');
      await w.page.getByLabel('Customer (accounts are listed per customer)').selectOption({ value: payout.customerId });
      const card = w.page.getByRole('article', { name: 'US bank account ••9012' });
      await card.waitFor();
      await expect(card.innerText()).resolves.toMatch(/Active[\s\S]*Holder[\s\S]*Rails[\s\S]*ACH/);
      await expect(card.innerText()).resolves.not.toMatch(/accountNumberLast4|routingNumber:|123456789012/);
    });
  }

  it('folds the navigation behind a menu button and reads tables as cards at 390 px', async () => {
    const w = await partnerPage(PHONE);
    const nav = w.page.getByRole('navigation', { name: 'Main' });
    const menu = nav.getByRole('button', { name: 'Menu' });
    await expect(nav.getByRole('link', { name: 'Customers' }).isVisible()).resolves.toBe(false);
    // The view starts within the first screen: the list's filters are folded too.
    const heading = await w.page.getByRole('heading', { name: 'Transactions' }).boundingBox();
    expect(heading!.y).toBeLessThan(PHONE.height / 2);
    await expect(w.page.getByRole('combobox', { name: 'Status' }).isVisible()).resolves.toBe(false);
    const display = await w.page.evaluate(
      () => (globalThis as any).getComputedStyle((globalThis as any).document.querySelector('table.cards tr')).display,
    );
    expect(display).toBe('block');
    await menu.click();
    await expect(menu.getAttribute('aria-expanded')).resolves.toBe('true');
    await w.checkAccessibility();
    await w.page.screenshot({ path: join(SCREENSHOTS, 'names-menu-open-390.png'), fullPage: true });
    await nav.getByRole('link', { name: 'Customers' }).click();
    await w.page.getByRole('heading', { name: 'Customers' }).waitFor();
    await expect(nav.getByRole('link', { name: 'Customers' }).isVisible()).resolves.toBe(false);
  });

  it('ticks the project clock in the header on its own, and says how it moves', async () => {
    const w = await partnerPage(DESKTOP);
    const clock = w.page.getByTestId('project-clock');
    const first = await clock.locator('time').getAttribute('datetime');
    await w.page.waitForFunction(
      (before) => (globalThis as any).document.querySelector('[data-testid="project-clock"] time')?.dateTime !== before,
      first,
    );
    await expect(w.page.locator('#clock-hint').innerText()).resolves.toContain('Runs on its own at real time');
    await w.checkAccessibility();
  });

  it('shows the operator each held item with its reason, amount, customer, age and link, and only the actions that apply', async () => {
    // The .95 payout goes unanswered: unconfirmed once 300 s of project time have passed since it was sent.
    const now = async () => (await api('GET', `/transactions/${payout.id}`)).body;
    await eventually(async () => ((await now()).legs.some((l: any) => l.kind === 'payout') ? true : undefined), 30_000);
    expect((await api('POST', '/sandbox/clock/advance', { seconds: 301 })).status).toBe(200);
    await eventually(
      async () => ((await now()).subStatus === 'processing.payoutUnconfirmed' ? true : undefined),
      30_000,
    );

    for (const [size, viewport] of [
      ['1280', DESKTOP],
      ['390', PHONE],
    ] as const) {
      const w = (page = await WatchedPage.open(browser, platform.url, viewport));
      await w.visit('/');
      await w.page.getByLabel('Operator (operator token)').check();
      await w.page.getByLabel('Operator token', { exact: true }).fill(ADMIN_TOKEN);
      await w.page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const item = w.page.getByRole('article', { name: `Held transaction ${payout.id}` });
      await item.getByRole('link', { name: 'Named things' }).waitFor();
      const text = (await item.innerText()).replace(/\s+/g, ' ');
      expect(text).toMatch(/Payout unconfirmed/);
      expect(text).toMatch(/Reason The payout provider has not confirmed the payout/);
      expect(text).toMatch(/Amount 25\.95 USDC/);
      // Named through the operator's customer route, with the short id.
      await item.getByText('Ada Lovelace').waitFor();
      expect((await item.innerText()).replace(/\s+/g, ' ')).toMatch(
        new RegExp(`Customer Ada Lovelace cst_…${payout.customerId.slice(-4)}`),
      );
      expect(text).toMatch(/Held \d+ (s|min|h|d) ago, since|Held since/);
      await expect(
        item.getByRole('link', { name: 'Operator actions on it (audit log)' }).getAttribute('href'),
      ).resolves.toBe(`#/audit?targetId=${payout.id}`);
      const buttons = await item.getByRole('button').allInnerTexts();
      expect(buttons.filter((b) => !/^\W*$/.test(b))).toEqual(['Retry', 'Refund', 'Mark failed']);
      expect({ bare: await bareIds(w) }).toEqual({ bare: [] });
      await w.loaded();
      await w.checkAccessibility();
      await w.page.screenshot({ path: join(SCREENSHOTS, `names-held-queue-${size}.png`), fullPage: true });
      page = undefined;
      await w.close(`names held queue ${size}`);
    }
  });
});
