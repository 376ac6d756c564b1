// Global setup of the e2e-distributed Jest project (it runs only when that project has files in the
// run, before the run's own global setup): PostgreSQL and Kafka first, then the shared platform,
// started in the background (shared-platform.ts).
require('../../tools/register');
const { default: prepare } = require('../../tools/jest/global-setup.impl.ts');
const { startSharedPlatform } = require('./shared-platform.ts');

module.exports = async () => {
  await prepare();
  await startSharedPlatform();
};
