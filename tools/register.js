// Runs the TypeScript sources directly with SWC: decorator metadata and the
// workspace path aliases of tsconfig.base.json are honoured (see docs/adr/0002).
process.env.SWC_NODE_PROJECT = process.env.SWC_NODE_PROJECT || require('path').join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
