export * from './accounts-event-store';
export * from './customers.service';
export * from './wallets.service';
export * from './endorsement-reviewer';
