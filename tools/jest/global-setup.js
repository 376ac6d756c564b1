// Jest global setup runs outside Jest's transform: load TypeScript through SWC.
require('../register');
module.exports = require('./global-setup.impl.ts').default;
