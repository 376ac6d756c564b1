export * from './transactions-event-store';
export * from './transactions.service';
