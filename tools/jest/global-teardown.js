require('../register');
module.exports = require('./global-setup.impl.ts').teardown;
