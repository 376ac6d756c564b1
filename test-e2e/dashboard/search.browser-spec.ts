// Issue 47, item 2: a search box in the header that finds any object. An id goes straight to its object's
// page and a request id to the request log filtered by it; other text lists the customers whose name or email
// holds it and the transactions with a leg whose rail reference is it, by name (docs/dashboard.md,
// "Searching"). Each view is checked by axe and kept as a screenshot, at 1280 and 390 px.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { START_TIMEOUT_MS, TestPlatform, eventually } from '../support/test-platform';
import { describeWithBrowser, launchBrowser, SCREENSHOTS, WatchedPage, signInAsPartner } from './browser';

jest.setTimeout(120_000);

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

describeWithBrowser('the header search box', () => {
  let platform: TestPlatform;
  let browser: Browser;
  let project: { projectId: string; apiKey: string; apiSecret: string; token: string };
  let page: WatchedPage | undefined;
  let ada: { id: string };
  let grace: { id: string };
  let transfer: { id: string; txHash: string };

  const api = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token: project.token, body });

  /** Ada pays Grace 12.50 USDC, wallet to wallet: its leg settles on chain with a tx hash. */
  async function walletTransfer() {
    const wallet = async (customerId: string) =>
      (await api('POST', `/customers/${customerId}/wallets`, { asset: 'usdc', network: 'meridianchain' })).body.id;
    const [from, to] = await Promise.all([wallet(ada.id), wallet(grace.id)]);
    expect((await api('POST', `/sandbox/wallets/${from}/fund`, { amount: '100.00' })).status).toBe(200);
    const quote = await api('POST', '/quotes', {
      customerId: ada.id,
      source: { type: 'walletOms', details: { id: from }, amount: '12.50' },
      destination: { type: 'walletOms', details: { id: to } },
    });
    const created = await api('POST', '/transactions', { quoteId: quote.body.id });
    expect(created.status).toBe(201);
    expect((await api('POST', '/sandbox/clock/advance', { seconds: 5 })).status).toBe(200);
    return eventually(async () => {
      const t = (await api('GET', `/transactions/${created.body.id}`)).body;
      const hash = t.legs?.find((l: { txHash: string | null }) => l.txHash)?.txHash;
      return hash ? { id: t.id as string, txHash: hash as string } : undefined;
    }, 30_000);
  }

  beforeAll(async () => {
    [platform, browser] = await Promise.all([TestPlatform.start(), launchBrowser()]);
    project = await platform.newProject('Searched things');
    ada = await platform.endorsedCustomer(project.token, {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada.lovelace@example.com',
    });
    grace = await platform.endorsedCustomer(project.token, {
      firstName: 'Grace',
      lastName: 'Hopper',
      email: 'g.hopper@navy.example',
    });
    transfer = await walletTransfer();
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
    await signInAsPartner(w, project);
    return w;
  }

  /** Types into the header's box and submits it, as a person would (the box is outside the folded menu). */
  async function find(w: WatchedPage, text: string): Promise<void> {
    const box = w.page.getByRole('searchbox', { name: 'Find by id, name, email or reference' });
    await box.fill(text);
    await box.press('Enter');
  }

  /** The results view once it has read both lists: fits the screen, passes axe, kept as a screenshot. */
  async function results(w: WatchedPage, shows: string, name: string): Promise<string> {
    await w.page.getByRole('heading', { name: 'Search', exact: true }).waitFor();
    await w.page.locator('#content').getByText(shows).first().waitFor();
    await w.loaded();
    const widths = await w.page.evaluate(() => ({
      page: (globalThis as any).document.documentElement.scrollWidth,
      screen: (globalThis as any).innerWidth,
    }));
    expect({ name, fits: widths.page <= widths.screen }).toEqual({ name, fits: true });
    await w.checkAccessibility();
    await w.page.screenshot({ path: join(SCREENSHOTS, `search-${name}.png`), fullPage: true });
    return (await w.page.locator('#content').innerText()).replace(/\s+/g, ' ');
  }

  for (const [size, viewport] of [
    ['1280', DESKTOP],
    ['390', PHONE],
  ] as const) {
    it(`at ${size} px, finds customers by part of a name and by email, and a transaction by its tx hash`, async () => {
      const w = await partnerPage(viewport);

      await find(w, 'ovela');
      expect(new URL(w.page.url()).hash).toBe('#/search?q=ovela');
      let text = await results(w, 'Ada Lovelace', `name-${size}`);
      expect(text).toContain('ada.lovelace@example.com');
      expect(text).not.toContain('Grace Hopper');
      expect(text).toContain('No transaction has a leg with this reference.');

      await find(w, 'NAVY.example');
      text = await results(w, 'Grace Hopper', `email-${size}`);
      expect(text).not.toContain('Ada Lovelace');

      await find(w, transfer.txHash.toUpperCase().replace('0X', '0x'));
      text = await results(w, 'No customer', `reference-${size}`);
      const row = w.page.getByRole('region', { name: 'Transactions' });
      await row.locator(`a[href="#/transactions/${transfer.id}"]`).waitFor();
      // Named, not a bare id: the customer by name, the transaction by its kind.
      await expect(row.innerText()).resolves.toMatch(/Crypto to crypto[\s\S]*Ada Lovelace/);

      await find(w, 'zqzq');
      text = await results(w, 'No customer', `nothing-${size}`);
      expect(text).toContain("No customer's name or email holds this.");
      expect(text).toContain('No transaction has a leg with this reference.');
    });

    it(`at ${size} px, goes straight to an object by its id, and to the request log by a request id`, async () => {
      const w = await partnerPage(viewport);
      await find(w, ` ${transfer.id} `);
      await w.page.getByRole('heading', { name: /^Transaction txn_…/ }).waitFor();
      expect(new URL(w.page.url()).hash).toBe(`#/transactions/${transfer.id}`);

      await find(w, grace.id);
      await w.page.getByRole('heading', { name: /^Grace Hopper cst_…/ }).waitFor();
      await w.loaded();
      await w.checkAccessibility();
      await w.page.screenshot({ path: join(SCREENSHOTS, `search-by-id-${size}.png`), fullPage: true });

      const requestId = (await api('GET', `/customers/${ada.id}`)).headers.get('x-request-id')!;
      expect(requestId).toMatch(/^req_[0-9a-z]{26}$/);
      await find(w, requestId);
      await w.page.getByRole('heading', { name: 'Request log' }).waitFor();
      expect(new URL(w.page.url()).hash).toBe(`#/request-logs?requestId=${requestId}`);
    });
  }

  it('says why a search the API refuses found nothing, in its words', async () => {
    const w = await partnerPage(DESKTOP);
    w.expectConsoleError(/status of 400/);
    await w.visit(`/search?q=${'x'.repeat(201)}`);
    const alert = w.page.getByRole('alert').filter({ hasText: 'Could not load customers' });
    await alert.waitFor();
    await expect(alert.innerText()).resolves.toContain('search: must be shorter than or equal to 200 characters');
    await w.checkAccessibility();
    // A single character asks nothing of the customers (the API takes two at least), and says so.
    await w.visit('/search?q=x');
    await w.page.getByText('A name or email search takes at least 2 characters.').waitFor();
  });
});
