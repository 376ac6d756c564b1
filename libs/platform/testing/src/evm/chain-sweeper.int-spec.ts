// Sweeps on a real PostgreSQL and a local EVM node (docs/chain.md, Sweeps): a derived address holding at least
// the threshold is sent gas by the treasury, then sends its whole balance to the treasury, each transfer once;
// an address below the threshold is left as it is.
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { loadConfig } from '@mm/platform/config';
import {
  ChainClient,
  ChainMetrics,
  ChainSender,
  ChainSweeper,
  CustodyRegistry,
  HdCustody,
  type PayoutOutcome,
} from '@mm/platform/chain';
import { Registry } from 'prom-client';
import { createTestDatabase, type TestDatabase } from '../test-database';
import { Devnet } from './devnet';

jest.setTimeout(120_000);

let devnet: Devnet;
let db: TestDatabase;
const custody = new HdCustody(generateMnemonic(english));
const treasury = custody.address(custody.treasury('ethereum'));
const recorded: PayoutOutcome[] = [];
let sender: ChainSender;
let sweeper: ChainSweeper;
/** The sweeper's figures, as a process's /metrics shows them. */
const metricsRegistry = new Registry();
const metrics = new ChainMetrics(metricsRegistry);
/** A client of the test's node, as each process has its own. */
const sweeperClient = () => new ChainClient(loadConfig({ ...devnet.settings('ETHEREUM', 2) }).chains.ethereum!);

beforeAll(async () => {
  [devnet, db] = await Promise.all([Devnet.start(), createTestDatabase()]);
  const client = sweeperClient();
  await devnet.fundGas(treasury);
  sender = new ChainSender(db.uow, client, custody, async (outcome) => void recorded.push(outcome), {
    pollMs: 60_000,
    replaceAfterMs: 60_000,
  });
  // Stepped by the test, not polling.
  await sender.start();
  await sender.stop();
  const registry = new CustodyRegistry(db.uow);
  sweeper = new ChainSweeper(db.uow, client, custody, registry, sender, '100', metrics);
  for (const index of [0, 1]) {
    const address = custody.address({ purpose: 'wallet', index });
    await registry.register({ purpose: 'wallet', index, network: 'ethereum', address, ownerId: `wal_${index}` });
  }
});
afterAll(async () => {
  await sender?.stop();
  await db?.close();
  await devnet?.stop();
});

/** The sender's round, then blocks enough to confirm what it sent, then its round again to record it. */
async function sendAndConfirm(): Promise<void> {
  await sender.step();
  await devnet.mine(2);
  await sender.step();
}

it('sends gas, then sweeps a derived address at the threshold whole into the treasury, and leaves one below it', async () => {
  const [full, below] = [
    custody.address({ purpose: 'wallet', index: 0 }),
    custody.address({ purpose: 'wallet', index: 1 }),
  ];
  await devnet.mint(full, '150.5');
  await devnet.mint(below, '99.999999');
  // A treasury of its own (a new seed): it held no USDC before.
  expect(await devnet.balance(treasury)).toBe('0');

  // First the gas, from the treasury: the address has none.
  await sweeper.step();
  const queued = await db.uow.query<{ purpose: string; to_address: string; asset: string }>(
    `SELECT purpose, to_address, asset FROM platform.chain_payouts WHERE status = 'queued'`,
  );
  expect(queued).toEqual([{ purpose: 'gas', to_address: full, asset: 'native' }]);
  // Nothing more is queued while it is under way.
  await sweeper.step();
  expect(await db.uow.query(`SELECT 1 FROM platform.chain_payouts`)).toHaveLength(1);
  await sendAndConfirm();
  expect(recorded.map((r) => [r.purpose, r.kind])).toEqual([['gas', 'confirmed']]);

  // Then the sweep, signed by the address's own key.
  await sweeper.step();
  await sendAndConfirm();
  expect(recorded.map((r) => [r.purpose, r.kind])).toEqual([
    ['gas', 'confirmed'],
    ['sweep', 'confirmed'],
  ]);
  expect(await devnet.balance(full)).toBe('0');
  expect(await devnet.balance(treasury)).toBe('150.5');
  expect(await devnet.balance(below)).toBe('99.999999');

  // Swept: nothing more to do.
  await sweeper.step();
  expect(await db.uow.query(`SELECT 1 FROM platform.chain_payouts WHERE status = 'queued'`)).toEqual([]);

  // On /metrics (docs/chain.md, Metrics): four passes, the last just now; one sweep, of the whole 150.5.
  const figures = Object.fromEntries(
    (await metricsRegistry.getMetricsAsJSON()).map((m) => [
      m.name,
      m.values.find((v) => v.labels.network === 'ethereum')?.value,
    ]),
  );
  expect(figures).toMatchObject({
    mm_chain_sweep_passes_total: 4,
    mm_chain_sweeps_total: 1,
    mm_chain_swept_usdc_total: 150.5,
  });
  expect(Date.now() / 1000 - figures.mm_chain_sweep_last_pass_timestamp_seconds!).toBeLessThan(60);
});

it("looks at every address again after a process's first pass failed part way, however many blocks have passed", async () => {
  const registry = new CustodyRegistry(db.uow);
  const address = custody.address({ purpose: 'wallet', index: 2 });
  await registry.register({ purpose: 'wallet', index: 2, network: 'ethereum', address, ownerId: 'wal_2' });
  // Paid before the new process's first pass, and buried deeper than the confirmations its later passes read back.
  await devnet.mint(address, '120');
  await devnet.mine(5);
  // The new process's first pass fails once it has read the head (the database refuses its list of addresses).
  let failures = 1;
  const flaky = Object.assign(Object.create(registry) as CustodyRegistry, {
    derived: (network: 'ethereum') =>
      failures-- > 0 ? Promise.reject(new Error('the database went away')) : registry.derived(network),
  });
  const restarted = new ChainSweeper(db.uow, sweeperClient(), custody, flaky, sender, '100');
  await expect(restarted.step()).rejects.toThrow('the database went away');

  await restarted.step();
  expect(await db.uow.query(`SELECT purpose, to_address FROM platform.chain_payouts WHERE status = 'queued'`)).toEqual([
    { purpose: 'gas', to_address: address },
  ]);
});
