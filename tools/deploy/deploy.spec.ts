// The deployment files (issue 6; ADR 0015), checked as far as this machine can:
// each Kubernetes overlay rendered by `kubectl kustomize` and validated against
// the Kubernetes schemas, with every service in it as operators need it; the
// Docker Compose file and the Dockerfile read and checked against the tree.
// Neither Docker nor a cluster is here, so nothing is built or applied.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { PORT_CALLERS, SERVICE_NAMES, serviceUrlVariable, type ServiceName } from '@mm/contracts';
import { loadConfig } from '@mm/platform/config';

const ROOT = join(__dirname, '..', '..');
const OVERLAYS = ['sandbox', 'production'] as const;
/** Every app but platform mode's is a service of the distributed run; the dashboard is a page the gateway serves (ADR 0038). */
const APPS = readdirSync(join(ROOT, 'apps')).filter((name) => name !== 'platform' && name !== 'dashboard');
const SERVICES = APPS.filter((name) => name !== 'gateway');
const SECRET_VARIABLES = ['DATABASE_URL', 'MM_DATABASE_DIRECT_URL', 'MM_ADMIN_TOKEN', 'MM_SECRET_HASH_KEY', 'MM_SIGNING_KEY_ENCRYPTION_KEYS', 'MM_BOOTSTRAP_API_SECRET', 'MM_OIDC_CLIENT_SECRET', 'MM_CUSTODY_MNEMONIC'];
const PORT = 3000;

describe('the services of the distributed run', () => {
  it('are the apps: each service named in the contracts has its app, and each app (but platform) is a service', () => {
    expect([...APPS].sort()).toEqual([...SERVICE_NAMES].sort());
    for (const app of APPS) expect(readFileSync(join(ROOT, 'apps', app, 'src', 'main.ts'), 'utf8')).toContain(`runService('${app}')`);
  });
});

const hasKubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
if (!hasKubectl) process.stderr.write('deploy.spec: the Kubernetes checks are skipped: kubectl is not installed\n');
const withKubectl = hasKubectl ? describe : describe.skip;

type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> }; spec?: any; data?: Record<string, string> };
type EnvVar = { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: unknown } };

function render(overlay: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', join(ROOT, 'k8s', 'overlays', overlay)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kubectl kustomize k8s/overlays/${overlay} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => doc.toJSON() as K8sObject);
}

/** The Kubernetes schema's complaints about these objects (tools/deploy/validate-manifests.mjs). */
function schemaProblems(objects: unknown[]): string[] {
  const result = spawnSync(process.execPath, [join(__dirname, 'validate-manifests.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', cwd: ROOT });
  if (result.status !== 0) throw new Error(`validate-manifests.mjs failed:\n${result.stderr}`);
  return JSON.parse(result.stdout) as string[];
}

const matches = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.entries(selector ?? {}).every(([key, value]) => labels[key] === value);

withKubectl.each(OVERLAYS)('the Kubernetes overlay %s', (overlay) => {
  let objects: K8sObject[];
  const all = (kind: string) => objects.filter((o) => o.kind === kind);
  const one = (kind: string, name: string) => {
    const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
    if (!found) throw new Error(`no ${kind} ${name} in k8s/overlays/${overlay}`);
    return found;
  };
  const container = (deployment: K8sObject) => deployment.spec.template.spec.containers[0];
  /** A container's environment as it will be: its ConfigMaps' values, then its own variables. */
  const environment = (podSpec: any): Map<string, EnvVar> => {
    const container = podSpec.containers[0];
    const variables = new Map<string, EnvVar>();
    for (const source of container.envFrom ?? []) {
      const configMap = one('ConfigMap', source.configMapRef.name);
      for (const [name, value] of Object.entries(configMap.data ?? {})) variables.set(name, { name, value });
    }
    for (const variable of (container.env ?? []) as EnvVar[]) variables.set(variable.name, variable);
    return variables;
  };

  beforeAll(() => {
    objects = render(overlay);
  });

  it('renders objects the Kubernetes schemas accept, each in the overlay namespace', () => {
    expect(objects.length).toBeGreaterThan(0);
    expect(schemaProblems(objects)).toEqual([]);
    const namespace = one('Namespace', overlay === 'production' ? 'money-movement' : `money-movement-${overlay}`).metadata.name;
    expect(objects.filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== namespace).map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([]);
  });

  it('refuses what the Kubernetes schemas refuse (the control for the check above)', () => {
    const deployment = structuredClone(one('Deployment', 'gateway'));
    deployment.spec.replicas = 'two';
    delete deployment.spec.selector;
    expect(schemaProblems([deployment])).toEqual([expect.stringMatching(/Deployment gateway: .*selector.*replicas must be integer/)]);
  });

  it.each(APPS)('runs %s as a Deployment with a Service, a disruption budget and an autoscaler', (app) => {
    const deployment = one('Deployment', app);
    expect(environment(deployment.spec.template.spec).get('SERVICE')).toEqual({ name: 'SERVICE', value: app });
    const podLabels = deployment.spec.template.metadata.labels;
    expect(matches(deployment.spec.selector.matchLabels, podLabels)).toBe(true);
    const service = one('Service', app);
    expect(matches(service.spec.selector, podLabels)).toBe(true);
    expect(service.spec.ports).toEqual([expect.objectContaining({ port: PORT, targetPort: 'http' })]);
    expect(container(deployment).ports).toEqual([{ name: 'http', containerPort: PORT }]);
    expect(matches(one('PodDisruptionBudget', app).spec.selector.matchLabels, podLabels)).toBe(true);
    const hpa = one('HorizontalPodAutoscaler', app);
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: app });
    expect(hpa.spec.minReplicas).toBeGreaterThanOrEqual(overlay === 'production' ? 3 : 1);
    expect(hpa.spec.maxReplicas).toBeGreaterThan(hpa.spec.minReplicas);
  });

  it('has a Deployment for every app and no other', () => {
    expect(all('Deployment').map((d) => d.metadata.name).sort()).toEqual([...APPS].sort());
  });

  it.each(APPS)('probes %s on /healthz and /readyz, bounds its resources and runs it as a non-root user', (app) => {
    const deployment = one('Deployment', app);
    const pod = deployment.spec.template.spec;
    const main = container(deployment);
    expect(main.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(main.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    for (const kind of ['requests', 'limits']) expect(Object.keys(main.resources[kind]).sort()).toEqual(['cpu', 'memory']);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(main.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
    // The read-only root filesystem needs a writable /tmp (SWC's cache, MM_DATA_DIR).
    expect(main.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
  });

  it.each(APPS)('gives %s every variable it needs, secrets only by reference, and a configuration the platform accepts', (app) => {
    const variables = environment(one('Deployment', app).spec.template.spec);
    // Every service serves operator routes of its own, so each takes the break-glass token (docs/operators.md).
    const required = ['DATABASE_URL', 'KAFKA_BROKERS', 'HOST', 'PORT', 'MM_ENVIRONMENT', 'MM_SIGNING_KEY_ENCRYPTION_KEYS', 'SERVICE', 'MM_ADMIN_TOKEN'];
    if (app === 'gateway') required.push('MM_SECRET_HASH_KEY', 'MM_OIDC_CLIENT_SECRET', ...SERVICES.map((s) => serviceUrlVariable(s as ServiceName)));
    else required.push('MM_GATEWAY_URL');
    expect(required.filter((name) => !variables.has(name))).toEqual([]);
    expect(variables.get('MM_ENVIRONMENT')?.value).toBe(overlay);
    expect(variables.get('HOST')?.value).toBe('0.0.0.0');
    expect(variables.get('PORT')?.value).toBe(String(PORT));
    for (const name of SECRET_VARIABLES.filter((n) => variables.has(n))) {
      expect({ name, value: variables.get(name)!.value, ref: variables.get(name)!.valueFrom?.secretKeyRef?.key }).toEqual({ name, value: undefined, ref: name });
    }
    // The plain values, with placeholders for the secrets, pass the platform's own validation.
    const env: Record<string, string> = {};
    for (const [name, variable] of variables) env[name] = variable.value ?? placeholder(name);
    expect(() => loadConfig(env)).not.toThrow();
  });

  it('keeps no secret value: no Secret object, no secret variable in a ConfigMap', () => {
    expect(all('Secret')).toEqual([]);
    for (const configMap of all('ConfigMap')) expect(Object.keys(configMap.data ?? {}).filter((key) => SECRET_VARIABLES.includes(key))).toEqual([]);
  });

  it('runs the migrations as a Job of `npm run migrate`, the database by reference', () => {
    const job = one('Job', 'migrate');
    const pod = job.spec.template.spec;
    expect(pod.containers[0].command).toEqual(['npm', 'run', 'migrate']);
    expect(environment(pod).get('DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({ name: 'money-movement-secrets', key: 'DATABASE_URL' });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.restartPolicy).toBe('OnFailure');
  });

  it('keeps the read models\' rebuild as a suspended CronJob that an operator starts: `npm run rebuild -- all` through the gateway', () => {
    const cronJob = one('CronJob', 'rebuild-read-models');
    expect(cronJob.spec.suspend).toBe(true);
    expect(cronJob.spec.concurrencyPolicy).toBe('Forbid');
    const pod = cronJob.spec.jobTemplate.spec.template.spec;
    expect(pod.containers[0].command).toEqual(['npm', 'run', 'rebuild', '--', 'all']);
    expect(pod.containers[0].image).toBe(container(one('Deployment', 'gateway')).image);
    expect(environment(pod).get('MM_URL')?.value).toBe(`http://gateway:${PORT}`);
    expect(environment(pod).get('MM_ADMIN_TOKEN')?.valueFrom?.secretKeyRef).toEqual({ name: 'money-movement-secrets', key: 'MM_ADMIN_TOKEN' });
    expect(pod.securityContext.runAsNonRoot).toBe(true);
  });

  it('lets only the gateway be reached from outside, and each service only from the gateway and the callers of its ports', () => {
    const policies = all('NetworkPolicy');
    // Everything refuses ingress unless a policy allows it.
    expect(policies.some((p) => Object.keys(p.spec.podSelector).length === 0 && p.spec.policyTypes.includes('Ingress') && !p.spec.ingress)).toBe(true);
    const gatewayPods = one('Deployment', 'gateway').spec.template.metadata.labels;
    const rulesFor = (labels: Record<string, string>) => policies.filter((p) => matches(p.spec.podSelector.matchLabels, labels)).flatMap((p) => p.spec.ingress ?? []);
    expect(rulesFor(gatewayPods)).toContainEqual({ ports: [{ protocol: 'TCP', port: PORT }] });
    for (const service of SERVICES) {
      const rules = rulesFor(one('Deployment', service).spec.template.metadata.labels);
      expect(rules.length).toBeGreaterThan(0);
      for (const rule of rules) {
        expect(rule.from?.length).toBeGreaterThan(0);
        for (const peer of rule.from) {
          expect(Object.keys(peer)).toEqual(['podSelector']);
          // ADR 0019: the callers of the service's ports, as distributed mode wires them.
          const callers = [gatewayPods, ...PORT_CALLERS[service as ServiceName].map((caller) => one('Deployment', caller).spec.template.metadata.labels)];
          expect(callers.some((labels) => matches(peer.podSelector.matchLabels, labels))).toBe(true);
        }
      }
      // And every caller of its ports is admitted, or the call would hang at the network.
      for (const caller of PORT_CALLERS[service as ServiceName]) {
        const labels = one('Deployment', caller).spec.template.metadata.labels;
        expect({ service, caller, admitted: rules.some((rule) => rule.from.some((peer: { podSelector: { matchLabels: Record<string, string> } }) => matches(peer.podSelector.matchLabels, labels))) }).toEqual({ service, caller, admitted: true });
      }
    }
  });
});

/** Stand-ins of the right form for the secrets, for the configuration check. */
function placeholder(name: string): string {
  if (name === 'DATABASE_URL' || name === 'MM_DATABASE_DIRECT_URL') return 'postgres://user:password@postgres:5432/money_movement';
  if (name === 'MM_SIGNING_KEY_ENCRYPTION_KEYS') return `k1:${Buffer.alloc(32, 1).toString('base64')}`;
  return 'x'.repeat(40);
}

describe('deploy/docker-compose.yml (and docker-compose.kafka.yml layered on it)', () => {
  const read = (file: string) => parse(readFileSync(join(ROOT, 'deploy', file), 'utf8'), { merge: true }) as { services: Record<string, any> };
  const compose = read('docker-compose.yml');
  const kafka = read('docker-compose.kafka.yml');

  it('runs PostgreSQL and the migrations before the services; the Kafka file adds a broker in KRaft mode', () => {
    expect(compose.services.postgres.image).toMatch(/^\$\{POSTGRES_IMAGE:-postgres:[^}]+\}$/);
    expect(compose.services.migrate.command).toEqual(['npm', 'run', 'migrate']);
    expect(compose.services.kafka).toBeUndefined();
    expect(kafka.services.kafka.environment.KAFKA_PROCESS_ROLES).toBe('broker,controller');
  });

  it.each(APPS)('runs %s from the one image, after the migrations, over PostgreSQL or on Kafka with the Kafka file', (app) => {
    const service = compose.services[app];
    expect(service).toBeDefined();
    expect(service.build).toEqual({ context: '..', dockerfile: 'deploy/Dockerfile' });
    expect(service.environment).toMatchObject({ SERVICE: app, KAFKA_BROKERS: '' });
    expect(service.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    expect(kafka.services[app]).toEqual({ environment: { KAFKA_BROKERS: 'kafka:9092' }, depends_on: { kafka: { condition: 'service_healthy' } } });
    if (app === 'gateway') for (const other of SERVICES) expect(service.environment[serviceUrlVariable(other as ServiceName)]).toBe(`http://${other}:${PORT}`);
    // Each port it calls (ADR 0019) at its owner's address; the gateway's is MM_GATEWAY_URL, which every service has.
    for (const owner of SERVICES.filter((o) => PORT_CALLERS[o as ServiceName].includes(app as ServiceName))) {
      expect(service.environment[serviceUrlVariable(owner as ServiceName)]).toBe(`http://${owner}:${PORT}`);
    }
    expect(service.environment.MM_GATEWAY_URL).toBe(`http://gateway:${PORT}`);
  });

  it('publishes the gateway alone, on 127.0.0.1', () => {
    expect(Object.keys(compose.services).filter((name) => compose.services[name].ports)).toEqual(['gateway']);
    expect(compose.services.gateway.ports).toEqual(['127.0.0.1:${PORT:-3000}:3000']);
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = readFileSync(join(ROOT, 'deploy', 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const instructions = dockerfile.split('\n').filter((line) => /^[A-Z]+\s/.test(line));

  it('builds only from files that exist', () => {
    const sources = instructions
      .filter((line) => line.startsWith('COPY ') && !line.includes('--from='))
      .flatMap((line) => line.split(/\s+/).slice(1, -1).filter((word) => !word.startsWith('--')));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((source) => !existsSync(join(ROOT, source)))).toEqual([]);
  });

  it('installs production dependencies only, runs as a non-root user, checks its health and takes the service as an argument', () => {
    expect(instructions).toContainEqual(expect.stringMatching(/^RUN .*npm ci --omit=dev/));
    const users = instructions.filter((line) => line.startsWith('USER '));
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)).not.toMatch(/^USER (root|0)\b/);
    expect(instructions).toContainEqual(expect.stringMatching(/^HEALTHCHECK .*\/healthz/));
    expect(instructions).toContainEqual('ARG SERVICE=gateway');
    expect(instructions.filter((line) => line.startsWith('FROM ')).length).toBeGreaterThanOrEqual(2);
  });
});
