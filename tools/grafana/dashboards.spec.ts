// The Grafana dashboards (docs/metrics.md, "Dashboards"): the committed JSON is what tools/grafana/dashboards.ts
// builds (`npm run dashboards` writes it), every panel queries only metrics the platform registers and the
// documentation names, and each dashboard's uid and panel ids are its own.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DASHBOARDS } from './dashboards';
import { DASHBOARDS_DIR, dashboardFile } from './generate';

const ROOT = resolve(__dirname, '..', '..');

/** Every .ts file under a directory, tests left out. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !/\.(spec|int-spec|e2e-spec)\.ts$/.test(entry.name) ? [path] : [];
  });
}

/** The metric names the platform's code spells out (a registered metric's name is a literal there). */
const registered = new Set(
  sources(join(ROOT, 'libs')).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/'((?:mm|http)_[a-z_]+)'/g)].map(([, name]) => name),
  ),
);
const documented = `${readFileSync(join(ROOT, 'docs', 'metrics.md'), 'utf8')}\n${readFileSync(join(ROOT, 'docs', 'chain.md'), 'utf8')}`;

type Panel = { type: string; id: number; title: string; targets?: Array<{ expr: string }> };

describe('the Grafana dashboards', () => {
  it('are committed as they are built', () => {
    const files = readdirSync(DASHBOARDS_DIR).sort();
    expect(files).toEqual(
      Object.keys(DASHBOARDS)
        .map((name) => `${name}.json`)
        .sort(),
    );
    for (const [name, dashboard] of Object.entries(DASHBOARDS))
      expect({ name, file: readFileSync(join(DASHBOARDS_DIR, `${name}.json`), 'utf8') }).toEqual({
        name,
        file: dashboardFile(dashboard),
      });
  });

  it('query only metrics the platform registers and the documentation names', () => {
    for (const dashboard of Object.values(DASHBOARDS)) {
      const panels = (dashboard.panels ?? []) as Panel[];
      const graphs = panels.filter((p) => p.type !== 'row');
      expect(graphs.length).toBeGreaterThan(0);
      for (const panel of graphs) {
        expect(panel.targets?.length).toBeGreaterThan(0);
        for (const { expr } of panel.targets!) {
          const metrics = [...expr.matchAll(/\b((?:mm|http)_[a-z_]+)\b/g)].map(([, name]) =>
            name.replace(/_(bucket|sum|count)$/, ''),
          );
          expect(metrics.length).toBeGreaterThan(0);
          for (const metric of metrics)
            expect({
              panel: panel.title,
              metric,
              registered: registered.has(metric),
              documented: documented.includes(`\`${metric}\``),
            }).toEqual({
              panel: panel.title,
              metric,
              registered: true,
              documented: true,
            });
        }
      }
    }
  });

  it('give each dashboard a uid, and each row and panel an id, of its own', () => {
    const uids = Object.values(DASHBOARDS).map((d) => d.uid);
    expect(new Set(uids).size).toBe(uids.length);
    for (const dashboard of Object.values(DASHBOARDS)) {
      const ids = ((dashboard.panels ?? []) as Panel[]).map((p) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});
