export * from './instrument-identifiers.fixtures';
