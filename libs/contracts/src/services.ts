// The services of distributed mode and which partner paths each owns
// (ARCHITECTURE: Services). The gateway routes by this table; a service added
// later adds its row here, its app under apps/, and its Kubernetes objects.

export const SERVICE_NAMES = [
  'gateway',
  'accounts',
  'quoting',
  'transactions',
  'webhooks',
  'cash-in',
  'deposit-addresses',
  'virtual-accounts',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** Path prefixes under the base path that the gateway forwards, by owning service. */
export const SERVICE_ROUTES: Record<Exclude<ServiceName, 'gateway'>, string[]> = {
  accounts: [
    '/customers',
    '/wallets',
    '/external-accounts',
    '/counterparties',
    '/sandbox/wallets',
    '/sandbox/clock',
    '/admin/chains',
    '/admin/customers',
    '/admin/reconciliation',
    '/admin/read-models/accounts',
  ],
  quoting: ['/quotes', '/admin/read-models/quoting'],
  transactions: ['/transactions', '/admin/transactions', '/admin/approvals', '/admin/read-models/transactions'],
  webhooks: ['/webhooks', '/events', '/admin/webhooks', '/admin/read-models/webhooks'],
  'cash-in': ['/cash-ins', '/cash-locations', '/admin/read-models/cash-in'],
  'deposit-addresses': ['/deposit-addresses', '/admin/read-models/deposit-addresses'],
  'virtual-accounts': ['/virtual-accounts', '/admin/read-models/virtual-accounts'],
};

/** The environment variable that tells the gateway where a service listens. */
export function serviceUrlVariable(service: ServiceName): string {
  return `MM_SERVICE_${service.toUpperCase().replace(/-/g, '_')}_URL`;
}

export function isServiceName(value: string): value is ServiceName {
  return (SERVICE_NAMES as readonly string[]).includes(value);
}
