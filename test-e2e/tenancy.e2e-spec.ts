// ARCHITECTURE: every request is scoped to the project in its token; another
// project's ids answer 404, never data.
import { START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

describe('tenant isolation', () => {
  let platform: TestPlatform;
  let a: { token: string };
  let b: { token: string };
  let customerA: { id: string };
  let walletA: { id: string };

  beforeAll(async () => {
    platform = await TestPlatform.shared();
    a = await platform.newProject('tenant-a');
    b = await platform.newProject('tenant-b');
    customerA = await platform.endorsedCustomer(a.token, { firstName: 'A', lastName: 'Only' }, ['cryptoCustody']);
    walletA = (
      await platform.request('POST', `/v0.13/customers/${customerA.id}/wallets`, {
        token: a.token,
        body: { asset: 'usdc', network: 'ethereum' },
      })
    ).body;
    await platform.request('POST', `/v0.13/sandbox/wallets/${walletA.id}/fund`, {
      token: a.token,
      body: { amount: '50' },
    });
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it.each([
    ['GET', () => `/v0.13/customers/${customerA.id}`, 'CustomerNotFound'],
    ['GET', () => `/v0.13/customers/${customerA.id}/balance`, 'CustomerNotFound'],
    ['GET', () => `/v0.13/wallets/${walletA.id}`, 'WalletNotFound'],
    ['GET', () => `/v0.13/wallets/${walletA.id}/balance`, 'WalletNotFound'],
  ])("answers 404 to %s of another project's resource", async (method, path, error) => {
    const res = await platform.request(method, path(), { token: b.token });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe(error);
    expect(JSON.stringify(res.body)).not.toContain('Only');
  });

  it("cannot write to another project's resources", async () => {
    const wallet = await platform.request('POST', `/v0.13/customers/${customerA.id}/wallets`, {
      token: b.token,
      body: { asset: 'usdc', network: 'ethereum' },
    });
    expect(wallet.status).toBe(404);
    const fund = await platform.request('POST', `/v0.13/sandbox/wallets/${walletA.id}/fund`, {
      token: b.token,
      body: { amount: '1' },
    });
    expect(fund.status).toBe(404);
    const endorse = await platform.request('POST', `/v0.13/customers/${customerA.id}/endorsements`, {
      token: b.token,
      body: { name: 'usd' },
    });
    expect(endorse.status).toBe(404);
    const balance = await platform.request('GET', `/v0.13/wallets/${walletA.id}/balance`, { token: a.token });
    expect(balance.body.data.balance).toBe('50.00');
  });

  it("lists only the token's own project", async () => {
    const customers = await platform.request('GET', '/v0.13/customers', { token: b.token });
    expect(customers.body.data).toEqual([]);
    const wallets = await platform.request('GET', `/v0.13/wallets?customerId=${customerA.id}`, { token: b.token });
    expect(wallets.body.data).toEqual([]);
    const own = await platform.request('GET', '/v0.13/customers', { token: a.token });
    expect(own.body.data.map((c: { id: string }) => c.id)).toEqual([customerA.id]);
  });

  it('keeps sandbox clocks per project', async () => {
    await platform.request('POST', '/v0.13/sandbox/clock/advance', { token: a.token, body: { seconds: 7200 } });
    const clockB = await platform.request('GET', '/v0.13/sandbox/clock', { token: b.token });
    expect(clockB.body.offsetSeconds).toBe(0);
  });
});
