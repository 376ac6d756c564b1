// The alerting rules (docs/metrics.md, docs/runbooks/): valid for Prometheus and firing as their tests say
// (`promtool check rules` and `promtool test rules`, Debian's prometheus package, which .ci/run installs); the
// Prometheus Operator's copy the same as the plain file; every alert with its runbook; every metric an alert
// reads one that docs/metrics.md or docs/chain.md documents.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '..', '..');
const RULES = join(ROOT, 'deploy', 'prometheus', 'rules.yml');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  labels: { severity: string };
  annotations: { summary: string; description: string; runbook_url: string };
}
const groups = (parse(read('deploy/prometheus/rules.yml')) as { groups: Array<{ rules: Rule[] }> }).groups;
const alerts = groups.flatMap((g) => g.rules);

const hasPromtool = spawnSync('promtool', ['--version'], { encoding: 'utf8' }).status === 0;
if (!hasPromtool)
  process.stderr.write('prometheus-rules.spec: the promtool checks are skipped: promtool (Debian prometheus) is absent\n');

function promtool(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { cwd: join(ROOT, 'deploy', 'prometheus'), encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe('the alerting rules', () => {
  (hasPromtool ? it : it.skip)('are valid rules, and raise each alert as their unit tests say', () => {
    expect(promtool('check', 'rules', RULES)).toMatchObject({ status: 0 });
    const tested = promtool('test', 'rules', 'rules.test.yml');
    expect({ status: tested.status, output: tested.status === 0 ? '' : tested.output }).toEqual({
      status: 0,
      output: '',
    });
  });

  it('test every alert they define', () => {
    const tests = read('deploy/prometheus/rules.test.yml');
    for (const { alert } of alerts) expect({ alert, tested: tests.includes(`alertname: ${alert}`) }).toEqual({ alert, tested: true });
  });

  it('are the same for the Prometheus Operator (k8s/monitoring)', () => {
    const resource = parse(read('k8s/monitoring/prometheus-rule.yaml'));
    expect(resource).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
    expect(resource.spec.groups).toEqual(groups);
    expect(parse(read('k8s/monitoring/kustomization.yaml')).resources).toEqual([
      'service-monitor.yaml',
      'prometheus-rule.yaml',
    ]);
  });

  it("scrape every service's /metrics through the ServiceMonitor, the job named as the rules name it", () => {
    const monitor = parse(read('k8s/monitoring/service-monitor.yaml'));
    expect(monitor).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor' });
    expect(monitor.spec.jobLabel).toBe('app.kubernetes.io/name');
    expect(monitor.spec.endpoints).toEqual([{ port: 'http', path: '/metrics', interval: '30s' }]);
    // Every service's Service carries the labels the monitor selects (the base's common label included) and the
    // port it names.
    const base = parse(read('k8s/base/kustomization.yaml'));
    for (const file of base.resources.filter((r: string) => r.startsWith('services/'))) {
      const service = parseAllDocuments(read(join('k8s', 'base', file)))
        .map((doc) => doc.toJSON())
        .find((object) => object?.kind === 'Service');
      const labels = { ...base.labels[0].pairs, ...service.metadata.labels };
      for (const [label, value] of Object.entries(monitor.spec.selector.matchLabels)) expect(labels[label]).toBe(value);
      expect(labels['app.kubernetes.io/name']).toBe(service.metadata.name);
      expect(service.spec.ports.map((p: { name: string }) => p.name)).toContain('http');
    }
  });

  it('give each alert a severity, a summary and its runbook, which says what it means, how to confirm, how to fix', () => {
    const index = read('docs/runbooks/README.md');
    for (const { alert, labels, annotations } of alerts) {
      expect(['warning', 'critical']).toContain(labels.severity);
      expect(annotations.summary).toBeTruthy();
      expect(annotations.runbook_url).toBe(`docs/runbooks/${alert}.md`);
      expect(existsSync(join(ROOT, annotations.runbook_url))).toBe(true);
      const runbook = read(annotations.runbook_url);
      expect(runbook.startsWith(`# ${alert}: `)).toBe(true);
      for (const heading of ['## What it means', '## How to confirm', '## How to fix']) expect(runbook).toContain(heading);
      expect(index).toContain(`[${alert}](${alert}.md)`);
    }
  });

  it('read only metrics the documentation names', () => {
    const documented = `${read('docs/metrics.md')}\n${read('docs/chain.md')}`;
    for (const { alert, expr } of alerts) {
      const metrics = [...expr.matchAll(/\b((?:mm|http)_[a-z_]+)\b/g)].map(([, name]) =>
        name.replace(/_(bucket|sum|count)$/, ''),
      );
      expect(metrics.length).toBeGreaterThan(0);
      for (const metric of metrics) expect({ alert, metric, documented: documented.includes(`\`${metric}\``) }).toEqual({ alert, metric, documented: true });
    }
  });
});
