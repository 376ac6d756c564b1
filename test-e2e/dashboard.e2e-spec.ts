// Issue 22: the dashboard is served where partners reach the API (the one process, or the gateway), with
// headers fit for a page that holds credentials. Both modes. The page itself is driven in a browser by
// test-e2e/dashboard/*.browser-spec.ts.
import { START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

describe('the dashboard, served under /dashboard', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  it('answers /dashboard with a redirect to /dashboard/, the page, with headers that keep its credentials to itself', async () => {
    const bare = await fetch(`${platform.url}/dashboard`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/dashboard/']);

    const page = await fetch(`${platform.url}/dashboard/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('<div id="app"></div>');
    // No inline script: everything the page runs is a file of its own under /dashboard/assets/.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const script = /<script[^>]+src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();

    const asset = await fetch(`${platform.url}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('x-frame-options')).toBe('DENY');

    const missing = await fetch(`${platform.url}/dashboard/assets/no-such-file.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-frame-options')).toBe('DENY');
  });
});
