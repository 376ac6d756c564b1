// Issue 18 item 5: a path under another version prefix, or none, is answered
// with where the API lives (API-CONTRACT: every API path is under /v0.13).
import { NotFoundException } from '@nestjs/common';
import { noRouteCause, toErrorResponse } from './error-body.filter';

describe('a path no route serves', () => {
  it.each([
    ['GET', '/v1/customers', 'GET /v0.13/customers'],
    ['GET', '/v0.12/customers?limit=1', 'GET /v0.13/customers'],
    ['POST', '/V2/webhooks/wh_1/test', 'POST /v0.13/webhooks/wh_1/test'],
    ['GET', '/v0.13.1/customers', 'GET /v0.13/customers'],
    ['GET', '/customers', 'GET /v0.13/customers'],
    ['GET', '/v1', 'GET /v0.13'],
    ['GET', '/', 'GET /v0.13'],
  ])('%s %s outside the base path says the API lives under /v0.13 (%s)', (method, url, meant) => {
    const response = toErrorResponse(new NotFoundException(`Cannot ${method} ${url}`));
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: 'NotFound',
      code: 1104,
      msg: 'not found',
      cause: `no route ${method} ${url.split('?')[0]}: this API lives under /v0.13 (${meant})`,
      status: 404,
    });
  });

  it('under the base path, or outside it where the platform serves, is a plain no route', () => {
    expect(noRouteCause('Cannot GET /v0.13/nothing-here')).toBe('no route GET /v0.13/nothing-here');
    expect(noRouteCause('Cannot DELETE /v0.13')).toBe('no route DELETE /v0.13');
    expect(noRouteCause('Cannot POST /healthz')).toBe('no route POST /healthz');
    expect(noRouteCause('Cannot GET /docs/nothing')).toBe('no route GET /docs/nothing');
  });
});
