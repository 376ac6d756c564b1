export * from './webhooks.migration';
export * from './webhooks-read-models.repository';
export * from './webhook-signing-keys.repository';
export * from './webhook-deliveries.migration';
export * from './webhook-deliveries.repository';
export * from './webhook-sender';
export * from './webhook-endpoints.cache';
export * from './announcement-order.repository';
