// The browser tests' harness (issue 22, ADR 0038): playwright-core driving the system's Chromium (Debian's
// `chromium`, which .ci/run installs; MM_CHROMIUM names another). Without one, the tests say so and are
// counted as skipped. Every page a test opens fails the test on any console error or uncaught page error
// (a CSP refusal is one), is checked by axe (no serious or critical violation) wherever the test visits,
// and leaves a screenshot in test-results/dashboard/ when the test ends.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..');
export const SCREENSHOTS = join(ROOT, 'test-results', 'dashboard');

function findChromium(): { path: string } | { reason: string } {
  const candidates = process.env.MM_CHROMIUM
    ? [process.env.MM_CHROMIUM]
    : ['/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const path = candidates.find((p) => existsSync(p));
  return path
    ? { path }
    : { reason: `no Chromium at ${candidates.join(' or ')} (apt-get install chromium, or set MM_CHROMIUM)` };
}

export const browserFound = findChromium();
if ('reason' in browserFound) process.stderr.write(`dashboard browser tests: skipped: ${browserFound.reason}\n`);
/** describe when there is a browser, describe.skip (counted as skipped) when there is none. */
export const describeWithBrowser = 'path' in browserFound ? describe : describe.skip;

export async function launchBrowser(): Promise<Browser> {
  if (!('path' in browserFound)) throw new Error(browserFound.reason);
  // As root (CI containers) Chromium refuses to start with its sandbox.
  return chromium.launch({
    executablePath: browserFound.path,
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface Axe {
  run(
    context: unknown,
    options: unknown,
  ): Promise<{
    violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }>;
  }>;
}

/** A page of its own context (its own sessionStorage), watched for console and page errors. */
export class WatchedPage {
  readonly errors: string[] = [];
  /**
   * Console errors a test expects (a refusal it provokes on purpose): matched ones are not failures. And one the
   * machine causes: Chromium drops the requests it has in flight when a network interface comes or goes, as the
   * container tests' networks do beside the run; the dashboard sends such a request again (its api.ts), and what
   * the test then reads on the page is what it checks.
   */
  private readonly expected: RegExp[] = [/net::ERR_NETWORK_CHANGED/];

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly base: string,
  ) {
    page.on('console', (message) => {
      const text = `${message.text()} (${message.location().url || 'no location'})`;
      if (message.type() === 'error' && !this.expected.some((e) => e.test(text))) this.errors.push(`console: ${text}`);
    });
    page.on('pageerror', (error) => this.errors.push(`page error: ${error.message}`));
  }

  static async open(browser: Browser, base: string, viewport = { width: 1280, height: 900 }): Promise<WatchedPage> {
    const context = await browser.newContext({ viewport, baseURL: base, reducedMotion: 'reduce' });
    return new WatchedPage(context, await context.newPage(), base);
  }

  expectConsoleError(pattern: RegExp): void {
    this.expected.push(pattern);
  }

  /** Opens a view of the dashboard (the part after #) and waits until it has loaded; the tests check it with axe. */
  async visit(hash: string): Promise<void> {
    const url = `${this.base}/dashboard/#${hash}`;
    if (this.page.url().startsWith(`${this.base}/dashboard/`))
      await this.page.evaluate((h) => ((globalThis as any).location.hash = h), hash);
    else await this.page.goto(url);
    await this.loaded();
  }

  /** Nothing on the page says it is still loading. */
  async loaded(): Promise<void> {
    await this.page.waitForFunction(() => {
      const document = (globalThis as any).document;
      return (
        document.querySelector('#app')?.childElementCount > 0 &&
        !document.querySelector('[aria-busy="true"][role="status"]')
      );
    });
  }

  /** axe over the page as it is: no serious or critical violation. */
  async checkAccessibility(): Promise<void> {
    // Through the DevTools protocol, which the page's Content-Security-Policy does not govern.
    await this.page.evaluate(AXE_SOURCE);
    const results = await this.page.evaluate(() =>
      (globalThis as unknown as { axe: Axe }).axe.run((globalThis as any).document, { resultTypes: ['violations'] }),
    );
    const serious = results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
    expect({ hash: new URL(this.page.url()).hash, serious }).toEqual({
      hash: new URL(this.page.url()).hash,
      serious: [],
    });
  }

  /** Waits until the element marked data-testid=testId shows this status (data-status), reading it as the page changes. */
  async waitForStatus(testId: string, status: string, timeout = 30_000): Promise<void> {
    await this.page.waitForFunction(
      ([id, expected]) =>
        (globalThis as any).document
          .querySelector(`[data-testid="${id}"] [data-status]`)
          ?.getAttribute('data-status') === expected,
      [testId, status] as const,
      { timeout },
    );
  }

  /** axe over the page as the test left it, the screenshot (kept as an artifact), then the errors the page had: none is allowed. */
  async close(name: string): Promise<void> {
    let inaccessible: unknown;
    if (this.errors.length === 0 && !this.page.isClosed())
      await this.checkAccessibility().catch((error: unknown) => (inaccessible = error));
    mkdirSync(SCREENSHOTS, { recursive: true });
    const file = `${name
      .replace(/[^a-z0-9]+/gi, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase()
      .slice(0, 100)}.png`;
    await this.page
      .screenshot({ path: join(SCREENSHOTS, file), fullPage: true })
      .catch((error: unknown) => this.errors.push(`screenshot: ${String(error)}`));
    await this.context.close();
    expect(this.errors).toEqual([]);
    if (inaccessible) throw inaccessible;
  }
}

/** Signs the page in through the form as a partner with this key pair, and waits for the first view. */
export async function signInAsPartner(w: WatchedPage, keys: { apiKey: string; apiSecret: string }): Promise<void> {
  await w.visit('/');
  await w.page.getByLabel('API key', { exact: true }).fill(keys.apiKey);
  await w.page.getByLabel('API secret', { exact: true }).fill(keys.apiSecret);
  await w.page.getByRole('button', { name: 'Sign in', exact: true }).click();
  // Attached rather than visible: on a phone the sections are folded behind the menu button.
  await w.page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Transactions', includeHidden: true })
    .waitFor({ state: 'attached' });
  await w.loaded();
}
