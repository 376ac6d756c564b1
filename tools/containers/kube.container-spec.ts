// The Kubernetes manifests run (docs/kubernetes.md, "Playing the manifests with podman"): the sandbox overlay
// rendered by `kubectl kustomize`, its Deployments and ConfigMap played by `podman kube play` with a PostgreSQL
// pod and the migrate Job's pod, the Secret they refer to as a podman secret; the migrations finish, every pod
// passes its startup, liveness and readiness probes (asked as the kubelet asks them: podman 4.3 plays none of
// them), its containers carry the rendered configuration and security settings, a request through the gateway
// pod reaches the accounts pod by its Service's name; then `podman kube down` leaves nothing behind. What
// podman cannot model (NetworkPolicies, autoscalers, disruption budgets) stays schema-validated by the deploy
// spec. Reuses the image the Compose test builds (a rebuild of an unchanged tree is all cache). Needs podman
// and kubectl: without them, says so and is counted as skipped.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { containerEngine, ensureImages, run, type Engine } from '@mm/platform/testing';
import { play, probe, probeTargets, type Played, type ProbeTarget } from './kube-play';

const engine: Engine = containerEngine();
const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
const skipped = !engine.available
  ? engine.reason
  : engine.command !== 'podman'
    ? 'kube play is podman’s: Docker has none'
    : !hasKubectl
      ? 'kubectl is not installed (it renders the overlay)'
      : undefined;
if (skipped) process.stderr.write(`kube.container-spec: skipped: ${skipped}\n`);
const describeWithPodman = skipped ? describe.skip : describe;

const PREFIX = `mm-kube-${process.pid}`;
const BUILD_TIMEOUT_MS = 15 * 60_000;

describeWithPodman('the sandbox overlay played with podman kube play (containers)', () => {
  let played: Played | undefined;
  let targets: ProbeTarget[] = [];
  let started = 0;
  const log = (line: string) => process.stderr.write(`kube.container-spec: ${line}\n`);
  const seconds = (since: number) => Math.round((Date.now() - since) / 1000);

  beforeAll(
    async () => {
      started = Date.now();
      const images = await ensureImages(engine as Engine & { available: true });
      log(`images ready in ${seconds(started)} s (${images.built.join(', ') || 'all built before'})`);
      const playAt = Date.now();
      played = await play({
        overlay: 'sandbox',
        image: images.platform,
        postgresImage: images.postgres,
        prefix: PREFIX,
      });
      log(`played in ${seconds(playAt)} s`);
      targets = await probeTargets(played);
      // Startup probes first (each within its own budget), then liveness and readiness, as the kubelet orders them.
      const probesAt = Date.now();
      for (const kind of ['startup', 'liveness', 'readiness'] as const) {
        await Promise.all(
          targets
            .filter((t) => t.kind === kind)
            .map((t) =>
              until(
                () => probe(t.url),
                t.budgetMs + 60_000,
                `${t.deployment}'s ${kind} probe ${new URL(t.url).pathname}`,
              ),
            ),
        );
      }
      log(`every pod ready ${seconds(probesAt)} s after the play`);
    },
    BUILD_TIMEOUT_MS + 8 * 60_000,
  );

  afterAll(async () => {
    if (!played) return;
    const downAt = Date.now();
    const errors = await played.down();
    const left = await leftBehind();
    log(`down in ${seconds(downAt)} s; ${seconds(started)} s in all; left behind: ${left.join(', ') || 'nothing'}`);
    expect(errors).toEqual([]);
    expect(left).toEqual([]);
  }, 120_000);

  it('runs the migrate Job’s work to completion', async () => {
    const state = await until(
      async () => {
        const out = (
          await run('podman', [
            'inspect',
            `${played!.migratePod}-migrate`,
            '--format',
            '{{.State.Status}} {{.State.ExitCode}}',
          ])
        ).stdout.trim();
        return out.startsWith('exited') ? out : undefined;
      },
      120_000,
      'the migrate pod to finish',
    );
    expect(state).toBe('exited 0');
  });

  it('starts every Deployment’s pod with the rendered configuration, the Secret’s values and the security settings', async () => {
    const rendered = played!.rendered;
    const config = rendered.find((o) => o.kind === 'ConfigMap')!.data!;
    const deployments = rendered.filter((o) => o.kind === 'Deployment');
    expect(deployments.length).toBeGreaterThanOrEqual(8);
    const names = deployments.map((d) => `${played!.pods[d.metadata.name]}-${d.spec.template.spec.containers[0].name}`);
    const inspected: any[] = JSON.parse((await run('podman', ['inspect', '--format', 'json', ...names])).stdout);
    for (const [i, deployment] of deployments.entries()) {
      const container = deployment.spec.template.spec.containers[0];
      const c = inspected[i];
      const env = new Map<string, string>(
        (c.Config.Env as string[]).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      const what = deployment.metadata.name;
      expect({ what, status: c.State.Status, restarts: c.RestartCount }).toEqual({
        what,
        status: 'running',
        restarts: 0,
      });
      // Every ConfigMap value as rendered, but the Kafka brokers (no Kafka here: events go through PostgreSQL).
      for (const [key, value] of Object.entries(config))
        expect({ what, key, value: env.get(key) }).toEqual({ what, key, value: key === 'KAFKA_BROKERS' ? '' : value });
      for (const variable of container.env) {
        if (variable.value !== undefined)
          expect({ what, key: variable.name, value: env.get(variable.name) }).toEqual({
            what,
            key: variable.name,
            value: variable.value,
          });
        // A Secret's value is compared, never shown.
        else
          expect({
            what,
            key: variable.name,
            fromTheSecret: env.get(variable.name) === played!.secrets[variable.valueFrom.secretKeyRef.key],
          }).toEqual({ what, key: variable.name, fromTheSecret: true });
      }
      expect({
        what,
        user: c.Config.User,
        readOnlyRoot: c.HostConfig.ReadonlyRootfs,
        added: c.HostConfig.CapAdd ?? [],
        memory: c.HostConfig.Memory,
      }).toEqual({
        what,
        user: '1000:1000',
        readOnlyRoot: true,
        added: [],
        memory: mebibytes(container.resources.limits.memory),
      });
      expect(c.HostConfig.CapDrop).toEqual(expect.arrayContaining(['CAP_CHOWN', 'CAP_SETUID', 'CAP_NET_RAW']));
    }
  });

  it('answers through the gateway pod: an API token, then a customer kept by the accounts pod behind its Service name', async () => {
    const gateway = targets.find((t) => t.deployment === 'gateway' && t.kind === 'readiness')!;
    const api = `${new URL(gateway.url).origin}/v0.13`;
    const call = async (method: string, path: string, body?: unknown, token?: string) => {
      const res = await fetch(`${api}${path}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(method === 'POST' ? { 'idempotency-key': randomUUID() } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const admin = played!.secrets.MM_ADMIN_TOKEN;
    const project = await call('POST', '/admin/projects', { name: 'kube play' }, admin);
    expect(project.status).toBe(201);
    const keys = await call('POST', `/admin/projects/${project.body.id}/api-keys`, undefined, admin);
    expect(keys.status).toBe(201);
    const auth = await call('POST', '/auth/token', { apiKey: keys.body.apiKey, apiSecret: keys.body.apiSecret });
    expect(auth.status).toBe(200);
    const customer = await call(
      'POST',
      '/customers',
      { type: 'individual', firstName: 'Grace', lastName: 'Hopper' },
      auth.body.accessToken,
    );
    expect(customer.status).toBe(201);
    const fetched = await call('GET', `/customers/${customer.body.id}`, undefined, auth.body.accessToken);
    expect(fetched).toMatchObject({ status: 200, body: { id: customer.body.id, firstName: 'Grace' } });
  }, 60_000);

  /** Pods, containers, volumes, the network and the secret of this play that are still there. */
  async function leftBehind(): Promise<string[]> {
    const list = async (args: string[]) =>
      (await run('podman', args)).stdout.split('\n').filter((line) => line.includes(PREFIX));
    return [
      ...(await list(['pod', 'ps', '--format', '{{.Name}}'])),
      ...(await list(['ps', '-a', '--format', '{{.Names}}'])),
      ...(await list(['volume', 'ls', '--format', '{{.Name}}'])),
      ...(await list(['network', 'ls', '--format', '{{.Name}}'])),
      ...(await list(['secret', 'ls', '--format', '{{.Name}}'])),
    ];
  }
});

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`a memory limit this test does not read: ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1) * 1024 * 1024;
}

async function until<T>(check: () => Promise<T | undefined | false>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error(`waited ${Math.round(timeoutMs / 1000)} s for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
