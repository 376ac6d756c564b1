export * from './pricing';
export * from './quote.decider';
export * from './instruments';
export * from './cash-pickup';
