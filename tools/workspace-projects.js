// The workspace's project list: one place that names every Nx project, its
// tags on the two axes (scope, type) and its import alias. Run with
// `node tools/workspace-projects.js` after adding a project; it rewrites each
// project.json and the path aliases in tsconfig.base.json.
const fs = require('fs');
const path = require('path');

const projects = [
  ['apps/platform', 'platform-app', 'scope:app', 'type:app'],
  // Distributed mode: one app per service (libs/contracts SERVICE_NAMES).
  ['apps/gateway', 'gateway-app', 'scope:app', 'type:app'],
  ['apps/accounts', 'accounts-app', 'scope:app', 'type:app'],
  ['apps/quoting', 'quoting-app', 'scope:app', 'type:app'],
  ['apps/transactions', 'transactions-app', 'scope:app', 'type:app'],
  ['apps/webhooks', 'webhooks-app', 'scope:app', 'type:app'],
  ['apps/cash-in', 'cash-in-app', 'scope:app', 'type:app'],
  ['apps/deposit-addresses', 'deposit-addresses-app', 'scope:app', 'type:app'],
  ['apps/virtual-accounts', 'virtual-accounts-app', 'scope:app', 'type:app'],
  // Composition of every service into one process: what apps, e2e tests and the benchmark start.
  ['libs/runtime/platform', 'runtime-platform', 'scope:app', 'type:runtime', '@mm/runtime/platform'],
  ['test-e2e', 'e2e', 'scope:app', 'type:e2e'],
  // The dashboard (a browser app the gateway serves): it may use the client package's generated types only.
  ['apps/dashboard', 'dashboard', 'scope:dashboard', 'type:dashboard'],
  ['tools', 'tools', 'scope:app', 'type:tools'],
  ['libs/contracts', 'contracts', 'scope:contracts', 'type:contracts', '@mm/contracts'],
  // The partner client package (published as @meridian/money-movement): it imports nothing of the workspace.
  ['packages/client', 'client', 'scope:client', 'type:client', '@meridian/money-movement'],
  // Framework-free building blocks a domain may use.
  ...['ids', 'money', 'decider'].map((n) => [
    `libs/platform/${n}`,
    `platform-${n}`,
    'scope:platform',
    'type:pure',
    `@mm/platform/${n}`,
  ]),
  ...['config', 'database', 'event-store', 'messaging', 'http', 'clock', 'auth', 'telemetry'].map((n) => [
    `libs/platform/${n}`,
    `platform-${n}`,
    'scope:platform',
    'type:platform',
    `@mm/platform/${n}`,
  ]),
  ['libs/platform/testing', 'platform-testing', 'scope:platform', 'type:testing', '@mm/platform/testing'],
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/gateway/${t}`,
    `gateway-${t}`,
    'scope:gateway',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/gateway/${t}`,
  ]),
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/accounts/${t}`,
    `accounts-${t}`,
    'scope:accounts',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/accounts/${t}`,
  ]),
  ['libs/accounts/testing', 'accounts-testing', 'scope:accounts', 'type:testing', '@mm/accounts/testing'],
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/quoting/${t}`,
    `quoting-${t}`,
    'scope:quoting',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/quoting/${t}`,
  ]),
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/transactions/${t}`,
    `transactions-${t}`,
    'scope:transactions',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/transactions/${t}`,
  ]),
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/webhooks/${t}`,
    `webhooks-${t}`,
    'scope:webhooks',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/webhooks/${t}`,
  ]),
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/cash-in/${t}`,
    `cash-in-${t}`,
    'scope:cash-in',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/cash-in/${t}`,
  ]),
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/deposit-addresses/${t}`,
    `deposit-addresses-${t}`,
    'scope:deposit-addresses',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/deposit-addresses/${t}`,
  ]),
  ...['domain', 'application', 'api', 'infrastructure'].map((t) => [
    `libs/virtual-accounts/${t}`,
    `virtual-accounts-${t}`,
    'scope:virtual-accounts',
    `type:${t === 'infrastructure' ? 'infra' : t}`,
    `@mm/virtual-accounts/${t}`,
  ]),
];

const root = path.join(__dirname, '..');
const aliases = {};
for (const [dir, name, scope, type, alias] of projects) {
  const projectJson = {
    name,
    $schema: path.relative(dir, 'node_modules/nx/schemas/project-schema.json'),
    sourceRoot: dir === 'test-e2e' || dir === 'tools' ? dir : `${dir}/src`,
    projectType: type === 'type:app' || type === 'type:dashboard' ? 'application' : 'library',
    tags: [scope, type],
  };
  fs.mkdirSync(path.join(root, projectJson.sourceRoot), { recursive: true });
  fs.writeFileSync(path.join(root, dir, 'project.json'), JSON.stringify(projectJson, null, 2) + '\n');
  if (alias) aliases[alias] = [`./${dir}/src/index.ts`];
}
const tsconfigPath = path.join(root, 'tsconfig.base.json');
const tsconfig = JSON.parse(fs.readFileSync(tsconfigPath, 'utf8'));
tsconfig.compilerOptions.paths = aliases;
fs.writeFileSync(tsconfigPath, JSON.stringify(tsconfig, null, 2) + '\n');
module.exports = { projects, aliases };
