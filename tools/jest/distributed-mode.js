// The e2e-distributed jest project: the same e2e suite, every request through
// the gateway in front of each service (test-e2e/support/test-platform.ts).
process.env.MM_E2E_MODE = 'distributed';
