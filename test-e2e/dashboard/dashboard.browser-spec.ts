// Issue 22, "Done means": the dashboard in a real browser (Chromium through playwright-core), against one
// platform (npm start's single process) for every test of the run. A partner signs in, finds a customer the
// API made, watches a transfer go from processing to completed after advancing the sandbox clock from the
// page, and retries a failed webhook delivery; an operator resolves a held payout from the queue. Every page
// is checked by axe, and any console error fails the test (browser.ts).
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { Devnet } from '@mm/platform/testing';
import { START_TIMEOUT_MS, TestPlatform, ADMIN_TOKEN, eventually } from '../support/test-platform';
import { WebhookReceiver } from '../support/webhook-receiver';
import { describeWithBrowser, launchBrowser, WatchedPage } from './browser';
import type { Browser } from 'playwright-core';

jest.setTimeout(90_000);

describeWithBrowser('the dashboard in a browser', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let browser: Browser;
  /** ethereum's chain (the operator's Chains page); the other tests' wallets are on meridianchain, simulated. */
  let devnet: Devnet;
  let project: { projectId: string; apiKey: string; apiSecret: string; token: string };
  let page: WatchedPage | undefined;

  beforeAll(async () => {
    const onChain = async () => {
      devnet = await Devnet.start();
      return TestPlatform.start({ ...devnet.settings('ETHEREUM', 2), MM_CUSTODY_MNEMONIC: generateMnemonic(english) });
    };
    [platform, receiver, browser] = await Promise.all([onChain(), WebhookReceiver.start(), launchBrowser()]);
    project = await platform.newProject('dashboard');
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await platform?.stop();
    await devnet?.stop();
  });
  afterEach(async () => {
    const open = page;
    page = undefined;
    await open?.close(expect.getState().currentTestName ?? 'test');
  });

  const api = (method: string, path: string, body?: unknown) =>
    platform.request(method, `/v0.13${path}`, { token: project.token, body });

  /** A new page, signed in through the form as the project's partner. */
  async function partnerPage(viewport?: { width: number; height: number }): Promise<WatchedPage> {
    const w = (page = await WatchedPage.open(browser, platform.url, viewport));
    await w.visit('/');
    await w.page.getByLabel('API key', { exact: true }).fill(project.apiKey);
    await w.page.getByLabel('API secret', { exact: true }).fill(project.apiSecret);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    await w.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Transactions' }).waitFor();
    await w.loaded();
    return w;
  }

  /** A new page, signed in through the form as the operator. */
  async function operatorPage(): Promise<WatchedPage> {
    const w = (page = await WatchedPage.open(browser, platform.url));
    await w.visit('/');
    await w.page.getByLabel('Operator (operator token)').check();
    await w.page.getByLabel('Operator token', { exact: true }).fill(ADMIN_TOKEN);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    return w;
  }

  /** A wallet payout of this amount to a bank account, made through the API. */
  async function payout(amount: string): Promise<{ id: string; customerId: string }> {
    const customer = await platform.endorsedCustomer(project.token, { firstName: 'Ada', lastName: 'Lovelace' }, [
      'basic',
      'cryptoCustody',
      'usd',
    ]);
    const wallet = await api('POST', `/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' });
    expect((await api('POST', `/sandbox/wallets/${wallet.body.id}/fund`, { amount: '500.00' })).status).toBe(200);
    const registered = await api('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId: customer.id },
      type: 'bankUs',
      bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
    });
    await eventually(
      async () =>
        (await api('GET', `/external-accounts/${registered.body.id}`)).body.status === 'active' ? true : undefined,
      30_000,
    );
    const quote = await api('POST', '/quotes', {
      customerId: customer.id,
      source: { type: 'walletOms', details: { id: wallet.body.id }, amount },
      destination: { type: 'bankUs', details: { id: registered.body.id, network: 'ach', accountHolder: 'customer' } },
    });
    const transaction = await api('POST', '/transactions', { quoteId: quote.body.id });
    expect(transaction.status).toBe(201);
    return transaction.body;
  }

  it('signs a partner in and finds a customer the API made, by name and by id; the secret stays out of the URL and storage', async () => {
    const created = await api('POST', '/customers', { type: 'individual', firstName: 'Grace', lastName: 'Hopper' });
    expect(created.status).toBe(201);
    const w = (page = await WatchedPage.open(browser, platform.url));
    await w.visit('/');
    await w.checkAccessibility();
    await w.page.getByLabel('API key', { exact: true }).fill(project.apiKey);
    await w.page.getByLabel('API secret', { exact: true }).fill(project.apiSecret);
    await w.page.getByRole('button', { name: 'Sign in' }).click();
    const nav = w.page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Customers' }).click();
    await w.loaded();
    await w.page.getByRole('searchbox', { name: 'Customer id or name' }).fill('Hopper');
    await w.page.getByRole('button', { name: 'Search' }).click();
    const row = w.page.getByRole('row').filter({ hasText: created.body.id });
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('Grace Hopper');
    await w.checkAccessibility();

    await w.page.getByRole('searchbox', { name: 'Customer id or name' }).fill(created.body.id);
    await w.page.getByRole('button', { name: 'Search' }).click();
    await w.page.getByRole('link', { name: created.body.id }).click();
    await w.page.getByRole('heading', { name: `Customer ${created.body.id}` }).waitFor();
    await w.loaded();
    await w.checkAccessibility();

    const kept = await w.page.evaluate(() => {
      const { sessionStorage, localStorage, location, document } = globalThis as any;
      return (
        JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage }) + location.href + document.cookie
      );
    });
    expect(kept).not.toContain(project.apiSecret);
    expect(w.page.url()).not.toContain(project.token);
  });

  it('shows a transfer go from processing to completed on its page after the clock is advanced from the page', async () => {
    const transaction = await payout('25.00');
    const w = await partnerPage();
    await w.visit(`/transactions/${transaction.id}`);
    const status = w.page.getByTestId('transaction-status');
    await expect(status.textContent()).resolves.toContain('processing');
    await expect(w.page.getByRole('list', { name: 'Status changes, oldest first' }).textContent()).resolves.toContain(
      'processing',
    );
    await w.checkAccessibility();

    // ACH settles a minute of project time later (docs/sandbox.md).
    await w.page.getByRole('spinbutton', { name: 'Seconds to advance the clock by' }).fill('61');
    await w.page.getByRole('button', { name: 'Advance clock' }).click();
    // No reload: the page hears of the new events and reads the transaction again.
    await w.waitForStatus('transaction-status', 'completed');
    const timeline = w.page.getByRole('list', { name: 'Status changes, oldest first' });
    await timeline.getByText('completed').waitFor({ timeout: 10_000 });
    // Amounts as decimals with their asset; times in the viewer's zone with UTC in the title.
    await expect(w.page.getByRole('table').first().textContent()).resolves.toContain('25.00 USDC');
    await expect(w.page.locator('time').first().getAttribute('title')).resolves.toMatch(/ UTC$/);
    await w.checkAccessibility();
  });

  it('shows a failed webhook attempt with its status code, duration and response, retries the delivery and re-delivers an event from the page', async () => {
    // The endpoint's server fails until the test mends it (the platform's own retries fail too meanwhile).
    receiver.fail('/dashboard-hook', Infinity, 500);
    const endpoint = await api('POST', '/webhooks', {
      url: receiver.url('/dashboard-hook'),
      subscriptions: ['cashIn.completed'],
    });
    expect(endpoint.status).toBe(201);
    const test = await api('POST', `/webhooks/${endpoint.body.id}/test`);
    expect(test.status).toBeLessThan(300);
    const deliveryId = test.body.id as string;
    await eventually(
      async () =>
        (await api('GET', `/webhooks/${endpoint.body.id}/deliveries/${deliveryId}`)).body.attemptCount >= 1
          ? true
          : undefined,
      30_000,
    );

    const w = await partnerPage();
    await w.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await w.page.getByRole('link', { name: endpoint.body.id }).click();
    await w.loaded();
    await w.checkAccessibility();
    await w.page.getByRole('link', { name: deliveryId }).click();
    await w.page.getByRole('heading', { name: `Delivery ${deliveryId}` }).waitFor();
    await w.loaded();
    const attempts = w.page.getByRole('table');
    await expect(attempts.textContent()).resolves.toMatch(/500.*\d+ ms.*failing on purpose/);
    await w.checkAccessibility();

    receiver.fail('/dashboard-hook', 0);
    const before = receiver.at('/dashboard-hook').length;
    await w.page.getByRole('button', { name: 'Retry this delivery' }).click();
    await w.page.getByRole('status').filter({ hasText: 'Requeued: 1 delivery' }).waitFor();
    await w.waitForStatus('delivery-status', 'delivered');
    await expect(attempts.textContent()).resolves.toMatch(/200.*\d+ ms.*ok/);
    // Sent again because of the page's retry, not only by the platform's schedule.
    await eventually(async () => (receiver.at('/dashboard-hook').length > before ? true : undefined));

    // A new signing key is shown once, then gone from the page.
    await w.page.getByRole('link', { name: 'Back to the endpoint' }).click();
    await w.page.getByRole('button', { name: 'Rotate signing key' }).click();
    const shown = w.page.getByRole('article', { name: 'New signing key' });
    await expect(shown.textContent()).resolves.toMatch(/whsec_/);
    await w.checkAccessibility();
    await shown.getByRole('button', { name: 'I have kept it' }).click();
    await shown.waitFor({ state: 'detached' });
    // An event of the Events list (an endorsement's, here) sent again, to an endpoint that takes every event.
    await platform.endorsedCustomer(project.token, { firstName: 'Mary', lastName: 'Jackson' }, ['basic']);
    const everything = await api('POST', '/webhooks', { url: receiver.url('/dashboard-all'), subscriptions: ['*'] });
    expect(everything.status).toBe(201);
    await w.visit('/events');
    await w.page.getByRole('combobox', { name: 'Re-deliver to' }).selectOption(everything.body.id);
    const newest = w.page.getByRole('button', { name: /^Re-deliver evt_/ }).first();
    await newest.click();
    const queued = await w.page.getByRole('status').filter({ hasText: 'Queued again as whd_' }).textContent();
    const resent = /whd_\w+/.exec(queued ?? '')![0];
    // The envelope's id is the delivery's.
    await eventually(async () => receiver.at('/dashboard-all').find((d) => d.body?.id === resent), 30_000);
    await w.checkAccessibility();
  });

  it('lets the operator resolve a held payout from the queue, giving a reason', async () => {
    // docs/sandbox.md: .95 goes unanswered, and 300 s of project time later the payout is unconfirmed.
    const held = await payout('25.95');
    expect((await api('POST', '/sandbox/clock/advance', { seconds: 301 })).status).toBe(200);
    await eventually(
      async () =>
        (await api('GET', `/transactions/${held.id}`)).body.subStatus === 'processing.payoutUnconfirmed'
          ? true
          : undefined,
      30_000,
    );

    const w = await operatorPage();
    const item = w.page.getByRole('article', { name: `Held transaction ${held.id}` });
    await item.waitFor();
    await expect(item.textContent()).resolves.toContain('processing.payoutUnconfirmed');
    await w.checkAccessibility();

    // A refusal is shown in the API's words (the browser logs the 422 it got, which this test expects).
    w.expectConsoleError(/status of 422/);
    await item.getByRole('button', { name: 'Complete refund' }).click();
    await item.getByLabel('Reason for “Complete refund”').fill('not a bank refund');
    await item.getByRole('button', { name: 'Confirm complete refund' }).click();
    await item.getByRole('alert').filter({ hasText: 'refundNotCompletable' }).waitFor();
    await item.getByRole('button', { name: 'Cancel' }).click();

    await item.getByRole('button', { name: 'Retry' }).click();
    await item.getByLabel('Reason for “Retry”').fill('the provider has it');
    await w.checkAccessibility();
    await item.getByRole('button', { name: 'Confirm retry' }).click();
    // The provider holds the transfer (.95): the retry answers completedByProvider and the payout completes.
    await w.page
      .getByRole('status')
      .filter({ hasText: `${held.id}: completedByProvider` })
      .waitFor();
    await item.waitFor({ state: 'detached' });
    expect((await api('GET', `/transactions/${held.id}`)).body.status).toBe('completed');
  });

  it('opens every partner view at a phone width without a serious accessibility violation or a page wider than the screen, by keyboard too, and funds a wallet from the sandbox form', async () => {
    const customer = await platform.endorsedCustomer(project.token, { firstName: 'Katherine', lastName: 'Johnson' }, [
      'cryptoCustody',
    ]);
    const wallet = await api('POST', `/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'meridianchain' });
    const w = await partnerPage({ width: 390, height: 844 });
    for (const view of [
      '/transactions',
      '/customers',
      `/customers/${customer.id}`,
      '/quotes',
      '/cash-ins',
      `/external-accounts?customerId=${customer.id}`,
      '/webhooks',
      '/events',
      '/sandbox',
    ]) {
      await w.visit(view);
      await w.checkAccessibility();
      const widths = await w.page.evaluate(() => ({
        page: (globalThis as any).document.documentElement.scrollWidth,
        screen: (globalThis as any).innerWidth,
      }));
      expect({ view, ...widths, fits: widths.page <= widths.screen }).toEqual({ view, ...widths, fits: true });
    }
    // A reload keeps the session (this tab's sessionStorage); the first Tab reaches the skip link, which takes
    // the keyboard to the view.
    await w.page.reload();
    await w.loaded();
    await w.page.keyboard.press('Tab');
    await expect(w.page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).resolves.toBe(
      'Skip to content',
    );
    await w.page.keyboard.press('Enter');
    await expect(w.page.evaluate(() => (globalThis as any).document.activeElement?.id)).resolves.toBe('content');

    const fund = w.page.getByRole('form', { name: 'Fund a wallet' });
    await fund.getByLabel('Wallet id').fill(wallet.body.id);
    await fund.getByLabel('Amount (decimal, in the wallet asset)').fill('12.34');
    await fund.getByRole('button', { name: 'Send' }).click();
    await fund.getByRole('status').filter({ hasText: 'Done' }).waitFor();
    await w.checkAccessibility();
    expect((await api('GET', `/wallets/${wallet.body.id}/balance`)).body.data.balance).toBe('12.34');
  });

  it('lets the operator edit a project and issue and revoke an API key, the secret shown once', async () => {
    const w = await operatorPage();
    await w.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
    await w.page.getByRole('link', { name: project.projectId }).click();
    await w.page.getByRole('heading', { name: `Project ${project.projectId}` }).waitFor();
    await w.loaded();
    await w.checkAccessibility();

    const settings = w.page.getByRole('form', { name: 'Project settings' });
    await settings.getByRole('switch', { name: 'cashPickup' }).check();
    await settings.getByLabel('Daily bank payout cap').fill('5000.00');
    await settings.getByLabel('Attribution timeout (hours)').fill('2');
    await settings.getByRole('button', { name: 'Save project' }).click();
    await eventually(async () => {
      const read = (await platform.admin('GET', `/projects/${project.projectId}`)).body;
      return read.attributionTimeoutHours === 2 ? read : undefined;
    }).then((read) =>
      expect({ cashPickup: read.features.cashPickup, cap: read.limits.dailyBankPayoutCap }).toEqual({
        cashPickup: true,
        cap: '5000.00',
      }),
    );

    await w.page.getByRole('button', { name: 'Issue a key pair' }).click();
    const secret = w.page.getByRole('article', { name: /^Secret of sk_/ });
    await secret.waitFor();
    const apiKey = (await secret.getAttribute('aria-label'))!.replace('Secret of ', '');
    const apiSecret = (await secret.locator('pre').textContent())!.trim();
    expect((await platform.request('POST', '/v0.13/auth/token', { body: { apiKey, apiSecret } })).status).toBe(200);
    await secret.getByRole('button', { name: 'I have kept it' }).click();
    await secret.waitFor({ state: 'detached' });
    await expect(w.page.content()).resolves.not.toContain(apiSecret);

    const revoke = w.page.getByRole('form', { name: 'Revoke an API key' });
    await revoke.getByLabel('API key to revoke').fill(apiKey);
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await revoke.getByRole('status').filter({ hasText: apiKey }).waitFor();
    expect((await platform.request('POST', '/v0.13/auth/token', { body: { apiKey, apiSecret } })).status).toBe(401);
    await w.checkAccessibility();
  });

  it('shows the operator each network, and the books against the chain, with a difference nothing explains as an alert', async () => {
    const w = await operatorPage();
    await w.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Chains' }).click();
    const ethereum = w.page.getByRole('article', { name: 'Network ethereum' });
    const figures = ethereum.getByRole('table', { name: 'Reconciliation of ethereum' });
    await figures.waitFor();
    await expect(w.page.getByRole('article', { name: 'Network meridianchain' }).textContent()).resolves.toContain(
      'simulated',
    );
    await expect(figures.getByRole('row', { name: /Unexplained difference/ }).textContent()).resolves.toContain(
      '0.000000 USDC',
    );
    await expect(ethereum.getByRole('alert').count()).resolves.toBe(0);
    await w.checkAccessibility();

    // The operator's float reaches the treasury, then 2.5 USDC leave it with no payout behind them.
    const [chain] = (await platform.admin('GET', '/chains')).body.data;
    await devnet.mint(chain.treasuryAddress, '10');
    await devnet.mine(2);
    await devnet.transferAs(chain.treasuryAddress, '0x000000000000000000000000000000000000dEaD', '2.5');
    await w.page.reload();
    await ethereum
      .getByRole('alert')
      .filter({ hasText: 'The books do not match the chain' })
      .filter({ hasText: '-2.500000 USDC' })
      .waitFor();
    await w.checkAccessibility();
  });
});
