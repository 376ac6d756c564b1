export * from './bank';
export * from './virtual-accounts.migration';
export * from './virtual-accounts.repository';
