export * from './webhooks.migration';
export * from './webhooks-read-models.repository';
export * from './webhook-signing-keys.repository';
