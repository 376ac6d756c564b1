// Global teardown of the e2e-distributed Jest project: the shared platform stops before PostgreSQL.
require('../../tools/register');
const { stopSharedPlatform } = require('./shared-platform.ts');

module.exports = () => stopSharedPlatform();
