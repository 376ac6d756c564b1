// Three tiers chosen by suffix (STYLE: tests read like the spec):
//   *.spec.ts      pure units (deciders, value objects)
//   *.int-spec.ts  against a real PostgreSQL (a template database cloned per file)
//   *.e2e-spec.ts  over HTTP against the platform listening on a port
const { compilerOptions } = require('./tsconfig.base.json');
const swc = JSON.parse(require('fs').readFileSync(`${__dirname}/.swcrc`, 'utf8'));

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace(/[/.]/g, '\\$&')}$`] = `<rootDir>/${target}`;
}
const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  // SWC rewrites the workspace aliases itself, so code Jest loads outside its
  // module registry (global setup) resolves them too.
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { ...swc, swcrc: false, jsc: { ...swc.jsc, baseUrl: __dirname, paths: compilerOptions.paths } },
    ],
  },
  moduleNameMapper,
  moduleFileExtensions: ['ts', 'js', 'json'],
};

module.exports = {
  globalSetup: '<rootDir>/tools/jest/global-setup.js',
  globalTeardown: '<rootDir>/tools/jest/global-teardown.js',
  // Three files at a time on the two cores CI has: most files wait on processes they started, on the
  // broker and on timers rather than compute (two workers kept the cores about 70% busy), so a third keeps
  // them busy: a clean-clone run went from 18 to 15.5 minutes with the same CPU time.
  maxWorkers: 3,
  // The files that need no shared multi-process platform first, so that no worker waits for it (tools/jest/sequencer.js).
  testSequencer: '<rootDir>/tools/jest/sequencer.js',
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.js'],
  // Above settle()'s own 30 s bound (test-e2e/support/test-platform.ts), so that a wait for the log readers
  // fails with its reason, not as a test timeout.
  testTimeout: 60000,
  projects: [
    // The image, the Compose stack and the manifests in a container engine (tools/containers): first in the run,
    // since its builds are long and mostly wait on the engine; skipped, saying why, where there is no engine.
    { ...common, displayName: 'containers', testMatch: ['<rootDir>/tools/containers/**/*.container-spec.ts'] },
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,packages,tools}/**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', '/dist/'],
    },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs}/**/*.int-spec.ts'] },
    // The dashboard in Chromium (test-e2e/dashboard, ADR 0038): one platform for the run's browser tests; built from
    // the current sources first; skipped, saying why, where there is no Chromium.
    {
      ...common,
      displayName: 'browser',
      testMatch: ['<rootDir>/test-e2e/dashboard/**/*.browser-spec.ts'],
      testEnvironment: '<rootDir>/tools/jest/e2e-environment.js',
      globalSetup: '<rootDir>/tools/jest/browser-setup.js',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test-e2e/**/*.e2e-spec.ts'],
      // About the e2e-pgbouncer project's PgBouncer.
      testPathIgnorePatterns: ['/node_modules/', '/test-e2e/pgbouncer\\.e2e-spec\\.ts$'],
      testEnvironment: '<rootDir>/tools/jest/e2e-environment.js',
    },
    // The same suite against npm run start:distributed's processes, except what is about one mode's
    // processes (npm start's restarts and the webhook, transaction and chain crash tests, the ledger invariant run; start:distributed's own multi-process,
    // deposit address and virtual account crash and tracing tests, the lifetime of the processes tests start, what both modes print at start and stop, and a Kafka broker's outage). Files that need no platform of their own share one, started by this project's
    // global setup (test-e2e/support/shared-platform.ts) only when the run has files of this project.
    {
      ...common,
      displayName: 'e2e-distributed',
      testEnvironment: '<rootDir>/tools/jest/e2e-environment.js',
      globalSetup: '<rootDir>/test-e2e/support/shared-platform.setup.js',
      globalTeardown: '<rootDir>/test-e2e/support/shared-platform.teardown.js',
      // With the fault run (tools/chaos), which is about distributed mode's processes alone and starts its own.
      testMatch: ['<rootDir>/test-e2e/**/*.e2e-spec.ts', '<rootDir>/tools/chaos/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: [
        '/test-e2e/(restart|webhook-crash|transaction-crash|chain-crash|ledger-invariant|pgbouncer)\\.e2e-spec\\.ts$',
        '/test-e2e/(distributed(-tracing)?|deposit-address-crash|virtual-account-crash|process-lifetime|startup-output|round-trips|kafka-broker)\\.e2e-spec\\.ts$',
      ],
      setupFiles: ['<rootDir>/tools/jest/distributed-mode.js'],
    },
    // The distributed crash tests again, and the smoke flow (pgbouncer.e2e-spec.ts), with every service's pool behind
    // a real PgBouncer in transaction pooling (docs/kubernetes.md, PgBouncer): skipped, saying why, where there is no
    // pgbouncer.
    {
      ...common,
      displayName: 'e2e-pgbouncer',
      testEnvironment: '<rootDir>/tools/jest/e2e-environment.js',
      globalSetup: '<rootDir>/test-e2e/support/pgbouncer.setup.js',
      globalTeardown: '<rootDir>/test-e2e/support/pgbouncer.teardown.js',
      testMatch: ['<rootDir>/test-e2e/(pgbouncer|deposit-address-crash|virtual-account-crash).e2e-spec.ts'],
      setupFiles: ['<rootDir>/tools/jest/distributed-mode.js'],
      setupFilesAfterEnv: ['<rootDir>/tools/jest/pgbouncer-mode.js'],
    },
    // A few e2e files in platform mode again with PostgreSQL from a container (deploy/README.md, The e2e suite in
    // containers): the project's own, started by testcontainers in the background of its global setup and migrated
    // once; every file's databases, and those of the processes it starts, are cloned there
    // (tools/jest/container-database.ts, containers-mode.js). The cheapest files that reach every service and crash a
    // process: event-shapes, one flow through all eight (the gateway's tokens, customers, wallets, external accounts
    // and counterparties, quotes and transactions, cash-ins, deposit addresses, virtual accounts, and every event
    // delivered to a webhook endpoint); `npm start` killed outright with webhook deliveries (webhook-crash) and with
    // transfers (transaction-crash) in flight; and start:distributed's virtual-accounts and transactions processes
    // killed and started again alone (virtual-account-crash, the cheaper of the two crash files of that kind: the
    // deposit addresses' is the same test of another service). Not restart (about the embedded PostgreSQL's data
    // directory) nor chain-crash (about the chain, with a node of its own to start). Skipped, saying why, where
    // there is no container engine.
    {
      ...common,
      displayName: 'e2e-containers',
      testEnvironment: '<rootDir>/tools/jest/e2e-environment.js',
      globalSetup: '<rootDir>/tools/jest/containers-setup.js',
      globalTeardown: '<rootDir>/tools/jest/containers-teardown.js',
      testMatch: [
        '<rootDir>/test-e2e/(event-shapes|webhook-crash|transaction-crash|virtual-account-crash).e2e-spec.ts',
      ],
      setupFilesAfterEnv: ['<rootDir>/tools/jest/containers-mode.js'],
    },
  ],
};
