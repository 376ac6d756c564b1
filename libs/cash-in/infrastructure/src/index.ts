export * from './cash-in.migration';
export * from './cash-ins.repository';
export * from './cash-locations.repository';
export * from './retail-network';
