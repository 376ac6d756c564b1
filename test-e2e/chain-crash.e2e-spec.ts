// docs/chain.md, Payouts: a process killed between signing a payout's transfer and sending it does not pay twice.
// The platform runs against the node through a proxy that drops every broadcast: the payout's transfer is signed
// and kept, and never reaches the chain. The process that sends payouts is killed outright (SIGKILL), the one
// broadcast it tried is sent to the node by hand as if it had gone out just before the kill, and the process is
// started again on the same database, now reaching the node: it sends the kept bytes again, and the recipient is
// paid once, with the hash the API reports. In both run modes: `npm start`'s one process, and start:distributed's
// transactions service (the payouts' sender) killed and started again alone on its port.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateMnemonic } from '@scure/bip39';
import { wordlist as english } from '@scure/bip39/wordlists/english';
import { HdCustody, viem, viemAccounts, type Hex } from '@mm/platform/chain';
import { cloneTemplateDatabase, Devnet } from '@mm/platform/testing';
import { CrashRun } from './support/crash-run';
import { START_TIMEOUT_MS } from './support/distributed-processes';
import { newDataDir, start, stop, stopEverything, token, until as untilIn } from './support/platform-process';
import { BOOTSTRAP_KEY, BOOTSTRAP_SECRET } from './support/settings';

jest.setTimeout(4 * START_TIMEOUT_MS);

/** Waits up to 30 s for check to answer, naming what it waited for (and the platform's output) otherwise. */
const until = <T>(check: () => Promise<T | undefined>, what = 'the condition') => untilIn(check, 30_000, () => what);

let devnet: Devnet;
let proxy: Server;
/** While set, eth_sendRawTransaction is answered with an error and never reaches the node. */
let dropping = true;
const dropped: Hex[] = [];

beforeAll(async () => {
  devnet = await Devnet.start();
  proxy = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const call = JSON.parse(body) as { id: number; method: string; params: unknown[] };
      if (dropping && call.method === 'eth_sendRawTransaction') {
        dropped.push(call.params[0] as Hex);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ jsonrpc: '2.0', id: call.id, error: { code: -32000, message: 'dropped by the test' } }),
        );
        return;
      }
      const answer = await fetch(devnet.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await stopEverything();
  await new Promise((resolve) => proxy?.close(resolve));
  await devnet?.stop();
});

/** The platform of one run mode, as this test drives it. */
interface Launch {
  url(): string;
  token(): Promise<string>;
  /** The process that sends payouts, killed outright. */
  kill(): Promise<void>;
  /** That process started again on the same database; resolves once it answers. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The settings of a platform following the node through `rpcUrl`, with `mnemonic` as its custody seed. */
const chainSettings = (mnemonic: string, rpcUrl: string) => ({
  MM_CUSTODY_MNEMONIC: mnemonic,
  MM_CHAIN_ETHEREUM_RPC_URL: rpcUrl,
  MM_CHAIN_ETHEREUM_USDC_ADDRESS: devnet.token,
  MM_CHAIN_ETHEREUM_CONFIRMATIONS: '1',
  MM_CHAIN_POLL_INTERVAL_MS: '100',
});

it('pays a payout once when `npm start` dies between signing its transfer and sending it', async () => {
  await paysOnce(async (mnemonic, rpcUrl) => {
    const dataDir = newDataDir();
    const settings = { PORT: '0', DATABASE_URL: await cloneTemplateDatabase(), ...chainSettings(mnemonic, rpcUrl) };
    let platform = await start(dataDir, settings);
    return {
      url: () => platform.url,
      token: () => token(platform.url),
      kill: async () => {
        await stop(platform, 'SIGKILL');
      },
      restart: async () => {
        platform = await start(dataDir, settings);
      },
      stop: async () => {
        await stop(platform, 'SIGTERM');
      },
    };
  });
});

it("pays a payout once when start:distributed's transactions service dies between signing and sending", async () => {
  await paysOnce(async (mnemonic, rpcUrl) => {
    // A database of its own and the PostgreSQL log transport, as the other crash runs of start:distributed.
    // The services a wallet's payout passes through: the others would only share the machine's two cores.
    const run = await CrashRun.start('mm-chain-crash', {
      env: chainSettings(mnemonic, rpcUrl),
      services: ['accounts', 'quoting', 'transactions'],
    });
    return {
      url: () => run.platform.url,
      token: async () => {
        const res = await fetch(`${run.platform.url}/v0.13/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiKey: BOOTSTRAP_KEY, apiSecret: BOOTSTRAP_SECRET }),
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { accessToken: string }).accessToken;
      },
      kill: async () => run.kill('transactions'),
      restart: () => run.restart('transactions'),
      stop: () => run.stop(),
    };
  });
});

async function paysOnce(launch: (mnemonic: string, rpcUrl: string) => Promise<Launch>): Promise<void> {
  dropping = true;
  dropped.length = 0;
  const mnemonic = generateMnemonic(english);
  const custody = new HdCustody(mnemonic);
  const treasury = custody.address(custody.treasury('ethereum'));
  await devnet.fundGas(treasury);
  await devnet.mint(treasury, '100');
  const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const platform = await launch(mnemonic, proxied);
  let auth = await platform.token();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${platform.url()}/v0.13${path}`, {
      method,
      headers: {
        authorization: `Bearer ${auth}`,
        'content-type': 'application/json',
        'idempotency-key': crypto.randomUUID(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const customer = (
    await call('POST', '/customers', {
      type: 'individual',
      firstName: 'Ada',
      lastName: 'Lovelace',
      endorsements: ['cryptoCustody', 'usd'],
    })
  ).body;
  await until(async () => {
    const got = (await call('GET', `/customers/${customer.id}`)).body;
    return got.endorsements.every((e: { status: string }) => e.status === 'active') ? true : undefined;
  });
  const wallet = (await call('POST', `/customers/${customer.id}/wallets`, { asset: 'usdc', network: 'ethereum' })).body;
  await devnet.mint(wallet.address, '20');
  await devnet.mine(1);
  await until(async () =>
    (await call('GET', `/wallets/${wallet.id}/balance`)).body.data.balance === '20.00' ? true : undefined,
  );
  const recipient = viemAccounts.privateKeyToAccount(viemAccounts.generatePrivateKey()).address;
  const external = (
    await call('POST', '/external-accounts', {
      owner: { kind: 'customer', customerId: customer.id },
      type: 'walletExternal',
      walletExternal: { address: recipient, network: 'ethereum' },
    })
  ).body;
  await until(async () =>
    (await call('GET', `/external-accounts/${external.id}`)).body.status === 'active' ? true : undefined,
  );
  const quote = (
    await call('POST', '/quotes', {
      customerId: customer.id,
      source: { type: 'walletCrypto', details: { id: wallet.id }, amount: '7.25' },
      destination: { type: 'walletExternal', details: { id: external.id } },
    })
  ).body;
  const transaction = (await call('POST', '/transactions', { quoteId: quote.id })).body;
  expect(transaction.status).toBe('processing');

  // Signed and kept; its broadcast dropped: the process dies now.
  await until(async () => (dropped.length > 0 ? true : undefined));
  await platform.kill();
  expect(await devnet.balance(recipient)).toBe('0');
  const kept = viem.keccak256(dropped[0]);
  // As if the broadcast had gone out just before the kill.
  dropping = false;
  await devnet.reader.sendRawTransaction({ serializedTransaction: dropped[0] });

  await platform.restart();
  auth = await platform.token();
  const done = await until(async () => {
    await devnet.mine(1);
    const got = (await call('GET', `/transactions/${transaction.id}`)).body;
    return got.status === 'completed' ? got : undefined;
  });
  const payout = done.legs.find((l: { kind: string }) => l.kind === 'payout');
  expect(payout.txHash).toBe(kept);
  expect(await devnet.balance(recipient)).toBe(
    quote.pricing.destination.amountNet.replace(/0+$/, '').replace(/\.$/, ''),
  );
  const transfers = await devnet.reader.getLogs({
    address: devnet.token,
    event: viem.parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
    args: { to: recipient },
    fromBlock: 0n,
  });
  expect(transfers).toHaveLength(1);
  await platform.stop();
}
