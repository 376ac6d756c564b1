// `npm run rebuild -- <service> [<read model>]` (docs/kubernetes.md, Rebuilding a read model): asks the running
// platform to rebuild a service's read models from its log, all of them or the one named, and prints what it
// did; `all` for every service's. The platform does the work while it keeps answering; this only asks, through the operator API, so that
// the same command serves `npm start`, `npm run start:distributed` (through the gateway) and the Kubernetes Job.
//   MM_URL          the platform or the gateway (default http://127.0.0.1:$PORT, PORT 3000)
//   MM_ADMIN_TOKEN  the operator token (default: the one `npm start` keeps in $MM_DATA_DIR/admin-token)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_NAMES } from '@mm/contracts';

const USAGE = `usage: npm run rebuild -- <service> [<read model>], or all; services: ${SERVICE_NAMES.join(', ')}`;

interface Rebuilt {
  readModel: string;
  streams: number;
  orphansRemoved: number;
  tookMs: number;
}

/** The operator token: MM_ADMIN_TOKEN, else the local run's own. */
function adminToken(env: NodeJS.ProcessEnv): string {
  if (env.MM_ADMIN_TOKEN) return env.MM_ADMIN_TOKEN;
  const file = join(env.MM_DATA_DIR ?? './.data', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error('MM_ADMIN_TOKEN is not set, and there is no local admin token in MM_DATA_DIR');
}

export async function rebuild(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const [service, readModel, ...rest] = args;
  if (!service || rest.length > 0 || service.startsWith('-') || (service === 'all' && readModel !== undefined))
    throw new Error(USAGE);
  if (service !== 'all') return rebuildService(service, readModel, env);
  const lines: string[] = [];
  for (const name of SERVICE_NAMES) lines.push(...(await rebuildService(name, undefined, env)));
  return lines;
}

async function rebuildService(
  service: string,
  readModel: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const base = (env.MM_URL ?? `http://127.0.0.1:${env.PORT ?? 3000}`).replace(/\/+$/, '');
  const response = await fetch(`${base}/v0.13/admin/read-models/${encodeURIComponent(service)}/rebuild`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken(env)}`, 'content-type': 'application/json' },
    body: JSON.stringify(readModel === undefined ? {} : { readModel }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    data?: Rebuilt[];
    msg?: string;
    cause?: string;
    error?: string;
  };
  if (!response.ok) throw new Error(`${response.status} ${body.error ?? ''}: ${body.cause ?? body.msg ?? 'no answer'}`);
  const data = body.data ?? [];
  if (data.length === 0) return [`${service}: no read model to rebuild`];
  return data.map(
    (r) =>
      `${service} ${r.readModel}: ${r.streams} rebuilt from the log, ${r.orphansRemoved} rows no event made deleted, in ${r.tookMs} ms`,
  );
}

if (require.main === module) {
  rebuild(process.argv.slice(2)).then(
    (lines) => process.stdout.write(`${lines.join('\n')}\n`),
    (error: Error) => {
      process.stderr.write(`rebuild failed: ${error.message}\n`);
      process.exit(error.message === USAGE ? 2 : 1);
    },
  );
}
