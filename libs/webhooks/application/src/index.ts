export * from './webhooks-event-store';
export * from './webhook-url-policy';
export * from './webhook-endpoints.service';
export * from './webhook-fan-out';
export * from './webhook-delivery-worker';
export * from './webhook-deliveries.service';
export * from './partner-events.service';
export { WebhookEndpointCommands } from './webhook-endpoint.commands';
