import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOGUE } from '@mm/contracts';
import { renderErrorCatalogue } from './error-catalogue';

describe('error catalogue', () => {
  it('docs/errors.md is the generated catalogue (run npm run docs:errors)', () => {
    expect(readFileSync(join(__dirname, '..', '..', 'docs', 'errors.md'), 'utf8')).toBe(renderErrorCatalogue());
  });

  it('gives every error a unique code and a 4xx or 5xx status', () => {
    const codes = Object.values(ERROR_CATALOGUE).map((d) => d.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const d of Object.values(ERROR_CATALOGUE)) expect(d.status).toBeGreaterThanOrEqual(400);
  });

  it('keeps the spec-numbered codes and messages', () => {
    expect(ERROR_CATALOGUE.Unauthorized).toMatchObject({ code: 1000, msg: 'unauthorized access' });
    expect(ERROR_CATALOGUE.InvalidCustomerID).toMatchObject({ code: 10000, msg: 'invalid customer_id' });
    expect(ERROR_CATALOGUE.CustomerNotFound).toMatchObject({ code: 10001, msg: 'customer not found' });
    expect(ERROR_CATALOGUE.Provider).toMatchObject({ code: 10002, msg: 'invalid provider balance response' });
    expect(ERROR_CATALOGUE.ProviderUserAccountNotFound).toMatchObject({
      code: 10029,
      msg: 'provider account not provisioned for this customer',
    });
    expect(ERROR_CATALOGUE.ProviderUnreachable).toMatchObject({ code: 10087, msg: 'upstream provider unreachable' });
  });
});
