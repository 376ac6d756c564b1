// The order Jest runs test files in (jest.config.js testSequencer). The e2e-distributed files share one
// multi-process platform that the project's global setup starts in the background (nine processes: tens of
// seconds on two cores); a file that needs it before it is up waits with its worker idle. So the files that
// need no shared platform come first (after the container tests, whose image builds mostly wait on the engine, and the
// dashboard's one long browser file), each group in Jest's own order (slowest or largest first), and the
// shared platform is up by the time its files start: e2e and e2e-pgbouncer (platforms of their own), the few long
// unit and integration files, then e2e-distributed, then e2e-containers (Jest runs the projects' global setups in
// this order too, and its PostgreSQL container, built where the image is missing, starts only once the shared
// platform has: two heavy starts at once at the beginning of the run made the shared platform's services miss
// their readiness limit), then the other integration and unit files, short ones that fill the workers at the end
// of the run.
const Sequencer = require('@jest/test-sequencer').default;

const GROUPS = [
  'containers',
  'browser',
  'e2e',
  'e2e-pgbouncer',
  'containers-after-e2e',
  'long-units',
  'e2e-distributed',
  'e2e-containers',
  'integration',
  'unit',
];
// The manifests' play reuses the image the Compose test builds, and two stacks of nine processes at once would
// only slow each other on two cores: it follows the e2e files, by when the Compose test is long done.
const AFTER_E2E = /tools\/containers\/kube\.container-spec\.ts$/;
// Unit and integration files that each take a minute (a broker's protocol driven for real): ahead of the shared
// platform's files rather than among the short files that end the run, where one would run on alone while the other
// workers wait with nothing left.
const LONG_UNITS =
  /(tools\/kafka-mock\/(stock-broker-proxy|patched-mock)\.spec|libs\/platform\/messaging\/src\/kafka\.transport\.int-spec)\.ts$/;

class PlatformFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const group = (test) => {
      const name = AFTER_E2E.test(test.path)
        ? 'containers-after-e2e'
        : LONG_UNITS.test(test.path)
          ? 'long-units'
          : (test.context.config.displayName?.name ?? '');
      const index = GROUPS.indexOf(name);
      return index === -1 ? GROUPS.length : index;
    };
    // A stable partition: Jest's order within each group is kept.
    return sorted
      .map((test, i) => ({ test, i }))
      .sort((a, b) => group(a.test) - group(b.test) || a.i - b.i)
      .map(({ test }) => test);
  }
}

module.exports = PlatformFirstSequencer;
