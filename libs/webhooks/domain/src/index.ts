export * from './webhook-endpoint.decider';
export * from './subscriptions';
