// The signature checks the webhook docs show (docs/webhooks.md in Python, Go, Java and Ruby; the guide's
// Node.js one) verify the spec's scheme (Events / Delivery and verification 2: `t=<unix>,v1=<hex>`, an
// HMAC-SHA256 over `<t>.<raw body>`, stale timestamps refused): each runs, as written, against a delivery the
// platform's own signer signed, and refuses a tampered body, a tampered signature, a stale timestamp and a
// malformed header with the same reason as the others. A language not installed here is skipped, saying so.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { signWebhookPayload } from '@mm/contracts';
import { fencedBlocks } from '@mm/platform/testing';

const DOCS = join(__dirname, '..', '..', 'docs');

interface Sample {
  language: string;
  /** The program the language needs on the PATH. */
  runtime: string;
  /** The file the sample names on its first line, and its code. */
  file: string;
  code: string;
}

/** The sample of `lang` in `page`: the fenced block whose first line is a comment naming its file. */
function sample(page: string, lang: string, language: string, runtime: string): Sample {
  const block = fencedBlocks(readFileSync(join(DOCS, page), 'utf8')).find((b) => b.lang === lang);
  if (!block) throw new Error(`${page} has no ${lang} block`);
  const file = /^(?:\/\/|#)\s*(\S+)/.exec(block.text)?.[1];
  if (!file) throw new Error(`the ${lang} block of ${page} does not name its file on its first line`);
  return { language, runtime, file, code: block.text };
}

/** A program beside the sample that calls it as a receiver would: `verified`, or `refused: <reason>` and 1. */
const HARNESSES: Record<string, { files: Record<string, string>; build?: string[][]; run: string[] }> = {
  node: {
    files: {
      'check.cjs': `const fs = require('node:fs');
const { verifyWebhook } = require('./verify-webhook.cjs');
try { verifyWebhook(fs.readFileSync(process.argv[2], 'utf8'), process.env.SIGNATURE, process.env.SIGNING_KEY); console.log('verified'); }
catch (error) { console.log('refused: ' + error.message); process.exit(1); }`,
    },
    run: ['node', 'check.cjs'],
  },
  python3: {
    files: {
      'check.py': `import os, sys
from verify_webhook import verify_webhook
try:
    verify_webhook(open(sys.argv[1], "rb").read(), os.environ["SIGNATURE"], os.environ["SIGNING_KEY"])
    print("verified")
except ValueError as error:
    print("refused: " + str(error))
    sys.exit(1)`,
    },
    run: ['python3', 'check.py'],
  },
  go: {
    files: {
      'go.mod': 'module example.com/check\n\ngo 1.21\n',
      'main.go': `package main

import (
	"fmt"
	"os"
	"time"

	"example.com/check/webhook"
)

func main() {
	body, _ := os.ReadFile(os.Args[1])
	if _, err := webhook.Verify(body, os.Getenv("SIGNATURE"), os.Getenv("SIGNING_KEY"), 300*time.Second); err != nil {
		fmt.Println("refused: " + err.Error())
		os.Exit(1)
	}
	fmt.Println("verified")
}`,
    },
    build: [['go', 'build', '-o', 'check', '.']],
    run: ['./check'],
  },
  java: {
    files: {
      'Check.java': `import java.nio.file.Files;
import java.nio.file.Path;

public final class Check {
  public static void main(String[] args) throws Exception {
    try {
      WebhookVerifier.verify(Files.readAllBytes(Path.of(args[0])), System.getenv("SIGNATURE"), System.getenv("SIGNING_KEY"), 300);
      System.out.println("verified");
    } catch (SecurityException error) {
      System.out.println("refused: " + error.getMessage());
      System.exit(1);
    }
  }
}`,
    },
    build: [['javac', '-d', 'classes', 'WebhookVerifier.java', 'Check.java']],
    run: ['java', '-cp', 'classes', 'Check'],
  },
  ruby: {
    files: {
      'check.rb': `require_relative 'verify_webhook'
begin
  verify_webhook(File.binread(ARGV[0]), ENV['SIGNATURE'], ENV['SIGNING_KEY'])
  puts 'verified'
rescue ArgumentError => e
  puts "refused: #{e.message}"
  exit 1
end`,
    },
    run: ['ruby', 'check.rb'],
  },
};

const SAMPLES: Sample[] = [
  sample('guides/webhooks.md', 'js', 'Node.js', 'node'),
  sample('webhooks.md', 'python', 'Python', 'python3'),
  sample('webhooks.md', 'go', 'Go', 'go'),
  sample('webhooks.md', 'java', 'Java', 'java'),
  sample('webhooks.md', 'ruby', 'Ruby', 'ruby'),
];

function installed(runtime: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${runtime}`]).status === 0;
}

// A key as the platform makes them (`whsec_` and the base64 of 32 random bytes: `+`, `/` and `=` included), a body
// with text outside ASCII, so that a check over re-encoded text rather than the raw bytes fails.
const signingKey = `whsec_${randomBytes(32).toString('base64')}`;
const body = JSON.stringify({
  id: 'whd_01jz0000000000000000000000',
  event: 'wallet.provisioned',
  sequence: 1,
  createdAt: '2026-01-01T00:00:00.000Z',
  data: { id: 'wlt_01jz0000000000000000000000', object: 'wallet', label: 'Zoë’s wallet ✓' },
});
const now = () => Math.floor(Date.now() / 1000);
const flipLastHexDigit = (header: string) => header.replace(/.$/, (c) => (c === '0' ? '1' : '0'));

describe.each(SAMPLES)('the webhook signature check in $language', (s) => {
  // Counted as skipped, not passed, where the language is not installed, and said so.
  const available = installed(s.runtime);
  if (!available)
    process.stderr.write(`webhook-verifiers.spec: the ${s.language} sample is skipped: no ${s.runtime}\n`);
  (available ? describe : describe.skip)(available ? `run by ${s.runtime}` : `skipped: no ${s.runtime}`, () => {
    let dir = '';
    const check = (rawBody: string, signature: string): string => {
      const bodyFile = join(dir, 'body.json');
      writeFileSync(bodyFile, rawBody);
      const harness = HARNESSES[s.runtime];
      const result = spawnSync(harness.run[0], [...harness.run.slice(1), bodyFile], {
        cwd: dir,
        env: { ...process.env, SIGNATURE: signature, SIGNING_KEY: signingKey },
        encoding: 'utf8',
      });
      const out = result.stdout.trim();
      expect({ out, status: result.status, stderr: result.stderr }).toEqual({
        out,
        status: out === 'verified' ? 0 : 1,
        stderr: '',
      });
      return out;
    };

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'mm-verifier-'));
      mkdirSync(dirname(join(dir, s.file)), { recursive: true });
      writeFileSync(join(dir, s.file), s.code);
      const harness = HARNESSES[s.runtime];
      for (const [name, text] of Object.entries(harness.files)) writeFileSync(join(dir, name), text);
      for (const [command, ...args] of harness.build ?? []) execFileSync(command, args, { cwd: dir, stdio: 'pipe' });
    }, 60_000);
    afterAll(() => dir && rmSync(dir, { recursive: true, force: true }));

    it('accepts a delivery the platform signed, and one signed by a rotated-out key beside the new one', () => {
      expect(check(body, signWebhookPayload(signingKey, body, now()))).toBe('verified');
      const rotated = signWebhookPayload([`whsec_${randomBytes(32).toString('base64')}`, signingKey], body, now());
      expect(check(body, rotated)).toBe('verified');
    });

    it('refuses a tampered body or signature, a stale timestamp and a malformed header, saying why', () => {
      const signature = signWebhookPayload(signingKey, body, now());
      expect(check(body.replace('Zoë', 'Zoe'), signature)).toBe('refused: no signature matches');
      expect(check(body, flipLastHexDigit(signature))).toBe('refused: no signature matches');
      expect(check(body, signWebhookPayload(`${signingKey}x`, body, now()))).toBe('refused: no signature matches');
      expect(check(body, signWebhookPayload(signingKey, body, now() - 301))).toBe(
        'refused: timestamp outside the tolerance',
      );
      expect(check(body, signature.replace(/^t=\d+,/, ''))).toBe('refused: malformed Webhook-Signature header');
      expect(check(body, `t=${now()}`)).toBe('refused: malformed Webhook-Signature header');
    });
  });
});
