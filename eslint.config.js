// Lint, with the architecture's boundaries enforced (STYLE: tags on two axes).
//   scope: a service imports another service only through libs/contracts.
//   type:  domain code stays free of framework and infrastructure.
const nx = require('@nx/eslint-plugin');
const tseslint = require('typescript-eslint');

const scope = (name, allowed) => ({
  sourceTag: `scope:${name}`,
  onlyDependOnLibsWithTags: allowed.map((s) => `scope:${s}`),
});
const type = (name, allowed) => ({
  sourceTag: `type:${name}`,
  onlyDependOnLibsWithTags: allowed.map((t) => `type:${t}`),
});

// Which tags may import which. Test files may also import the testing lib.
const constraints = (forTests) => [
  scope('contracts', ['platform']),
  scope('platform', ['platform', 'contracts']),
  scope('gateway', ['gateway', 'platform', 'contracts']),
  scope('accounts', ['accounts', 'platform', 'contracts']),
  scope('quoting', ['quoting', 'platform', 'contracts']),
  scope('transactions', ['transactions', 'platform', 'contracts']),
  scope('webhooks', ['webhooks', 'platform', 'contracts']),
  scope('cash-in', ['cash-in', 'platform', 'contracts']),
  scope('deposit-addresses', ['deposit-addresses', 'platform', 'contracts']),
  scope('virtual-accounts', ['virtual-accounts', 'platform', 'contracts']),
  // The partner client package stands alone: it is published, and imports nothing of the workspace.
  scope('client', []),
  // The dashboard runs in a browser: it reads the API over HTTP, typed by the client package's generated types.
  scope('dashboard', ['client']),
  scope('app', [
    'app',
    'client',
    'gateway',
    'accounts',
    'quoting',
    'transactions',
    'webhooks',
    'cash-in',
    'deposit-addresses',
    'virtual-accounts',
    'platform',
    'contracts',
  ]),
  ...[
    ['pure', ['pure']],
    ['contracts', ['pure']],
    ['domain', ['domain', 'pure', 'contracts']],
    ['infra', ['infra', 'domain', 'platform', 'pure', 'contracts']],
    ['application', ['application', 'infra', 'domain', 'platform', 'pure', 'contracts']],
    ['api', ['api', 'application', 'infra', 'domain', 'platform', 'pure', 'contracts']],
    ['platform', ['platform', 'pure', 'contracts']],
    ['testing', ['platform', 'pure', 'contracts']],
    ['runtime', ['runtime', 'api', 'application', 'infra', 'platform', 'pure', 'contracts']],
    ['app', ['runtime', 'platform', 'pure', 'contracts']],
    ['client', []],
    ['dashboard', ['client']],
    ['e2e', ['runtime', 'platform', 'testing', 'pure', 'contracts', 'client']],
    ['tools', ['runtime', 'platform', 'testing', 'pure', 'contracts', 'client']],
  ].map(([name, allowed]) => type(name, forTests ? [...allowed, 'testing'] : allowed)),
];
const boundaries = (forTests) => [
  'error',
  { enforceBuildableLibDependency: false, banTransitiveDependencies: false, depConstraints: constraints(forTests) },
];

module.exports = [
  // packages/*/src/generated: written by `npm run client:generate` from the OpenAPI document.
  {
    ignores: [
      'node_modules/**',
      '**/dist/**',
      '.data/**',
      '.nx/**',
      'coverage/**',
      '**/*.js',
      'packages/*/src/generated/**',
    ],
  },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': boundaries(false),
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Domain code: no framework, no I/O, no clock of its own (STYLE: domain first).
    files: ['libs/*/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@nestjs/*', 'typeorm', 'pg', 'kafkajs', 'node:*', 'fastify'] }],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'domain code takes time from its commands' },
      ],
    },
  },
  {
    // Tests may use Jest's globals and loose types.
    files: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts', 'test-e2e/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries(true) },
  },
];
