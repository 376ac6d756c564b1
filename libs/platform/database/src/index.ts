export * from './unit-of-work';
export * from './data-source';
export * from './errors';
export * from './pg-listener';
export * from './notified-cache';
export * from './project-cache';
export * from './async-scope';
// For their contract test (libs/platform/testing/src/pg-internals.int-spec.ts): nothing else reaches into pg.
export * as pgInternals from './pg-internals';
