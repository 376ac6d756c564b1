// A test process that starts `npm run start:distributed` as the e2e suite does
// (spawnTied) and then does nothing: process-lifetime.e2e-spec.ts kills it with
// SIGKILL, as a Jest worker dies when its run is cut short, and checks that
// nothing it started lives on. Prints the process group's id on its first line.
import { spawnTied } from './distributed-processes';

const { child } = spawnTied(['-r', './tools/register.js', 'tools/distributed/start-distributed.ts'], process.env);
process.stdout.write(`${child.pid}\n`);
setInterval(() => undefined, 60_000);
