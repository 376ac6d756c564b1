// Runs one partner guide against your own sandbox, as the test suite runs them all (docs/guides/README.md,
// "Run a guide"): the README's access token first, then the guide's steps, stopping at the first answer that
// differs from the one the guide shows. The banner's values come from the environment.
//
//   API=http://127.0.0.1:3000/v0.13 API_KEY=sk_sdbx_… API_SECRET=… PROJECT_ID=prj_… ADMIN_TOKEN=mm_admin_… \
//     npm run guide -- docs/guides/cash-in.md
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GuideRun, parseGuide } from '@mm/platform/testing';

const BANNER = {
  api: 'API',
  apiKey: 'API_KEY',
  apiSecret: 'API_SECRET',
  projectId: 'PROJECT_ID',
  adminToken: 'ADMIN_TOKEN',
};

async function main(file: string | undefined): Promise<void> {
  if (!file) throw new Error('name the guide to run, for example docs/guides/cash-in.md');
  const missing = Object.values(BANNER).filter((name) => !process.env[name]);
  if (missing.length > 0) throw new Error(`set ${missing.join(', ')} from the banner \`npm start\` printed`);
  const bindings: Record<string, unknown> = Object.fromEntries(
    Object.entries(BANNER).map(([binding, name]) => [binding, process.env[name]]),
  );
  const receiverPort = process.env.RECEIVER_PORT ?? '4000';
  bindings.webhookUrl = `http://127.0.0.1:${receiverPort}/webhooks`;
  const readme = join(__dirname, '..', '..', 'docs', 'guides', 'README.md');
  const run = new GuideRun(file, bindings, { RECEIVER_PORT: receiverPort });
  const step = (where: string) => console.log(where);
  try {
    await run.run(
      parseGuide(readFileSync(readme, 'utf8'), 'docs/guides/README.md').steps,
      'docs/guides/README.md',
      step,
    );
    await run.run(parseGuide(readFileSync(file, 'utf8'), file).steps, file, step);
  } finally {
    await run.stop();
  }
  console.log(`${file}: every answer is the one the guide shows`);
}

main(process.argv[2]).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
});
