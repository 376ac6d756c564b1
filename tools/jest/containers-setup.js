// Global setup of the e2e-containers Jest project (it runs only when that project has files in the run): the
// project's PostgreSQL container, started in the background (container-database.ts).
require('../register');
const { startContainerDatabase } = require('./container-database.ts');

module.exports = () => startContainerDatabase();
