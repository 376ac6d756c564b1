// The chain sender on a real PostgreSQL and a local EVM node (docs/chain.md): twenty payouts submitted at
// once take twenty consecutive nonces and land once each to the unit; a process that kept its signature and
// died before sending is followed by another that sends those very bytes, once; a payout not mined in time
// is replaced on its nonce at higher fees, and only one transfer lands.
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { loadConfig } from '@mm/platform/config';
import { ChainClient, ChainSender, HdCustody, viemAccounts, type PayoutOutcome } from '@mm/platform/chain';
import { createTestDatabase, type TestDatabase } from '../test-database';
import { Devnet } from './devnet';

jest.setTimeout(120_000);

let devnet: Devnet;
let db: TestDatabase;
let client: ChainClient;
const custody = new HdCustody(generateMnemonic(english));
const recorded: PayoutOutcome[] = [];
const senders: ChainSender[] = [];

beforeAll(async () => {
  [devnet, db] = await Promise.all([Devnet.start(), createTestDatabase()]);
  const config = loadConfig({ ...devnet.settings('ETHEREUM', 2) });
  client = new ChainClient(config.chains.ethereum!);
  const treasury = custody.address(custody.treasury('ethereum'));
  await devnet.fundGas(treasury);
  await devnet.mint(treasury, '1000');
});
afterAll(async () => {
  for (const sender of senders) await sender.stop();
  await db?.close();
  await devnet?.stop();
});

/** A sender as one process would run it: not polling, stepped by the test. */
async function newSender(replaceAfterMs = 60_000): Promise<ChainSender> {
  const sender = new ChainSender(db.uow, client, custody, async (outcome) => void recorded.push(outcome), {
    pollMs: 60_000,
    replaceAfterMs,
  });
  await sender.start();
  await sender.stop();
  senders.push(sender);
  return sender;
}
const recipient = () => viemAccounts.privateKeyToAccount(viemAccounts.generatePrivateKey()).address;
const payout = (id: string, to: string, amount: string) => ({
  id,
  purpose: 'payout' as const,
  network: 'ethereum' as const,
  to,
  amount,
  context: { test: id },
});
type Landed = Extract<PayoutOutcome, { txHash: unknown }>;
/** The outcome of the payout's transfer that landed, once recorded. */
const landedOf = (id: string) => recorded.find((r): r is Landed => r.id === id && r.kind !== 'unconfirmed');
/** Steps the sender, mining as it goes, until every payout it follows has landed. */
async function settle(sender: ChainSender, ids: string[]): Promise<void> {
  while (!ids.every((id) => landedOf(id))) {
    await sender.step();
    await devnet.mine(1);
  }
}

it('gives twenty payouts submitted at once twenty consecutive nonces, and lands each once, to the unit', async () => {
  const sender = await newSender();
  const to = Array.from({ length: 20 }, recipient);
  const ids = to.map((_, i) => `concurrent-${i}`);
  await Promise.all(ids.map((id, i) => sender.submit(payout(id, to[i], `1.00000${i % 10}`))));
  const nonces = (
    await db.uow.query<{ nonce: string }>(
      `SELECT nonce FROM platform.chain_payouts WHERE id = ANY($1) ORDER BY nonce`,
      [ids],
    )
  ).map((r) => Number(r.nonce));
  expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => nonces[0] + i));
  await settle(sender, ids);
  for (const [i, address] of to.entries()) expect(await devnet.balance(address)).toBe(String(1 + (i % 10) / 1e6));
  const landed = ids.map((id) => landedOf(id)!);
  expect(landed.map((r) => r.kind)).toEqual(Array(20).fill('confirmed'));
  // Mined in time: none was ever reported unconfirmed.
  expect(recorded.filter((r) => ids.includes(r.id) && r.kind === 'unconfirmed')).toEqual([]);
  // Each outcome names a transfer the chain holds, from the treasury at its payout's nonce.
  for (const outcome of landed) {
    const tx = await devnet.reader.getTransaction({ hash: outcome.txHash });
    const [row] = await db.uow.query<{ nonce: string }>(`SELECT nonce FROM platform.chain_payouts WHERE id = $1`, [
      outcome.id,
    ]);
    expect(tx.nonce).toBe(Number(row.nonce));
  }
});

it('sends the kept signature of a process that died before sending it: one transfer', async () => {
  const dead = await newSender();
  const to = recipient();
  await dead.submit(payout('killed-before-broadcast', to, '3.25'));
  await dead.signQueued();
  const [{ attempts }] = await db.uow.query<{ attempts: Array<{ hash: string }> }>(
    `SELECT attempts FROM platform.chain_payouts WHERE id = 'killed-before-broadcast'`,
  );
  expect(attempts).toHaveLength(1);
  expect(await devnet.balance(to)).toBe('0');
  // The next process (or the dead one's replacement) follows it; the dead one's own step, were it to resume, too.
  const next = await newSender();
  await settle(next, ['killed-before-broadcast']);
  await dead.step();
  await devnet.mine(3);
  expect(await devnet.balance(to)).toBe('3.25');
  expect(landedOf('killed-before-broadcast')?.txHash).toBe(attempts[0].hash);
});

it('replaces a payout not mined in time on its nonce at higher fees, and only one transfer lands', async () => {
  const sender = await newSender(0);
  const to = recipient();
  await devnet.automine(false);
  try {
    await sender.submit(payout('stuck', to, '4.5'));
    await sender.step();
    await sender.step();
    await sender.step();
  } finally {
    await devnet.automine(true);
  }
  const [row] = await db.uow.query<{ attempts: Array<{ hash: string; maxFeePerGas: string }> }>(
    `SELECT attempts FROM platform.chain_payouts WHERE id = 'stuck'`,
  );
  expect(row.attempts.length).toBeGreaterThanOrEqual(2);
  const fees = row.attempts.map((a) => BigInt(a.maxFeePerGas));
  expect(fees.every((fee, i) => i === 0 || fee > fees[i - 1])).toBe(true);
  // Its owner heard once, at the first replacement, that it is unconfirmed; the lookup says it may still land.
  expect(recorded.filter((r) => r.id === 'stuck').map((r) => r.kind)).toEqual(['unconfirmed']);
  expect(await sender.lookup('stuck')).toEqual({
    kind: 'underWay',
    nonce: expect.any(Number),
    signatures: row.attempts.length,
  });
  await settle(sender, ['stuck']);
  expect(await devnet.balance(to)).toBe('4.5');
  const outcome = landedOf('stuck')!;
  expect(row.attempts.map((a) => a.hash)).toContain(outcome.txHash);
  expect(recorded.filter((r) => r.id === 'stuck').map((r) => r.kind)).toEqual(['unconfirmed', 'confirmed']);
  expect(await sender.lookup('stuck')).toEqual({ kind: 'landed', status: 'confirmed', txHash: outcome.txHash });
  expect(await sender.lookup('no-such-payout')).toEqual({ kind: 'unknown' });
});
