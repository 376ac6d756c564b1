// Global setup of the e2e-pgbouncer Jest project (it runs only when that project has files in the run): PostgreSQL
// and Kafka first, then PgBouncer before PostgreSQL (pgbouncer.ts).
require('../../tools/register');
const { default: prepare } = require('../../tools/jest/global-setup.impl.ts');
const { startRunPgBouncer } = require('./pgbouncer.ts');

module.exports = async () => {
  await prepare();
  await startRunPgBouncer();
};
