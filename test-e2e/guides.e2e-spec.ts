// The partner guides (docs/guides) run as written: every request of every guide
// is sent, in order, against the running platform, and every answer is held to
// the response the guide shows, by the rules docs/guides/README.md states. Each
// guide runs in a project of its own (its own sandbox clock), after the README's
// own steps (the access token), with the banner's values a partner would copy.
// Code a guide says to save is saved, and its commands run (the webhook receiver
// is the guide's own program), so neither can go stale. The transaction states
// and events the requests meet must be among those the guide names. In both modes.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  fencedBlocks,
  fetchRequest,
  GUIDE_FLOWS,
  GuideRun,
  mismatches,
  parseGuide,
  statesAndEventsMet,
  type SendRequest,
} from '@mm/platform/testing';
import { ADMIN_TOKEN, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

const ROOT = join(__dirname, '..');
const GUIDES = join(ROOT, 'docs', 'guides');
const GUIDE_FILES = readdirSync(GUIDES)
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .sort();

/** A port free now, for a program the guide starts (it cannot tell us one it picked). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Requests to the platform go through the test platform's client: a 500 or a leaked account number fails the
 * run as in every e2e file. Others (the guide's own receiver) go as a partner's client sends them.
 */
function sender(platform: TestPlatform): SendRequest {
  return (method, url, headers, body) => {
    if (!url.startsWith(`${platform.url}/`)) return fetchRequest(method, url, headers, body);
    const { 'idempotency-key': idempotencyKey, ...rest } = headers;
    return platform.request(method, url.slice(platform.url.length), {
      headers: rest,
      rawBody: body,
      token: null,
      idempotencyKey: idempotencyKey ?? null,
    });
  };
}

describe('the guides run as written', () => {
  let platform: TestPlatform;
  const readme = parseGuide(readFileSync(join(GUIDES, 'README.md'), 'utf8'), 'docs/guides/README.md');

  beforeAll(async () => {
    platform = await TestPlatform.shared();
  }, START_TIMEOUT_MS);
  afterAll(() => platform?.stop());

  it('has a guide for each flow, and every guide is listed in the guides README', () => {
    expect(GUIDE_FILES).toEqual([
      'card-buy-and-sell.md',
      'cash-in.md',
      'cash-pickup.md',
      'deposit-address.md',
      'failures-and-refunds.md',
      'pay-out-to-a-bank-account.md',
      'sandbox-clock.md',
      'webhooks.md',
    ]);
    const index = readFileSync(join(GUIDES, 'README.md'), 'utf8');
    for (const file of GUIDE_FILES) expect(index).toContain(`](${file})`);
  });

  it("runs the README's first example as written, with the banner's three values filled in", async () => {
    const block = fencedBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')).find(
      (b) => b.lang === 'sh' && /^API=</m.test(b.text),
    );
    expect(block).toBeDefined();
    const project = await platform.newProject('guide README example');
    const script = block!.text
      .replace(/^API=<[^>\n]*>$/m, `API='${platform.url}/v0.13'`)
      .replace(/^API_KEY=<[^>\n]*>$/m, `API_KEY='${project.apiKey}'`)
      .replace(/^API_SECRET=<[^>\n]*>$/m, `API_SECRET='${project.apiSecret}'`);
    // The banner's three lines, and nothing else, are left to the reader.
    expect(script.match(/<[^>\n]*>/g) ?? []).toEqual([]);
    const { status, stdout, stderr } = await new Promise<{ status: number | null; stdout: string; stderr: string }>(
      (resolve) => {
        const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.once('exit', (code) => resolve({ status: code, stdout: out, stderr: err }));
      },
    );
    expect({ status, stderr }).toEqual({ status: 0, stderr: '' });
    const [funded, balance, bank, payout] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(mismatches({ data: { asset: 'usdc', network: 'meridianchain', balance: '100.00' } }, funded)).toEqual([]);
    expect(
      mismatches(
        { data: { customerId: 'cst_…', estimatedBalanceValue: '100.00', estimatedBalanceCurrencyCode: 'USD' } },
        balance,
      ),
    ).toEqual([]);
    expect(
      mismatches(
        {
          id: 'ext_…',
          object: 'externalAccount',
          type: 'bankUs',
          status: 'pending',
          details: { accountNumberLast4: '9012' },
        },
        bank,
      ),
    ).toEqual([]);
    expect(
      mismatches(
        {
          id: 'txn_…',
          status: 'completed',
          legs: [{ kind: 'payout', rail: 'ach', asset: 'usd', amount: '25.00', status: 'settled' }],
        },
        payout,
      ),
    ).toEqual([]);
  });

  it.each(GUIDE_FILES)(
    '%s',
    async (file) => {
      const source = `docs/guides/${file}`;
      const guide = parseGuide(readFileSync(join(GUIDES, file), 'utf8'), source);
      expect(guide.steps.length).toBeGreaterThan(0);
      // What the banner prints, for a project of the guide's own.
      const project = await platform.newProject(`guide ${file}`);
      const receiverPort = await freePort();
      const run = new GuideRun(
        source,
        {
          api: `${platform.url}/v0.13`,
          apiKey: project.apiKey,
          apiSecret: project.apiSecret,
          projectId: project.projectId,
          adminToken: ADMIN_TOKEN,
          webhookUrl: `http://127.0.0.1:${receiverPort}/webhooks`,
        },
        { RECEIVER_PORT: String(receiverPort) },
        sender(platform),
      );
      try {
        await run.run(readme.steps, 'docs/guides/README.md');
        await run.run(guide.steps);
      } finally {
        await run.stop();
      }
      // What the guide's requests met is what it must name (the guide flows table, held to the guide's
      // text by a unit test): a transaction status or sub-status, or an event, met on the way and missing
      // there fails here.
      const flow = GUIDE_FLOWS[file];
      const met = statesAndEventsMet(run.answers);
      const named = (list: readonly string[] | 'all', name: string) => list === 'all' || list.includes(name);
      expect({
        statuses: [...met.statuses].filter((n) => !flow.statuses.includes(n)),
        subStatuses: [...met.subStatuses].filter((n) => !named(flow.subStatuses, n)),
        events: [...met.events].filter((n) => !flow.events.includes(n)),
      }).toEqual({ statuses: [], subStatuses: [], events: [] });
    },
    300_000,
  );
});
