export * from './quoting-event-store';
export * from './quotes.service';
