// The browser project's global setup: the dashboard built from the current sources, so the browser tests
// drive the page as it is now (an install builds it too; this covers a change since). The run's own global
// setup (the template database) follows.
const { buildIfStale } = require('../dashboard/build-if-stale');

module.exports = async function browserSetup() {
  buildIfStale();
};
