// "on-chain deposits" in `npm run bench` (issue 45): a thousand USDC transfers to custodial wallets' addresses
// mined in one block of a local hardhat node, and the time from the block until the platform has credited them
// all (its chain watcher reads the block's logs, finds the wallets and posts each credit, one transaction for
// the block), beside a raw viem log reader on the same node reading and decoding the same block's logs and
// matching them against the same addresses in memory. Each round is a new block of its own; the figures are
// transfers a second, and their ratio.
// The section runs a platform of its own (ethereum on the node, one confirmation, the watcher polling every
// 50 ms) on a database of its own in the same PostgreSQL cluster: the other sections' platform keeps every
// network simulated, as their flows expect.
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { Client } from 'pg';
import { testUsdc, viem, viemAccounts, type Address, type Hex } from '@mm/platform/chain';
import { DEV_ACCOUNTS, Devnet } from '@mm/platform/testing';

export const CHAIN_SCENARIO = 'on-chain deposits';

const TRANSFERS = 1000;
const WALLETS = 100;
const AMOUNT = '1.000001';
const DATABASE = 'mm_bench_chain';

export interface ChainPlatform {
  api: string;
  adminToken: string;
  token: string;
  stop(): Promise<void>;
}

export async function benchChainDeposits(o: {
  databaseUrl: string;
  rounds: number;
  startPlatform: (env: Record<string, string>) => Promise<ChainPlatform>;
}): Promise<void> {
  const devnet = await Devnet.start();
  const admin = new Client({ connectionString: o.databaseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DATABASE}`);
  const url = new URL(o.databaseUrl);
  url.pathname = `/${DATABASE}`;
  let platform: ChainPlatform | undefined;
  try {
    platform = await o.startPlatform({
      ...devnet.settings('ETHEREUM', 1),
      DATABASE_URL: url.toString(),
      MM_CUSTODY_MNEMONIC: generateMnemonic(english),
      MM_CHAIN_POLL_INTERVAL_MS: '50',
      // What is measured is detection and crediting: no wallet here reaches a sweep (docs/chain.md, Sweeps).
      MM_CHAIN_SWEEP_THRESHOLD: '1000000000',
    });
    const addresses = await wallets(platform);
    const ours = new Set(addresses.map((a) => a.toLowerCase()));
    process.stdout.write(
      `\n${CHAIN_SCENARIO}: ${TRANSFERS} USDC transfers to ${WALLETS} custodial wallets mined in one block, credited ` +
        `(platform: its chain watcher, one confirmation, polling every 50 ms) beside a raw viem log reader ` +
        `reading and matching the same block; ${o.rounds} rounds (BENCH_ROUNDS), each a block of its own\n`,
    );
    const line = (cells: string[]) =>
      process.stdout.write(cells.map((c, i) => (i === 0 ? c.padEnd(40) : c.padStart(14))).join('') + '\n');
    line(['round', 'raw ms', 'platform ms', 'platform/s', 'ratio']);
    const ratios: number[] = [];
    for (let round = 1; round <= o.rounds; round++) {
      const block = await oneBlockOfTransfers(devnet, addresses);
      const mined = performance.now();
      // The raw reader: the block's Transfer logs, decoded, matched against the wallets' addresses.
      const rawStart = performance.now();
      const logs = await devnet.reader.getLogs({
        address: devnet.token,
        event: viem.parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
        fromBlock: block,
        toBlock: block,
      });
      const matched = logs.filter((l) => ours.has(String(l.args.to).toLowerCase())).length;
      const rawMs = performance.now() - rawStart;
      if (matched !== TRANSFERS) throw new Error(`the raw reader matched ${matched} of ${TRANSFERS} transfers`);
      await credited(platform, block);
      const platformMs = performance.now() - mined;
      ratios.push(rawMs / platformMs);
      line([
        String(round),
        rawMs.toFixed(0),
        platformMs.toFixed(0),
        ((TRANSFERS / platformMs) * 1000).toFixed(0),
        (rawMs / platformMs).toFixed(3),
      ]);
    }
    const total = await creditedTotal(url.toString());
    const expected = Number(AMOUNT) * TRANSFERS * o.rounds;
    if (Math.abs(total - expected) > 1e-6) throw new Error(`credited ${total} USDC, expected ${expected}`);
    process.stdout.write(
      `"ratio" is transfers a second credited by the platform over transfers a second read by the raw reader ` +
        `(median ${median(ratios).toFixed(3)}); the platform's time runs from the block's mining, its poll ` +
        `interval included; every transfer was credited once (${total.toFixed(6)} USDC in all)\n`,
    );
  } finally {
    await platform?.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${DATABASE} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await devnet.stop();
  }
}

/** WALLETS customers (cryptoCustody), each with a USDC wallet on ethereum: their addresses. */
async function wallets(platform: ChainPlatform): Promise<string[]> {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${platform.api}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${platform.token}`,
        'content-type': 'application/json',
        'idempotency-key': crypto.randomUUID(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const customers = await Promise.all(
    Array.from({ length: WALLETS }, (_, i) =>
      call<{ id: string }>('POST', '/customers', {
        type: 'individual',
        firstName: 'Chain',
        lastName: `Bench${i}`,
        endorsements: ['cryptoCustody'],
      }),
    ),
  );
  const addresses: string[] = [];
  for (const customer of customers) {
    for (;;) {
      const got = await call<{ endorsements: Array<{ status: string }> }>('GET', `/customers/${customer.id}`);
      if (got.endorsements.every((e) => e.status === 'active')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const wallet = await call<{ address: string }>('POST', `/customers/${customer.id}/wallets`, {
      asset: 'usdc',
      network: 'ethereum',
    });
    addresses.push(wallet.address);
  }
  return addresses;
}

/** TRANSFERS mints of the token, spread over the addresses, in one block: the block's number. */
async function oneBlockOfTransfers(devnet: Devnet, addresses: string[]): Promise<bigint> {
  const minter = viemAccounts.privateKeyToAccount(DEV_ACCOUNTS[0].privateKey);
  const nonce = await devnet.reader.getTransactionCount({ address: minter.address, blockTag: 'pending' });
  const fees = await devnet.reader.estimateFeesPerGas();
  const value = viem.parseUnits(AMOUNT, 6);
  const signed: Hex[] = [];
  for (let i = 0; i < TRANSFERS; i++) {
    signed.push(
      await minter.signTransaction({
        type: 'eip1559',
        chainId: 31337,
        nonce: nonce + i,
        to: devnet.token,
        data: viem.encodeFunctionData({
          abi: testUsdc.abi,
          functionName: 'mint',
          args: [addresses[i % addresses.length] as Address, value],
        }),
        gas: 80_000n,
        maxFeePerGas: fees.maxFeePerGas * 2n,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      }),
    );
  }
  await devnet.automine(false);
  try {
    for (let i = 0; i < signed.length; i += 50)
      await Promise.all(
        signed.slice(i, i + 50).map((tx) => devnet.reader.sendRawTransaction({ serializedTransaction: tx })),
      );
    await devnet.mine(1);
  } finally {
    await devnet.automine(true);
  }
  const block = await devnet.reader.getBlock({ blockTag: 'latest' });
  if (block.transactions.length !== TRANSFERS)
    throw new Error(`the block holds ${block.transactions.length} transactions, not ${TRANSFERS}`);
  return block.number;
}

/** Resolves once the platform's wallets watcher has credited through the block. */
async function credited(platform: ChainPlatform, block: bigint): Promise<void> {
  for (;;) {
    const response = await fetch(`${platform.api}/admin/chains`, {
      headers: { authorization: `Bearer ${platform.adminToken}` },
    });
    const { data } = (await response.json()) as { data: Array<{ network: string; confirmedThrough: number | null }> };
    const ethereum = data.find((n) => n.network === 'ethereum');
    if (ethereum?.confirmedThrough !== null && BigInt(ethereum!.confirmedThrough!) >= block) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function creditedTotal(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ total: string }>(
      `SELECT coalesce(sum(balance), 0) AS total FROM accounts.wallets WHERE network = 'ethereum'`,
    );
    return Number(rows[0].total);
  } finally {
    await client.end();
  }
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
