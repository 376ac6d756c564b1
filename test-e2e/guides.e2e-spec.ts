// The partner guides (docs/guides) run as written: every request of every guide
// is sent, in order, against the running platform, and every answer is held to
// the response the guide shows, by the rules docs/guides/README.md states. Each
// guide runs in a project of its own (its own sandbox clock), after the README's
// own steps (the access token), with the banner's values a partner would copy.
// Code a guide says to save is saved, and its commands run (the webhook receiver
// is the guide's own program), so neither can go stale. In both modes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fencedBlocks,
  mismatches,
  parseGuide,
  substitute,
  type GuideStep,
  type HttpRequestBlock,
  type HttpResponseBlock,
} from '@mm/platform/testing';
import { ADMIN_TOKEN, START_TIMEOUT_MS, TestPlatform, type Response } from './support/test-platform';

const ROOT = join(__dirname, '..');
const GUIDES = join(ROOT, 'docs', 'guides');
const GUIDE_FILES = readdirSync(GUIDES)
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .sort();
/** How long a `# @poll` step may take: the guides README promises "shortly"; a loaded machine gets room. */
const POLL_TIMEOUT_MS = 60_000;

/** A port free now, for a program the guide starts (it cannot tell us one it picked). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One guide's run: the values it has bound so far, its folder of saved files, the programs it started. */
class GuideRun {
  private readonly dir = mkdtempSync(join(tmpdir(), 'mm-guide-'));
  private readonly programs: Array<{ child: ChildProcess; output: () => string }> = [];

  constructor(
    private readonly platform: TestPlatform,
    private readonly source: string,
    readonly bindings: Record<string, unknown>,
    private readonly env: Record<string, string>,
  ) {}

  async run(steps: GuideStep[], source = this.source): Promise<void> {
    for (const step of steps) {
      const where = `${source}:${step.kind === 'exchange' ? step.request.line : step.line}`;
      try {
        if (step.kind === 'exchange') await this.exchange(step.request, step.response);
        else if (step.kind === 'file') writeFileSync(join(this.dir, step.fileName), step.code);
        else await this.shell(step.code, step.keepsRunning);
      } catch (error) {
        throw new Error(`${where}: ${(error as Error).message}${this.programOutput()}`);
      }
    }
  }

  async stop(): Promise<void> {
    for (const { child } of this.programs) {
      if (child.exitCode === null && child.pid) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        process.kill(-child.pid, 'SIGTERM');
        await exited;
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private programOutput(): string {
    return this.programs.map((p) => `\n--- output of a program the guide started:\n${p.output()}`).join('');
  }

  private async exchange(request: HttpRequestBlock, response: HttpResponseBlock): Promise<void> {
    const deadline = Date.now() + POLL_TIMEOUT_MS;
    for (;;) {
      const res = await this.send(request);
      const problems = this.check(response, res);
      if (problems.length === 0) {
        if (request.name) this.bindings[request.name] = res.body;
        return;
      }
      if (!request.poll || Date.now() > deadline) {
        const what = `${request.method} ${request.url} answered ${res.status} ${res.text.slice(0, 2000)}`;
        throw new Error(
          `${request.poll ? `after ${POLL_TIMEOUT_MS / 1000} s of polling, ` : ''}${what}\nwhere the guide shows otherwise:\n  ${problems.join('\n  ')}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private async send(request: HttpRequestBlock): Promise<Response> {
    const url = substitute(request.url, this.bindings);
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) headers[name.toLowerCase()] = substitute(value, this.bindings);
    const body = request.body === undefined ? undefined : substitute(request.body, this.bindings);
    if (url.startsWith(`${this.platform.url}/`)) {
      // Through the test platform's client: a 500 or a leaked account number fails the run as in every e2e file.
      const { 'idempotency-key': idempotencyKey, ...rest } = headers;
      return this.platform.request(request.method, url.slice(this.platform.url.length), {
        headers: rest,
        rawBody: body,
        token: null,
        idempotencyKey: idempotencyKey ?? null,
      });
    }
    const res = await fetch(url, { method: request.method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  private check(expected: HttpResponseBlock, res: Response): string[] {
    const problems: string[] = [];
    if (res.status !== expected.status) problems.push(`status: expected ${expected.status}, got ${res.status}`);
    for (const [name, value] of expected.headers)
      problems.push(...mismatches(substitute(value, this.bindings), res.headers.get(name), `header ${name}`));
    if (expected.body !== undefined) {
      const shown = substitute(expected.body, this.bindings);
      let documented: unknown;
      try {
        documented = JSON.parse(shown);
      } catch {
        return [
          ...problems,
          ...(res.text.trim() === shown.trim()
            ? []
            : [`body: expected ${JSON.stringify(shown)}, got ${JSON.stringify(res.text)}`]),
        ];
      }
      problems.push(...mismatches(documented, res.body));
    }
    return problems;
  }

  private async shell(code: string, keepsRunning: boolean): Promise<void> {
    const script = substitute(code, this.bindings);
    // A process group of its own, so that stop() ends the program the command started with it.
    const child = spawn('bash', ['-c', `set -euo pipefail\n${script}`], {
      cwd: this.dir,
      env: { ...process.env, ...this.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    if (keepsRunning) {
      this.programs.push({ child, output: () => out });
      // Started once it says so: its first line of output.
      const started = new Promise<void>((resolve) => child.stdout.on('data', () => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise((resolve) => (timer = setTimeout(() => resolve('printed nothing in 30 s'), 30_000)));
      const outcome = await Promise.race([
        started.then(() => 'started'),
        exited.then((c) => `exited with ${c}`),
        silent,
      ]).finally(() => clearTimeout(timer));
      if (outcome !== 'started') throw new Error(`the command that keeps running ${outcome}`);
      return;
    }
    const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGTERM'), 60_000);
    const status = await exited.finally(() => clearTimeout(timer));
    if (status !== 0) throw new Error(`the command exited with ${status}:\n${script}\n${out}`);
  }
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
    const [funded, balance, bank] = stdout
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
        platform,
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
      );
      try {
        await run.run(readme.steps, 'docs/guides/README.md');
        await run.run(guide.steps);
      } finally {
        await run.stop();
      }
    },
    300_000,
  );
});
