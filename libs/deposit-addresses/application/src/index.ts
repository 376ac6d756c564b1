export * from './deposit-addresses-event-store';
export * from './deposit-addresses.service';
