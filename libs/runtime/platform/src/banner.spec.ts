import { randomBytes } from 'node:crypto';
import { loadConfig } from '@mm/platform/config';
import { operatorsLine } from './banner';

const PRODUCTION = {
  MM_ENVIRONMENT: 'production',
  MM_SIGNING_KEY_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
  MM_ALLOW_SIMULATED_PROVIDERS: 'true',
};
const SSO = { MM_OIDC_ISSUER: 'https://id.example.com', MM_OIDC_CLIENT_ID: 'money-movement' };
const TOKEN = { MM_ADMIN_TOKEN: 'break-glass-admin-token-0123456789' };

describe("the banner's Operators line (docs/operators.md)", () => {
  it('names the OpenID provider, the roles claim and what the static token is worth', () => {
    expect(operatorsLine(loadConfig({ ...SSO, ...TOKEN }))).toBe(
      '  Operators    sign in at https://id.example.com (roles from roles); the static admin token as break-glass',
    );
    expect(
      operatorsLine(loadConfig({ ...PRODUCTION, ...SSO, ...TOKEN, MM_OIDC_ROLES_CLAIM: 'realm_access.roles' })),
    ).toBe(
      '  Operators    sign in at https://id.example.com (roles from realm_access.roles); the static admin token ' +
        'refused (MM_ADMIN_TOKEN_IN_PRODUCTION is not true)',
    );
    expect(operatorsLine(loadConfig({ ...PRODUCTION, ...SSO }))).toMatch(/; no static admin token$/);
  });

  it('says nothing in a sandbox without SSO, and warns in production without it', () => {
    expect(operatorsLine(loadConfig(TOKEN))).toBeUndefined();
    expect(operatorsLine(loadConfig({ ...PRODUCTION, ...TOKEN }))).toBe(
      '  Operators    no OpenID provider (MM_OIDC_ISSUER); the operator routes are closed',
    );
    expect(operatorsLine(loadConfig({ ...PRODUCTION, ...TOKEN, MM_ADMIN_TOKEN_IN_PRODUCTION: 'true' }))).toBe(
      '  Operators    no OpenID provider (MM_OIDC_ISSUER); the static admin token only',
    );
  });

  it('refuses an issuer without a client id, and a malformed issuer or roles claim', () => {
    expect(() => loadConfig({ MM_OIDC_ISSUER: 'https://id.example.com' })).toThrow(/MM_OIDC_CLIENT_ID is required/);
    expect(() => loadConfig({ ...SSO, MM_OIDC_ISSUER: 'id.example.com' })).toThrow(/MM_OIDC_ISSUER must be/);
    expect(() => loadConfig({ ...SSO, MM_OIDC_ROLES_CLAIM: 'roles..x' })).toThrow(/MM_OIDC_ROLES_CLAIM must be/);
    expect(() => loadConfig({ MM_ADMIN_TOKEN_IN_PRODUCTION: 'yes' })).toThrow(/MM_ADMIN_TOKEN_IN_PRODUCTION/);
  });
});
