export * from './quoting-event-store';
export * from './quotes.service';
export * from './cash-pickups.service';
export * from './quote.commands';
