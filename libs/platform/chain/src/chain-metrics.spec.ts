import { Registry } from 'prom-client';
import { ChainMetrics } from './chain-metrics';
import type { WatcherStatus } from './chain-watcher';

const status = (fields: Partial<WatcherStatus> = {}): WatcherStatus => ({
  network: 'ethereum',
  chainId: 31337,
  head: '120',
  confirmedThrough: '108',
  confirmations: 12,
  ...fields,
});

describe('the chains on /metrics', () => {
  it("reports each reader's head, what it has taken, and a reorganisation that stopped it", async () => {
    const registry = new Registry();
    const metrics = new ChainMetrics(registry);
    metrics.watching('accounts.wallets', 'ethereum', async () => status());
    metrics.watching('deposit-addresses', 'ethereum', async () =>
      status({ reorganised: { block: '100', recordedHash: '0xaa', foundHash: '0xbb' } }),
    );
    const page = await registry.metrics();
    expect(page).toContain('mm_chain_head_block{reader="accounts.wallets",network="ethereum"} 120');
    expect(page).toContain('mm_chain_confirmed_through_block{reader="accounts.wallets",network="ethereum"} 108');
    expect(page).toContain('mm_chain_reorganised{reader="accounts.wallets",network="ethereum"} 0');
    expect(page).toContain('mm_chain_reorganised{reader="deposit-addresses",network="ethereum"} 1');
  });

  it('leaves out a reader it cannot read now, and a head not read yet, rather than failing the scrape', async () => {
    const registry = new Registry();
    const metrics = new ChainMetrics(registry);
    metrics.watching('accounts.wallets', 'ethereum', async () => {
      throw new Error('the database is away');
    });
    metrics.watching('deposit-addresses', 'ethereum', async () => status({ head: null }));
    const page = await registry.metrics();
    expect(page).not.toContain('reader="accounts.wallets"');
    expect(page).not.toMatch(/^mm_chain_head_block\{/m);
    expect(page).toContain('mm_chain_confirmed_through_block{reader="deposit-addresses",network="ethereum"} 108');
  });

  it("reports the last reconciliation's difference and when it ran", async () => {
    const registry = new Registry();
    const metrics = new ChainMetrics(registry);
    metrics.reconciled('ethereum', '-4.000001', new Date('2026-12-06T07:00:00Z'));
    const page = await registry.metrics();
    expect(page).toContain('mm_chain_unexplained_difference_usdc{network="ethereum"} -4.000001');
    expect(page).toContain(
      `mm_chain_reconciled_timestamp_seconds{network="ethereum"} ${Date.parse('2026-12-06T07:00:00Z') / 1000}`,
    );
  });
});
