// Global teardown of the e2e-pgbouncer Jest project: PgBouncer stops before PostgreSQL.
require('../../tools/register');
const { stopRunPgBouncer } = require('./pgbouncer.ts');

module.exports = () => stopRunPgBouncer();
