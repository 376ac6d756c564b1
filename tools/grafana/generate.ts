// `npm run dashboards`: writes the dashboards tools/grafana/dashboards.ts builds to deploy/grafana/dashboards,
// one JSON file each, as Grafana imports them (docs/metrics.md, "Dashboards").
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DASHBOARDS } from './dashboards';

export const DASHBOARDS_DIR = resolve(__dirname, '..', '..', 'deploy', 'grafana', 'dashboards');

/** A dashboard's file as committed: two-space JSON and a final newline. */
export const dashboardFile = (dashboard: unknown) => `${JSON.stringify(dashboard, null, 2)}\n`;

if (require.main === module) {
  mkdirSync(DASHBOARDS_DIR, { recursive: true });
  for (const [name, dashboard] of Object.entries(DASHBOARDS))
    writeFileSync(join(DASHBOARDS_DIR, `${name}.json`), dashboardFile(dashboard));
  process.stdout.write(`${Object.keys(DASHBOARDS).length} dashboards written to ${DASHBOARDS_DIR}\n`);
}
