export * from './gateway.service';
export * from './gateway.event-store';
export * from './project.commands';
export * from './request-log-recorder';
export * from './request-log-masking';
