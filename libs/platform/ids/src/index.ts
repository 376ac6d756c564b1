export * from './ids';
export * from './random-hex';
