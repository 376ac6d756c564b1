// Global teardown of the e2e-containers Jest project: its PostgreSQL container stops and is removed.
require('../register');
const { stopContainerDatabase } = require('./container-database.ts');

module.exports = () => stopContainerDatabase();
