export * from './quoting.event-store';
export * from './quotes.service';
export * from './accept-quote.handler';
export * from './quotes-made-here';
export * from './cash-pickups.service';
export * from './quote.commands';
