// Restricted API keys (docs/sdk.md, "Restricted keys"): a key made with scopes is allowed only the partner
// routes its scopes name, each scope `<resource>:read` (GET) or `<resource>:write` (every other method, and
// reading too). A resource is named as its routes' first path segment; quotes and transactions are one resource
// under either name, since a transaction is made from a quote. A key made without scopes has every scope, and
// only such a key may use the routes no scope names (the sandbox clock, the project's own keys).

export const API_KEY_RESOURCES = [
  'customers',
  'wallets',
  'quotes',
  'transactions',
  'external-accounts',
  'counterparties',
  'deposit-addresses',
  'virtual-accounts',
  'cash-ins',
  'webhooks',
  'events',
] as const;
export type ApiKeyResource = (typeof API_KEY_RESOURCES)[number];
export type ApiKeyAccess = 'read' | 'write';

/** Every scope a key can be given, in the order of API_KEY_RESOURCES, read before write. */
export const API_KEY_SCOPES: readonly string[] = API_KEY_RESOURCES.flatMap((r) => [`${r}:read`, `${r}:write`]);

export function isApiKeyScope(value: unknown): value is string {
  return typeof value === 'string' && API_KEY_SCOPES.includes(value);
}

/** The scopes a key or token holds: null for an unrestricted key. */
export type ApiKeyScopes = readonly string[] | null;

/** The routes, below the base path, that act on another resource than their first segment names. */
const ROUTE_RESOURCES: ReadonlyArray<readonly [RegExp, ApiKeyResource | null]> = [
  [/^\/customers\/[^/]+\/(wallets|balance)$/, 'wallets'],
  [/^\/cash-locations(\/|$)/, 'cash-ins'],
  [/^\/sandbox\/wallets\//, 'wallets'],
  // Project-wide: only a key with every scope moves the project's clock or manages its keys.
  [/^\/sandbox\/clock(\/|$)/, null],
  [/^\/api-keys(\/|$)/, null],
];

/**
 * The resource a partner route acts on, from its path below the base path (`/customers/:id`): null when no
 * scope names it, so that only an unrestricted key may use it.
 */
export function resourceOfRoute(path: string): ApiKeyResource | null {
  for (const [pattern, resource] of ROUTE_RESOURCES) if (pattern.test(path)) return resource;
  const first = /^\/([^/]+)/.exec(path)?.[1];
  return (API_KEY_RESOURCES as readonly string[]).includes(first ?? '') ? (first as ApiKeyResource) : null;
}

/** The access a request of this method needs: reading for GET and HEAD, writing for the rest. */
export function accessOfMethod(method: string): ApiKeyAccess {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/** Resources that one scope covers together, under each of their names. */
const ONE_RESOURCE: Partial<Record<ApiKeyResource, readonly ApiKeyResource[]>> = {
  quotes: ['quotes', 'transactions'],
  transactions: ['quotes', 'transactions'],
};

/** The names a scope for the resource may use: its own, and those of the resources it goes with. */
export function scopeNamesOf(resource: ApiKeyResource): readonly ApiKeyResource[] {
  return ONE_RESOURCE[resource] ?? [resource];
}

/** Whether scopes allow an access to a resource; writing implies reading. */
export function scopesAllow(scopes: ApiKeyScopes, resource: ApiKeyResource | null, access: ApiKeyAccess): boolean {
  if (scopes === null) return true;
  if (resource === null) return false;
  return scopeNamesOf(resource).some(
    (name) => scopes.includes(`${name}:write`) || (access === 'read' && scopes.includes(`${name}:read`)),
  );
}

/** Scopes as stored: each once, in the order of API_KEY_SCOPES; a read its write implies is dropped. */
export function normalizeScopes(scopes: readonly string[]): string[] {
  return API_KEY_SCOPES.filter(
    (scope) =>
      scopes.includes(scope) && !(scope.endsWith(':read') && scopes.includes(scope.replace(/:read$/, ':write'))),
  );
}
