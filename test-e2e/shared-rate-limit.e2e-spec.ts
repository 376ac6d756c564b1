// Two gateway processes on one database count a client's token requests
// together (ADR 0013): a client spreading its requests over replicas gets no
// more than MM_TOKEN_RATE_LIMIT per window.
import {
  BOOTSTRAP_KEY,
  BOOTSTRAP_SECRET,
  expectError,
  GATEWAY_ALONE,
  START_TIMEOUT_MS,
  TestPlatform,
} from './support/test-platform';

const LIMIT = 4;
const env = { MM_TOKEN_RATE_LIMIT: String(LIMIT), MM_TOKEN_RATE_WINDOW_SECONDS: '60' };

let first: TestPlatform;
let second: TestPlatform;
// Two starts one after the other, each given a start's whole bound: a busy machine starts slowly.
beforeAll(async () => {
  // Two gateways (in distributed mode, the gateway alone: tokens are all this is about).
  first = await TestPlatform.start(env, undefined, GATEWAY_ALONE);
  second = await TestPlatform.start(env, first.running.databaseUrl, GATEWAY_ALONE);
}, 2 * START_TIMEOUT_MS);
afterAll(async () => {
  await second?.stop();
  await first?.stop();
});

it('allows MM_TOKEN_RATE_LIMIT token requests per window from one client across two gateways, then 429 with Retry-After', async () => {
  const tokenRequest = (platform: TestPlatform) =>
    platform.request('POST', '/v0.13/auth/token', { body: { apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET } });
  const statuses: number[] = [];
  for (let i = 0; i < LIMIT; i++) statuses.push((await tokenRequest(i % 2 ? second : first)).status);
  expect(statuses).toEqual(Array(LIMIT).fill(200));

  for (const platform of [first, second]) {
    const refused = await tokenRequest(platform);
    expectError(refused, 429, 'RateLimited', 1120);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  }
});
