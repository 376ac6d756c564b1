export * from './money';
export * from './amount';
