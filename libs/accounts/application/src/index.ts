export * from './accounts-event-store';
export * from './customers.service';
export * from './wallets.service';
export * from './endorsement-reviewer';
export * from './counterparties.service';
export * from './external-accounts.service';
export * from './external-account-provisioner';
export * from './accounts-partner-events';
