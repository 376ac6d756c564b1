// The e2e-distributed jest project: the same e2e suite, every request through
// the gateway in front of each service, as npm run start:distributed runs them
// (test-e2e/support/distributed-processes.ts).
process.env.MM_E2E_MODE = 'distributed';
