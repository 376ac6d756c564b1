// Issue 48, the alerting rules in a real Prometheus (Debian's prometheus package; docs/metrics.md,
// docs/runbooks/): Prometheus scrapes the webhooks service of a platform of this file's own and evaluates
// deploy/prometheus/rules.yml, each rule's `for` taken down to nothing so that the test need not wait out its
// minutes (the expressions are the file's own). A receiver that fails keeps a delivery queued; the project's
// clock moved on two hours makes it older than the hour MoneyMovementWebhookBacklogOld allows: the alert
// fires. The receiver answers again, the delivery is delivered, and the alert resolves. Both modes.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { freePort } from '@mm/platform/testing';
import { newTenant } from './support/tenant';
import { eventually, START_TIMEOUT_MS, TestPlatform } from './support/test-platform';
import { WebhookReceiver } from './support/webhook-receiver';

const RULES = resolve(__dirname, '..', 'deploy', 'prometheus', 'rules.yml');
const ALERT = 'MoneyMovementWebhookBacklogOld';
const hasPrometheus = spawnSync('prometheus', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasPrometheus) process.stderr.write('alerts.e2e-spec: skipped: Prometheus (Debian prometheus) is not installed\n');

interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
}

/**
 * Prometheus scraping `target` (host:port) every second and evaluating the rules every second, in a process
 * of its own that stops when this one goes (a shell reading its stdin, which the kernel closes then).
 */
async function startPrometheus(target: string): Promise<{ url: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'mm-prometheus-'));
  const rules = parse(readFileSync(RULES, 'utf8'));
  for (const group of rules.groups) for (const rule of group.rules) rule.for = '0s';
  writeFileSync(join(dir, 'rules.yml'), stringify(rules));
  writeFileSync(
    join(dir, 'prometheus.yml'),
    stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [join(dir, 'rules.yml')],
      scrape_configs: [{ job_name: 'webhooks', static_configs: [{ targets: [target] }] }],
    }),
  );
  const port = await freePort();
  const child: ChildProcess = spawn(
    'sh',
    [
      '-c',
      'prometheus "$@" >/dev/null 2>&1 & p=$!; cat >/dev/null; kill $p; wait $p',
      'prometheus-lifeline',
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['pipe', 'ignore', 'ignore'] },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    const exited = new Promise((done) => child.once('exit', done));
    child.stdin!.end();
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(
      async () => ((await fetch(`${url}/-/ready`).catch(() => undefined))?.ok ? true : undefined),
      30_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

(hasPrometheus ? describe : describe.skip)('the alerting rules in a real Prometheus', () => {
  let platform: TestPlatform;
  let receiver: WebhookReceiver;
  let prometheus: Awaited<ReturnType<typeof startPrometheus>>;

  beforeAll(async () => {
    // A platform of its own: the queue's age is every project's, and no other file's deliveries may wait in it.
    // Distributed, the webhooks service and the accounts service (which moves a project's clock) will do.
    [platform, receiver] = await Promise.all([
      TestPlatform.start({}, undefined, { services: ['accounts', 'webhooks'] }),
      WebhookReceiver.start(),
    ]);
    prometheus = await startPrometheus(new URL(platform.serviceUrl('webhooks')).host);
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await prometheus?.stop();
    await receiver?.stop();
    await platform?.stop();
  });

  /** Prometheus' HTTP API: the answer's data. */
  const api = async (path: string): Promise<any> =>
    ((await (await fetch(`${prometheus.url}${path}`)).json()) as any).data;
  const alerts = async (): Promise<PrometheusAlert[]> =>
    (await api('/api/v1/alerts')).alerts.filter((a: PrometheusAlert) => a.labels.alertname === ALERT);

  it('fires MoneyMovementWebhookBacklogOld while a delivery waits over an hour, and resolves once it is delivered', async () => {
    const t = await newTenant(platform, { name: 'alerts', receiver });
    receiver.fail('/down', Infinity, 503);
    const hook = await t.endpoint('/down');
    const sent = (await t.post(`/webhooks/${hook.id}/test`)).body;
    const attempts = (n: number) =>
      eventually(async () => {
        const delivery = (await t.get(`/webhooks/${hook.id}/deliveries/${sent.id}`)).body;
        return delivery.attempts?.length >= n ? delivery : undefined;
      });
    await attempts(1);
    // Scraped while the delivery is young: nothing to say yet.
    await eventually(async () => {
      const [sample] = (await api('/api/v1/query?query=mm_webhook_deliveries_queued')).result;
      return sample && Number(sample.value[1]) >= 1 ? true : undefined;
    }, 30_000);
    expect(await alerts()).toEqual([]);

    // Two hours later on the project's clock: its retry failed again, and it has waited two hours.
    await t.advance(7200);
    await attempts(2);
    expect((await t.get(`/webhooks/${hook.id}/deliveries/${sent.id}`)).body.status).toBe('queued');
    const [firing] = await eventually(async () => {
      const found = await alerts();
      return found.some((a) => a.state === 'firing') ? found : undefined;
    }, 30_000);
    expect(firing).toMatchObject({
      state: 'firing',
      labels: { alertname: ALERT, severity: 'warning', job: 'webhooks' },
      annotations: { runbook_url: `docs/runbooks/${ALERT}.md` },
    });
    expect(firing.annotations.summary).toMatch(/^A webhook delivery has waited 2h/);

    // The receiver answers again: the next retry delivers it (its retries go on in real time meanwhile, the
    // project's clock running as the wall's: ten minutes on is past the next of them), the queue empties and the
    // alert resolves.
    receiver.fail('/down', 0);
    await t.advance(600);
    await eventually(
      async () =>
        (await t.get(`/webhooks/${hook.id}/deliveries/${sent.id}`)).body.status === 'delivered' ? true : undefined,
      30_000,
    );
    await eventually(async () => ((await alerts()).length === 0 ? true : undefined), 30_000);
  });
});
