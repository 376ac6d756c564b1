export * from './gateway.service';
export * from './gateway.event-store';
export * from './project.commands';
