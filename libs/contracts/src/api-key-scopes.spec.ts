import {
  accessOfMethod,
  API_KEY_SCOPES,
  isApiKeyScope,
  normalizeScopes,
  resourceOfRoute,
  scopesAllow,
} from './api-key-scopes';

describe('restricted API keys (docs/sdk.md, Restricted keys)', () => {
  it("names a route's resource by its first path segment, and the routes that act on another's", () => {
    expect(resourceOfRoute('/customers')).toBe('customers');
    expect(resourceOfRoute('/customers/:id/endorsements')).toBe('customers');
    expect(resourceOfRoute('/customers/:id/wallets')).toBe('wallets');
    expect(resourceOfRoute('/customers/:id/balance')).toBe('wallets');
    expect(resourceOfRoute('/external-accounts/:id/simulate/invalidate')).toBe('external-accounts');
    expect(resourceOfRoute('/cash-locations')).toBe('cash-ins');
    expect(resourceOfRoute('/sandbox/wallets/:id/fund')).toBe('wallets');
    expect(resourceOfRoute('/events/:eventId')).toBe('events');
  });

  it('leaves project-wide routes and unknown ones to keys with every scope', () => {
    for (const path of ['/sandbox/clock', '/sandbox/clock/advance', '/api-keys', '/api-keys/:apiKey/roll', '/other'])
      expect({ path, resource: resourceOfRoute(path) }).toEqual({ path, resource: null });
  });

  it('reads with GET and HEAD, writes with the rest', () => {
    expect(['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'].map(accessOfMethod)).toEqual([
      'read',
      'read',
      'write',
      'write',
      'write',
    ]);
  });

  it('allows what the scopes name, writing implying reading, and everything to an unrestricted key', () => {
    expect(scopesAllow(['customers:read'], 'customers', 'read')).toBe(true);
    expect(scopesAllow(['customers:read'], 'customers', 'write')).toBe(false);
    expect(scopesAllow(['customers:write'], 'customers', 'read')).toBe(true);
    expect(scopesAllow(['customers:write'], 'wallets', 'read')).toBe(false);
    expect(scopesAllow(['customers:write'], null, 'read')).toBe(false);
    expect(scopesAllow([], 'customers', 'read')).toBe(false);
    expect(scopesAllow(null, null, 'write')).toBe(true);
  });

  it('takes quotes and transactions as one resource, under either name', () => {
    expect(scopesAllow(['transactions:write'], 'quotes', 'write')).toBe(true);
    expect(scopesAllow(['quotes:read'], 'transactions', 'read')).toBe(true);
    expect(scopesAllow(['quotes:read'], 'transactions', 'write')).toBe(false);
    expect(scopesAllow(['transactions:read'], 'customers', 'read')).toBe(false);
  });

  it('stores each scope once, in a fixed order, without a read its write implies', () => {
    expect(normalizeScopes(['webhooks:read', 'customers:read', 'customers:write', 'webhooks:read'])).toEqual([
      'customers:write',
      'webhooks:read',
    ]);
  });

  it('knows a read and a write scope of each resource, and nothing else', () => {
    expect(API_KEY_SCOPES).toHaveLength(22);
    expect(API_KEY_SCOPES.every(isApiKeyScope)).toBe(true);
    for (const value of ['customers', 'customers:delete', 'Customers:read', '', 42, null])
      expect(isApiKeyScope(value)).toBe(false);
  });
});
