export * from './virtual-accounts-event-store';
export * from './virtual-accounts.service';
