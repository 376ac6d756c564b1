// Runs a partner guide (docs/guides) as written, by the rules docs/guides/README.md states: every request is
// sent in order, every answer held to the one the guide shows (`# @poll` ones sent again until it matches),
// code to save is saved and commands are run in the folder of the saved files. The guides' e2e test runs
// every guide with it against a test platform; `npm run guide` runs one against a partner's own sandbox.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mismatches, substitute, type GuideStep, type HttpRequestBlock, type HttpResponseBlock } from './guides';

/** How long a `# @poll` step may take: the guides README promises "shortly"; a loaded machine gets room. */
export const POLL_TIMEOUT_MS = 60_000;

export interface GuideResponse {
  status: number;
  headers: Headers;
  body: unknown;
  text: string;
}

/** Sends a request the guide wrote (url, headers and body with its values filled in). */
export type SendRequest = (
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
) => Promise<GuideResponse>;

/** The plain sender: what a partner's HTTP client does. */
export const fetchRequest: SendRequest = async (method, url, headers, body) => {
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
};

/** One guide's run: the values it has bound so far, its folder of saved files, the programs it started. */
export class GuideRun {
  private readonly dir = mkdtempSync(join(tmpdir(), 'mm-guide-'));
  private readonly programs: Array<{ child: ChildProcess; output: () => string }> = [];
  /** Every answer's body, in order: what the guide's requests met (the guides' e2e test reads the states in it). */
  readonly answers: unknown[] = [];

  constructor(
    private readonly source: string,
    readonly bindings: Record<string, unknown>,
    private readonly env: Record<string, string>,
    private readonly send: SendRequest = fetchRequest,
  ) {}

  async run(steps: GuideStep[], source = this.source, onStep?: (where: string) => void): Promise<void> {
    for (const step of steps) {
      const where = `${source}:${step.kind === 'exchange' ? step.request.line : step.line}`;
      onStep?.(where);
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
      const headers: Record<string, string> = {};
      for (const [name, value] of request.headers) headers[name.toLowerCase()] = substitute(value, this.bindings);
      const url = substitute(request.url, this.bindings);
      const body = request.body === undefined ? undefined : substitute(request.body, this.bindings);
      const res = await this.send(request.method, url, headers, body);
      this.answers.push(res.body);
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

  private check(expected: HttpResponseBlock, res: GuideResponse): string[] {
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

/**
 * What the answers show of the platform's states and events: the status and sub-status of every transaction in
 * them (not of its legs: a leg's id is the transaction's with a suffix, `txn_….1`, and its status is the leg's),
 * and the name of every event (`event` or `eventType`: a delivery, an event of `GET /events`, an envelope).
 */
export function statesAndEventsMet(answers: unknown[]): {
  statuses: Set<string>;
  subStatuses: Set<string>;
  events: Set<string>;
} {
  const statuses = new Set<string>();
  const subStatuses = new Set<string>();
  const events = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    if (typeof o.id === 'string' && /^txn_[^.]+$/.test(o.id)) {
      if (typeof o.status === 'string') statuses.add(o.status);
      if (typeof o.subStatus === 'string') subStatuses.add(o.subStatus);
    }
    for (const key of ['event', 'eventType']) if (typeof o[key] === 'string') events.add(o[key]);
    Object.values(o).forEach(walk);
  };
  answers.forEach(walk);
  return { statuses, subStatuses, events };
}
