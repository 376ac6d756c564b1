export * from './webhook-endpoint.decider';
export * from './subscriptions';
export * from './delivery-schedule';
export * from './webhook-url';
export * from './announcement-order';
