// The Kubernetes manifests played with `podman kube play` (docs/kubernetes.md, "Playing the manifests with
// podman"): an overlay rendered by `kubectl kustomize`, its Deployments and ConfigMap played as they are, with
// what podman cannot model stood in for as narrowly as possible:
// - no Services: each Deployment is played on its own, on a network of the run's, with its Services' names as
//   network aliases, so `http://accounts:3000` reaches the accounts pod as a Service would;
// - no Jobs: the migrate Job's pod template is played as a pod of its own, whose exit is awaited;
// - no Secret objects and no namespaces: the Secret the manifests refer to is a podman secret (what
//   `kubectl create secret` is on a cluster), named for the run, and the pods' names carry the run's prefix;
// - no readiness or startup probes (podman 4.3 plays liveness probes only): whoever plays the manifests asks
//   each container's probes over HTTP as the kubelet would (`probeTargets`);
// - no image from the overlay's registry: the image is the one built here;
// - no Kafka: KAFKA_BROKERS is emptied, so the events go through PostgreSQL (the platform's other transport);
// - PostgreSQL, which the manifests expect to be provided, is a pod of the Debian image deploy/postgres builds.
// What podman ignores (PodDisruptionBudgets, autoscalers, NetworkPolicies, the ServiceAccount, the Namespace,
// runAsNonRoot, the seccomp profile's type, update strategies) stays checked against the Kubernetes schemas only.
//
//   npm run kube:play -- [sandbox|production]
// builds nothing: it plays localhost/money-movement:local (MM_IMAGE) and localhost/mm-postgres:15
// (MM_POSTGRES_IMAGE), waits for every pod's readiness probe, prints the gateway's address, and takes
// everything down on Ctrl-C. MM_ADMIN_TOKEN, MM_SECRET_HASH_KEY and MM_SIGNING_KEY_ENCRYPTION_KEYS, when
// exported, go into the Secret; otherwise fresh values do, never printed.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { parseAllDocuments, stringify } from 'yaml';
import { ROOT, run } from '@mm/platform/testing';

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
  data?: Record<string, string>;
};

export interface PlayOptions {
  overlay?: string;
  /** The platform's image in the local store (the overlay names a registry's). */
  image: string;
  postgresImage: string;
  /** Prefix of every pod, the secret and the network: podman has no namespaces. */
  prefix: string;
  /** Values for the Secret's keys (DATABASE_URL is always the play's PostgreSQL); fresh random ones otherwise. */
  secrets?: Partial<Record<'MM_ADMIN_TOKEN' | 'MM_SECRET_HASH_KEY' | 'MM_SIGNING_KEY_ENCRYPTION_KEYS', string>>;
  log?: (line: string) => void;
}

export interface ProbeTarget {
  deployment: string;
  pod: string;
  kind: 'startup' | 'liveness' | 'readiness';
  /** http://<pod address>:<port><path>, as the kubelet asks it. */
  url: string;
  /** How long the probe may keep failing before Kubernetes would give up on the pod (startup) or mark it unready. */
  budgetMs: number;
}

export interface Played {
  network: string;
  secret: string;
  /** The values of the Secret, for the caller (never printed). */
  secrets: Record<string, string>;
  rendered: K8sObject[];
  /** The Deployments played, by name, with the pod podman made for each. */
  pods: Record<string, string>;
  migratePod: string;
  postgresPod: string;
  address(pod: string): Promise<string>;
  down(): Promise<string[]>;
}

/** The overlay as `kubectl kustomize` renders it. */
export function render(overlay = 'sandbox'): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', join(ROOT, 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl kustomize k8s/overlays/${overlay} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJSON() as K8sObject);
}

/** The names a Service gives the pods its selector matches. */
function serviceNames(objects: K8sObject[], deployment: K8sObject): string[] {
  const labels: Record<string, string> = deployment.spec.template.metadata?.labels ?? {};
  return objects
    .filter((o) => o.kind === 'Service')
    .filter((s) => Object.entries(s.spec?.selector ?? {}).every(([k, v]) => labels[k] === v))
    .map((s) => s.metadata.name);
}

/** The pod podman 4.3 makes for a one-replica Deployment. */
const podOf = (deployment: string) => `${deployment}-pod-0`;

/** Plays the overlay; the caller waits for the probes (probeTargets) and takes it down (down). */
export async function play(options: PlayOptions): Promise<Played> {
  const log = options.log ?? (() => undefined);
  const { prefix } = options;
  const rendered = render(options.overlay);
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const network = `${prefix}-net`;
  const secret = `${prefix}-secrets`;
  const postgresPassword = randomBytes(16).toString('hex');
  const secrets: Record<string, string> = {
    DATABASE_URL: `postgres://postgres:${postgresPassword}@postgres:5432/postgres`,
    MM_ADMIN_TOKEN: randomBytes(24).toString('hex'),
    MM_SECRET_HASH_KEY: randomBytes(32).toString('hex'),
    MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  };
  for (const [key, value] of Object.entries(options.secrets ?? {})) if (value) secrets[key] = value;
  const write = (name: string, objects: unknown[]) => {
    const file = join(dir, name);
    writeFileSync(file, objects.map((o) => stringify(o)).join('---\n'), { mode: 0o600 });
    return file;
  };

  const configMaps = rendered
    .filter((o) => o.kind === 'ConfigMap')
    .map((cm) => ({ ...cm, data: { ...cm.data, KAFKA_BROKERS: '' } }));
  const secretName = new Set<string>();
  /** The run's image, secret and volume names in a pod spec, what podman 4.3 would play wrong left out; everything else as rendered. */
  const adapt = (pod: string, spec: any) => {
    // podman 4.3 makes an emptyDir a volume named as the pod names it, shared by every pod that uses that
    // name and kept until the last is gone: named for the pod, each has its own, removed with it.
    const renamed: Record<string, string> = {};
    for (const volume of spec.volumes ?? []) {
      if (!volume.emptyDir) continue;
      renamed[volume.name] = `${pod}-${volume.name}`;
      volume.name = renamed[volume.name];
    }
    for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
      for (const mount of container.volumeMounts ?? []) mount.name = renamed[mount.name] ?? mount.name;
      // podman 4.3 turns an HTTP liveness probe into a curl command (which the image does not have) on port 0
      // for a named port; like the startup and readiness probes, it is asked over HTTP by whoever plays this.
      delete container.livenessProbe;
      delete container.startupProbe;
      delete container.readinessProbe;
      container.image = options.image;
      // podman 4.3 publishes each containerPort on the host's port of the same number (a Kubernetes
      // containerPort publishes nothing): left out, the pods are reached on their own addresses.
      delete container.ports;
      for (const ref of [
        ...(container.env ?? []).map((e: any) => e.valueFrom?.secretKeyRef),
        ...(container.envFrom ?? []).map((e: any) => e.secretRef),
      ]) {
        if (!ref) continue;
        secretName.add(ref.name);
        ref.name = secret;
      }
    }
    return spec;
  };
  const deployments = rendered.filter((o) => o.kind === 'Deployment');
  const job = rendered.find((o) => o.kind === 'Job' && o.metadata.name === 'migrate');
  if (!job) throw new Error('the overlay has no migrate Job');
  const pods: Record<string, string> = {};
  /** A pod's address on the run's network, which this machine reaches. */
  const address = async (pod: string) => {
    const infra = (await run('podman', ['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}'])).stdout.trim();
    const ip = (
      await run('podman', [
        'inspect',
        infra,
        '--format',
        `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`,
      ])
    ).stdout.trim();
    if (!ip) throw new Error(`the pod ${pod} has no address on ${network}`);
    return ip;
  };
  const played: string[] = [];
  const cleanup: Array<() => Promise<unknown>> = [];
  /** Every pod down at once (each waits for its containers to stop), then the network and the secret. */
  const down = async (): Promise<string[]> => {
    const errors: string[] = [];
    const failed = (error: Error) => void errors.push(error.message);
    await Promise.all(played.map((file) => run('podman', ['kube', 'down', file]).catch(failed)));
    for (const step of cleanup.reverse()) await step().catch(failed);
    rmSync(dir, { recursive: true, force: true });
    return errors;
  };

  try {
    // The Secret, as podman 4.3 reads one for secretKeyRef: a JSON object of base64 values.
    const encoded = Object.fromEntries(
      Object.entries({ ...secrets, POSTGRES_PASSWORD: postgresPassword }).map(([k, v]) => [
        k,
        Buffer.from(v).toString('base64'),
      ]),
    );
    const secretFile = join(dir, 'secret.json');
    writeFileSync(secretFile, JSON.stringify(encoded), { mode: 0o600 });
    await run('podman', ['secret', 'create', secret, secretFile]);
    cleanup.push(() => run('podman', ['secret', 'rm', secret]));
    rmSync(secretFile);
    await run('podman', ['network', 'create', network]);
    cleanup.push(() => run('podman', ['network', 'rm', '-f', network]));

    const postgresPod = `${prefix}-postgres`;
    const postgresFile = write('postgres.yaml', [
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: postgresPod, labels: { 'app.kubernetes.io/name': 'postgres' } },
        spec: {
          containers: [
            {
              name: 'postgres',
              image: options.postgresImage,
              args: ['-c', 'max_connections=200'],
              env: [
                { name: 'POSTGRES_PASSWORD', valueFrom: { secretKeyRef: { name: secret, key: 'POSTGRES_PASSWORD' } } },
              ],
            },
          ],
        },
      },
    ]);
    const playFile = async (file: string, alias: string[]) => {
      const net = alias.length ? `${network}:${alias.map((a) => `alias=${a}`).join(',')}` : network;
      played.push(file);
      await run('podman', ['kube', 'play', '--network', net, file]);
    };
    await playFile(postgresFile, ['postgres']);
    // The manifests expect PostgreSQL to be there already: its pod answers on its own address first (the image's
    // first-run set-up listens on its socket only, so an answer on the address is the server for good).
    const postgresAt = `postgres://postgres:${postgresPassword}@${await address(postgresPod)}:5432/postgres`;
    await answers(postgresAt, 120_000);
    log(`played ${postgresPod}, answering`);

    const migratePod = `${prefix}-migrate`;
    const migrateFile = write('migrate.yaml', [
      ...configMaps,
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: migratePod, labels: job.spec.template.metadata?.labels },
        spec: adapt(migratePod, structuredClone(job.spec.template.spec)),
      },
    ]);
    await playFile(migrateFile, []);
    log(`played ${migratePod} (the migrate Job's pod)`);

    for (const deployment of deployments) {
      const name = `${prefix}-${deployment.metadata.name}`;
      const copy = structuredClone(deployment);
      copy.metadata.name = name;
      adapt(podOf(name), copy.spec.template.spec);
      const file = write(`${deployment.metadata.name}.yaml`, [...configMaps, copy]);
      await playFile(file, serviceNames(rendered, deployment));
      pods[deployment.metadata.name] = podOf(name);
    }
    log(`played ${deployments.length} Deployments: ${deployments.map((d) => d.metadata.name).join(', ')}`);
    if (secretName.size !== 1)
      throw new Error(
        `the manifests refer to ${secretName.size} Secrets (${[...secretName].join(', ')}); this play provides one`,
      );

    return {
      network,
      secret,
      secrets,
      rendered,
      pods,
      migratePod,
      postgresPod,
      address,
      down,
    };
  } catch (error) {
    await down();
    throw error;
  }
}

/** Waits until PostgreSQL at url answers a query. */
async function answers(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL did not answer in ${timeoutMs / 1000} s: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 250));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** Every Deployment's startup, liveness and readiness probes, as URLs on its pod's address. */
export async function probeTargets(played: Played): Promise<ProbeTarget[]> {
  const targets: ProbeTarget[] = [];
  for (const deployment of played.rendered.filter((o) => o.kind === 'Deployment')) {
    const pod = played.pods[deployment.metadata.name];
    const ip = await played.address(pod);
    for (const container of deployment.spec.template.spec.containers) {
      for (const kind of ['startup', 'liveness', 'readiness'] as const) {
        const probe = container[`${kind}Probe`];
        if (!probe) continue;
        if (!probe.httpGet)
          throw new Error(
            `${deployment.metadata.name}: the ${kind} probe is not an HTTP GET, which this play does not ask`,
          );
        const port =
          typeof probe.httpGet.port === 'number'
            ? probe.httpGet.port
            : container.ports?.find((p: { name?: string }) => p.name === probe.httpGet.port)?.containerPort;
        if (!port)
          throw new Error(
            `${deployment.metadata.name}: the ${kind} probe's port ${probe.httpGet.port} is not a port of the container`,
          );
        const budgetMs =
          (probe.initialDelaySeconds ?? 0) * 1000 + (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3) * 1000;
        targets.push({
          deployment: deployment.metadata.name,
          pod,
          kind,
          url: `http://${ip}:${port}${probe.httpGet.path ?? '/'}`,
          budgetMs,
        });
      }
    }
  }
  return targets;
}

/** A probe's verdict as the kubelet gives it: an HTTP status from 200 to 399 within the probe's time-out. */
export async function probe(url: string, timeoutMs = 3_000): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' }).catch(() => undefined);
  return res !== undefined && res.status >= 200 && res.status < 400;
}

if (require.main === module) {
  void (async () => {
    const overlay = process.argv[2] ?? 'sandbox';
    const played = await play({
      overlay,
      image: process.env.MM_IMAGE ?? 'localhost/money-movement:local',
      postgresImage: process.env.MM_POSTGRES_IMAGE ?? 'localhost/mm-postgres:15',
      prefix: `mm-kube-${process.pid}`,
      secrets: {
        MM_ADMIN_TOKEN: process.env.MM_ADMIN_TOKEN,
        MM_SECRET_HASH_KEY: process.env.MM_SECRET_HASH_KEY,
        MM_SIGNING_KEY_ENCRYPTION_KEYS: process.env.MM_SIGNING_KEY_ENCRYPTION_KEYS,
      },
      log: (line) => process.stderr.write(`${line}\n`),
    });
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      process.stderr.write('taking it down\n');
      const errors = await played.down();
      for (const e of errors) process.stderr.write(`${e}\n`);
      process.exit(errors.length ? 1 : 0);
    };
    process.on('SIGINT', () => void stop());
    process.on('SIGTERM', () => void stop());
    const keepAlive = setInterval(() => undefined, 60_000);
    try {
      const targets = await probeTargets(played);
      const started = Date.now();
      for (const target of targets.filter((t) => t.kind === 'readiness')) {
        while (!(await probe(target.url))) {
          if (Date.now() - started > target.budgetMs + 120_000)
            throw new Error(`${target.deployment} is not ready at ${target.url}`);
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      const gateway = targets.find((t) => t.deployment === 'gateway');
      const token = process.env.MM_ADMIN_TOKEN
        ? 'the MM_ADMIN_TOKEN you exported'
        : 'generated and not shown (export MM_ADMIN_TOKEN to choose it)';
      process.stdout.write(
        `ready: the API is at ${gateway ? new URL(gateway.url).origin : '?'}/v0.13 from this machine; the admin token is ${token}. Ctrl-C takes it all down.\n`,
      );
    } catch (error) {
      clearInterval(keepAlive);
      process.stderr.write(`${(error as Error).message}\n`);
      await stop();
    }
  })().catch((error: Error) => {
    process.stderr.write(`${error.stack ?? error.message}\n`);
    process.exit(1);
  });
}
