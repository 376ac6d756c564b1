export * from './instrument-identifiers.fixture';
