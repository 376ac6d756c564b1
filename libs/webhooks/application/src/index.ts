export * from './webhooks-event-store';
export * from './webhook-url-policy';
export * from './webhook-endpoints.service';
