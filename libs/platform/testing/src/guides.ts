// The executable format of the partner guides (docs/guides/README.md states it
// for readers): each guide is read as a sequence of steps, in document order,
// that a test runs against the platform. The format is for people first:
// requests and responses are written as HTTP messages, and every rule the test
// applies is one a reader can apply by eye.
//
//   ```http                      a request: optional `# @name <name>` (its JSON answer is bound to
//   # @name customer             that name) and `# @poll` (send it again until the answer matches)
//   POST {{api}}/customers       lines, then the request line, headers, a blank line, the body
//   ...
//   ```
//   ```http                      its response: the status line, optional headers, the JSON body
//   HTTP/1.1 201 Created         (what is shown must match; what is not shown is not checked)
//   ...
//   ```
//   ```js                        a file to save: the first line is a comment naming it
//   // receiver.cjs
//   ```
//   ```sh                        a command to run in the folder of the saved files; `# keeps running`
//   ```                          marks one that starts a server (the next steps run beside it)
//
// Blocks of any other language (json, text) are illustrations and are not run.
import { randomUUID } from 'node:crypto';

export interface HttpRequestBlock {
  kind: 'request';
  line: number;
  /** The name its JSON answer is bound to (`# @name`). */
  name?: string;
  /** Sent again until its answer matches the response shown (`# @poll`). */
  poll: boolean;
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: string;
}

export interface HttpResponseBlock {
  kind: 'response';
  line: number;
  status: number;
  headers: Array<[string, string]>;
  body?: string;
}

export interface FileBlock {
  kind: 'file';
  line: number;
  fileName: string;
  code: string;
}

export interface ShellBlock {
  kind: 'shell';
  line: number;
  code: string;
  /** Starts a program that keeps running: the next steps run beside it. */
  keepsRunning: boolean;
}

export type GuideStep =
  { kind: 'exchange'; request: HttpRequestBlock; response: HttpResponseBlock } | FileBlock | ShellBlock;

export interface Guide {
  title: string;
  steps: GuideStep[];
}

interface Fence {
  lang: string;
  line: number;
  text: string;
}

/** Every fenced code block of a Markdown document, with its language and 1-based line. */
export function fencedBlocks(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const blocks: Fence[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]);
    if (!open) continue;
    const fence = open[2];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) body.push(lines[j++]);
    blocks.push({ lang: open[3].toLowerCase(), line: i + 1, text: body.join('\n') });
    i = j;
  }
  return blocks;
}

function splitMessage(text: string): { head: string[]; body?: string } {
  const lines = text.split('\n');
  const blank = lines.findIndex((l) => l.trim() === '');
  if (blank === -1) return { head: lines };
  const body = lines
    .slice(blank + 1)
    .join('\n')
    .trim();
  return { head: lines.slice(0, blank), body: body === '' ? undefined : body };
}

function header(line: string, where: string): [string, string] {
  const colon = line.indexOf(':');
  if (colon <= 0) throw new Error(`${where}: "${line}" is not a header line (Name: value)`);
  return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
}

function parseHttp(text: string, line: number, where: string): HttpRequestBlock | HttpResponseBlock {
  const all = text.split('\n');
  const directives: string[] = [];
  let start = 0;
  while (start < all.length && (all[start].startsWith('#') || all[start].trim() === '')) {
    if (all[start].startsWith('#')) directives.push(all[start]);
    start++;
  }
  const { head, body } = splitMessage(all.slice(start).join('\n'));
  const [first, ...rest] = head;
  if (!first) throw new Error(`${where}: an empty http block`);
  const headers = rest.map((l) => header(l, where));
  const status = /^HTTP\/[\d.]+ (\d{3})\b/.exec(first);
  if (status) {
    if (directives.length > 0) throw new Error(`${where}: a response takes no # lines`);
    return { kind: 'response', line, status: Number(status[1]), headers, body };
  }
  const request = /^(GET|POST|PATCH|PUT|DELETE) (\S+)$/.exec(first);
  if (!request)
    throw new Error(`${where}: "${first}" is neither a request line (METHOD url) nor a status line (HTTP/1.1 200 OK)`);
  let name: string | undefined;
  let poll = false;
  for (const d of directives) {
    const named = /^# @name ([A-Za-z][\w]*)$/.exec(d);
    if (named) name = named[1];
    else if (/^# @poll\b/.test(d)) poll = true;
    else if (d.startsWith('# @')) throw new Error(`${where}: unknown directive "${d}" (# @name <name>, # @poll)`);
  }
  return { kind: 'request', line, name, poll, method: request[1], url: request[2], headers, body };
}

/** A guide's steps in document order: each request with the response that follows it, files to save, commands to run. */
export function parseGuide(markdown: string, source = 'guide'): Guide {
  const title = /^# (.+)$/m.exec(markdown)?.[1] ?? source;
  const steps: GuideStep[] = [];
  let pending: HttpRequestBlock | undefined;
  for (const block of fencedBlocks(markdown)) {
    const where = `${source}:${block.line}`;
    if (block.lang === 'http') {
      const parsed = parseHttp(block.text, block.line, where);
      if (parsed.kind === 'request') {
        if (pending)
          throw new Error(
            `${source}:${pending.line}: a request without its response (an http block starting HTTP/1.1 …) after it`,
          );
        pending = parsed;
      } else {
        if (!pending) throw new Error(`${where}: a response with no request before it`);
        steps.push({ kind: 'exchange', request: pending, response: parsed });
        pending = undefined;
      }
      continue;
    }
    if (pending)
      throw new Error(
        `${source}:${pending.line}: a request without its response (an http block starting HTTP/1.1 …) right after it`,
      );
    if (block.lang === 'js' || block.lang === 'javascript' || block.lang === 'ts' || block.lang === 'typescript') {
      const named = /^\/\/ ([\w.-]+\.(?:c?js|mjs|ts))\s*$/.exec(block.text.split('\n')[0]);
      if (!named)
        throw new Error(`${where}: a code block to save starts with a comment naming its file (// receiver.cjs)`);
      steps.push({ kind: 'file', line: block.line, fileName: named[1], code: block.text + '\n' });
    } else if (block.lang === 'sh' || block.lang === 'bash' || block.lang === 'shell') {
      steps.push({
        kind: 'shell',
        line: block.line,
        code: block.text,
        keepsRunning: /^# keeps running\b/m.test(block.text),
      });
    }
  }
  if (pending) throw new Error(`${source}:${pending.line}: a request without its response after it`);
  return { title, steps };
}

/** The value at a dotted path (`customer.id`, `txn.legs.0.status`) of the bindings. */
export function lookup(bindings: Record<string, unknown>, path: string): unknown {
  let value: unknown = bindings;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !(part in (value as object))) {
      throw new Error(
        `{{${path}}}: ${part === path.split('.')[0] ? `no value named ${part} yet` : `no ${part} in it`}`,
      );
    }
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Replaces every `{{name.path}}` with its value, and `{{$uuid}}` with a fresh UUID. */
export function substitute(text: string, bindings: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([$\w.]+)\s*\}\}/g, (_all, path: string) => {
    if (path === '$uuid') return randomUUID();
    const value = lookup(bindings, path);
    if (value === null || typeof value === 'object')
      throw new Error(`{{${path}}} is ${JSON.stringify(value)}, not a single value`);
    return String(value);
  });
}

const ANY = '…';

/**
 * Where the actual value differs from the documented one, by the guides' rules: a JSON object shows the
 * fields that matter (others are not checked); `"…"` stands for any value but null; a string ending in `…`
 * for any string that starts with what comes before it (`"cst_…"`: any customer id); an array matches
 * element by element, and one whose last element is `"…"` may go on with more. Empty: it matches.
 */
export function mismatches(expected: unknown, actual: unknown, path = 'body'): string[] {
  if (typeof expected === 'string' && expected === ANY)
    return actual === null || actual === undefined ? [`${path}: expected a value, got ${JSON.stringify(actual)}`] : [];
  if (typeof expected === 'string' && expected.endsWith(ANY)) {
    const prefix = expected.slice(0, -ANY.length);
    return typeof actual === 'string' && actual.startsWith(prefix)
      ? []
      : [`${path}: expected a string starting ${JSON.stringify(prefix)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`];
    const open = expected.length > 0 && expected[expected.length - 1] === ANY;
    const shown = open ? expected.slice(0, -1) : expected;
    if (open ? actual.length < shown.length : actual.length !== shown.length) {
      return [
        `${path}: expected ${open ? 'at least ' : ''}${shown.length} elements, got ${actual.length}: ${JSON.stringify(actual)}`,
      ];
    }
    return shown.flatMap((e, i) => mismatches(e, actual[i], `${path}[${i}]`));
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([key, e]) =>
      key in actual
        ? mismatches(e, (actual as Record<string, unknown>)[key], `${path}.${key}`)
        : [`${path}.${key}: missing`],
    );
  }
  return Object.is(expected, actual)
    ? []
    : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
