export * from './cash-in.event-store';
export * from './cash-ins.service';
export * from './cash-locations.service';
export * from './cash-in.commands';
