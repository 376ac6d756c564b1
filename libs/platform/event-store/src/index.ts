export * from './event-store';
export * from './events-table.migration';
export * from './subscription';
export * from './command-runner';
export * from './platform-events.migration';
export * from './partner-events';
export * from './stream-order';
export * from './command-handler';
