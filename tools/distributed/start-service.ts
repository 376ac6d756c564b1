// `npm run start:service -- <name>`: one service alone, as its app runs it
// (apps/<name>/src/main.ts), with tracing under that service's name.
import { startTelemetry } from '@mm/platform/telemetry';
import { isServiceName, SERVICE_NAMES } from '@mm/contracts';

const name = process.argv[2] ?? '';
if (!isServiceName(name)) {
  process.stderr.write(`usage: npm run start:service -- <name>; the services are ${SERVICE_NAMES.join(', ')}\n`);
  process.exit(2);
}
// Before anything requires http or pg, so tracing can patch them.
startTelemetry(`money-movement-${name}`);
// eslint-disable-next-line @typescript-eslint/no-require-imports
require(`../../apps/${name}/src/main`);
