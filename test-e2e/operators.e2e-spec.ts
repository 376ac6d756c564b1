// Operators as people with roles (issue 46, docs/operators.md): the platform set up with a real OpenID provider
// (oidc-provider, in a process of its own), operators in every role signed in there with the authorization code
// flow and PKCE. Every operator route of the OpenAPI document declares its role, and each role is allowed
// exactly the routes of its role and the roles below it; the gateway's own routes and those it forwards to the
// services (checked by each service itself) alike. Partner and operator tokens never stand in for each other.
// Every action the file's operators take is then found in the audit log, whose hash chain verifies, and stops
// verifying at the entry changed or deleted in the database.
import { OPERATOR_ROLES, roleAllows, type OperatorRole } from '@mm/platform/http';
import { freePort, startTestIdp, testIdpSettings, type TestIdp } from '@mm/platform/testing';
import {
  ADMIN_TOKEN,
  eventually,
  expectError,
  START_TIMEOUT_MS,
  TestPlatform,
  type Response,
} from './support/test-platform';

/** The signed-in operator of each role, and one whose token names no operator role. */
const OPERATOR_OF: Record<OperatorRole, string> = { viewer: 'vera', support: 'sam', operator: 'olga', admin: 'ada' };
const NO_ROLE = 'nora';

/** An operator action this file took (not a read, not a refusal): what the audit log must hold. */
interface Action {
  requestId: string;
  subject: string;
  action: string;
  status: number;
}

interface Operation {
  method: string;
  path: string;
  role: unknown;
}

describe('operator roles', () => {
  let idp: TestIdp;
  let platform: TestPlatform;
  const tokens = new Map<string, string>();
  let operations: Operation[] = [];
  const actions: Action[] = [];

  /** A request; an operator's action (not a GET, not refused at the door) is remembered for the audit log. */
  async function operate(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; idempotencyKey?: string } = {},
  ) {
    const res = await platform.request(method, path, options);
    const subject =
      options.token === ADMIN_TOKEN ? 'admin-token' : [...tokens].find(([, token]) => token === options.token)?.[0];
    // Refused at the door (no token, or a role below the route's) is not an action; refused past it is.
    const atTheDoor = res.status === 401 || (res.status === 403 && res.body?.error === 'InsufficientRole');
    if (path.startsWith('/v0.13/admin/') && method !== 'GET' && subject && !atTheDoor)
      actions.push({ requestId: res.headers.get('x-request-id')!, subject, action: method, status: res.status });
    return res;
  }

  beforeAll(async () => {
    // The IdP listens once the platform's address, the dashboard's redirect URI, is known; the platform finds it
    // at the first operator request.
    const idpPort = await freePort();
    platform = await TestPlatform.start(testIdpSettings(idpPort));
    idp = await startTestIdp({ port: idpPort, redirectUris: [`${platform.url}/dashboard/auth/callback`] });
    // Otto: a second operator, for four eyes.
    for (const login of [...Object.values(OPERATOR_OF), 'otto', NO_ROLE]) tokens.set(login, await idp.tokenFor(login));
    const document = (await platform.request('GET', '/openapi.json')).body;
    operations = Object.entries(document.paths as Record<string, Record<string, Record<string, unknown>>>)
      .filter(([path]) => path.startsWith('/v0.13/admin/'))
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          role: operation['x-operator-role'],
        })),
      );
  }, START_TIMEOUT_MS);
  afterAll(async () => {
    await platform?.stop();
    await idp?.stop();
  });

  /** The operation called with placeholders for its path's ids and an empty body: nothing it names exists. */
  function call(operation: Operation, token: string) {
    const path = operation.path.replace(/\{[^}]+\}/g, 'unknown');
    const body = operation.method === 'POST' || operation.method === 'PATCH' ? {} : undefined;
    return operate(operation.method, path, { token, body });
  }

  it('declares a role on every operator route of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(21);
    expect(operations.filter((o) => !OPERATOR_ROLES.includes(o.role as OperatorRole))).toEqual([]);
  });

  it('lets each role call the routes of its role and below, and refuses the others with 403 InsufficientRole', async () => {
    const seen: string[] = [];
    const expected: string[] = [];
    for (const operation of operations) {
      for (const [role, login] of Object.entries(OPERATOR_OF) as Array<[OperatorRole, string]>) {
        const res = await call(operation, tokens.get(login)!);
        const allowed = roleAllows(role, operation.role as OperatorRole);
        const what = `${role} ${operation.method} ${operation.path}`;
        seen.push(`${what}: ${res.status === 403 || res.status === 401 ? res.body.error : 'reached'}`);
        expected.push(`${what}: ${allowed ? 'reached' : 'InsufficientRole'}`);
        if (!allowed)
          expect(res.body).toMatchObject({
            error: 'InsufficientRole',
            code: 1142,
            status: 403,
            cause: expect.stringMatching(
              new RegExp(`needs the ${String(operation.role)} role; this token's is ${role}$`),
            ),
          });
      }
    }
    expect(seen).toEqual(expected);
  });

  it('refuses a token that names no operator role on every operator route', async () => {
    for (const operation of operations) {
      const res = await call(operation, tokens.get(NO_ROLE)!);
      expect({ route: `${operation.method} ${operation.path}`, error: res.body.error }).toEqual({
        route: `${operation.method} ${operation.path}`,
        error: 'InsufficientRole',
      });
    }
  });

  it('never takes a partner token on an operator route, nor an operator token on a partner route', async () => {
    const partner = await platform.token();
    for (const operation of operations) {
      const res = await call(operation, partner);
      expect({ route: `${operation.method} ${operation.path}`, status: res.status }).toEqual({
        route: `${operation.method} ${operation.path}`,
        status: 401,
      });
    }
    for (const token of tokens.values()) {
      for (const [method, path] of [
        ['GET', '/v0.13/customers'],
        ['POST', '/v0.13/customers'],
        ['GET', '/v0.13/transactions'],
      ]) {
        const res = await platform.request(method, path, {
          token,
          body: method === 'POST' ? { type: 'individual', firstName: 'Op', lastName: 'Erator' } : undefined,
        });
        expect(res.status).toBe(401);
      }
    }
    expect(Number((await platform.running.dataSource.query(`SELECT count(*) AS n FROM accounts.customers`))[0].n)).toBe(
      0,
    );
  });

  it('acts for a signed-in operator as for the static admin token, which stays the break-glass admin in sandbox', async () => {
    const created = await operate('POST', '/v0.13/admin/projects', {
      token: tokens.get(OPERATOR_OF.admin),
      body: { name: 'Made by Ada' },
    });
    expect(created.status).toBe(201);
    platform.projects.push(created.body.id);
    const read = await platform.request('GET', `/v0.13/admin/projects/${created.body.id}`, {
      token: tokens.get(OPERATOR_OF.viewer),
    });
    expect(read).toMatchObject({ status: 200, body: { id: created.body.id, name: 'Made by Ada' } });
    const refused = await operate('PATCH', `/v0.13/admin/projects/${created.body.id}`, {
      token: tokens.get(OPERATOR_OF.operator),
      body: { features: { cashPickup: true } },
    });
    expect(refused.body).toMatchObject({
      error: 'InsufficientRole',
      cause: "PATCH /v0.13/admin/projects/:projectId needs the admin role; this token's is operator",
    });
    const project = await platform.request('GET', `/v0.13/admin/projects/${created.body.id}`, { token: ADMIN_TOKEN });
    expect(project.body.features).toEqual(read.body.features);
    const held = await platform.request('GET', '/v0.13/admin/transactions/held', {
      token: tokens.get(OPERATOR_OF.viewer),
    });
    expect(held).toMatchObject({ status: 200, body: { data: [], hasMore: false } });
  });

  it("lets support re-deliver, disable and enable a partner's webhook endpoint, which a viewer may only read", async () => {
    const partner = await platform.token();
    const endpoint = await platform.request('POST', '/v0.13/webhooks', {
      token: partner,
      body: { url: 'https://93.184.216.34/operator-roles', subscriptions: ['*'] },
    });
    expect(endpoint.status).toBe(201);
    const path = `/v0.13/admin/webhooks/${endpoint.body.id}`;
    const read = await platform.request('GET', path, { token: tokens.get(OPERATOR_OF.viewer) });
    expect(read).toMatchObject({
      status: 200,
      body: { id: endpoint.body.id, projectId: platform.projectId, status: 'enabled', url: endpoint.body.url },
    });
    expect(read.body).not.toHaveProperty('signingKey');
    const refused = await operate('POST', `${path}/disable`, { token: tokens.get(OPERATOR_OF.viewer) });
    expect(refused.body.error).toBe('InsufficientRole');
    const support = tokens.get(OPERATOR_OF.support);
    const disabled = await operate('POST', `${path}/disable`, { token: support });
    expect(disabled).toMatchObject({ status: 200, body: { status: 'disabled', projectId: platform.projectId } });
    // The partner sees what the operator did.
    expect((await platform.request('GET', `/v0.13/webhooks/${endpoint.body.id}`, { token: partner })).body.status).toBe(
      'disabled',
    );
    const enabled = await operate('POST', `${path}/enable`, { token: support });
    expect(enabled).toMatchObject({ status: 200, body: { status: 'enabled' } });
    const retried = await operate('POST', `${path}/deliveries/retry`, {
      token: support,
      body: { status: 'failed' },
    });
    expect(retried).toMatchObject({ status: 200, body: { requeued: 0, deliveryIds: [] } });
    const bad = await operate('POST', `${path}/deliveries/retry`, { token: support, body: {} });
    expect(bad.body.error).toBe('InvalidDeliveryRetry');
    for (const id of ['wh_00000000000000000000000000', 'not-an-id']) {
      const missing = await operate('POST', `/v0.13/admin/webhooks/${id}/disable`, { token: support });
      expect(missing.body.error).toBe(id === 'not-an-id' ? 'InvalidWebhookID' : 'WebhookNotFound');
    }
  });

  it('signs an operator in to the dashboard through the IdP (code flow, PKCE), handing the page the token once', async () => {
    // A browser's cookie jar (one host, so the IdP's cookies and the platform's share it), following redirects by hand.
    const jar = new Map<string, string>();
    const send = async (url: string, init: RequestInit = {}) => {
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      const res = await fetch(url, { redirect: 'manual', ...init, headers: { ...init.headers, cookie } });
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
        if (value === '' || /max-age=0|expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
        else jar.set(name, value);
      }
      return res;
    };
    const follow = async (res: globalThis.Response, from: string, until: (url: string) => boolean) => {
      let url = from;
      while (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url).toString();
        if (until(url)) return { res, url };
        res = await send(url);
      }
      return { res, url };
    };

    expect(await (await fetch(`${platform.url}/dashboard/auth/config`)).json()).toEqual({ sso: true });
    const login = await send(`${platform.url}/dashboard/auth/login`);
    expect(login.status).toBe(303);
    const authorization = new URL(login.headers.get('location')!);
    expect(authorization.origin).toBe(idp.issuer);
    expect(Object.fromEntries(authorization.searchParams)).toMatchObject({
      client_id: idp.clientId,
      response_type: 'code',
      code_challenge_method: 'S256',
      redirect_uri: `${platform.url}/dashboard/auth/callback`,
    });
    // The IdP's sign-in form, then back through the platform's callback to the page.
    const atForm = await follow(login, `${platform.url}/dashboard/auth/login`, () => false);
    const action = /action="([^"]+)"/.exec(await atForm.res.text())![1];
    const posted = await send(new URL(action, atForm.url).toString(), {
      method: 'POST',
      body: 'login=olga',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const back = await follow(posted, atForm.url, (url) => url.startsWith(`${platform.url}/dashboard/#`));
    expect(back.url).toBe(`${platform.url}/dashboard/#/signed-in`);
    expect(back.url).not.toMatch(/token|code=/);

    const session = await send(`${platform.url}/dashboard/auth/session`, { method: 'POST' });
    const operator = (await session.json()) as { token: string; name: string; role: string };
    expect(operator).toMatchObject({ name: 'Olga Operator', role: 'operator', expiresAt: expect.any(String) });
    const held = await platform.request('GET', '/v0.13/admin/transactions/held', { token: operator.token });
    expect(held.status).toBe(200);
    // Collected once; a callback with no sign-in started here is refused.
    expect((await send(`${platform.url}/dashboard/auth/session`, { method: 'POST' })).status).toBe(401);
    const stray = await fetch(`${platform.url}/dashboard/auth/callback?code=x&state=y`, { redirect: 'manual' });
    expect(stray.headers.get('location')).toMatch(/^\/dashboard\/#\/sign-in-failed\?reason=/);
  });

  /** The audit log, oldest first, through all its pages, read by an admin. */
  async function auditLog(query = ''): Promise<any[]> {
    const entries: any[] = [];
    for (let cursor: string | null = null; ;) {
      const res: Response = await platform.request(
        'GET',
        `/v0.13/admin/audit-log?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`,
        { token: tokens.get(OPERATOR_OF.admin) },
      );
      expect(res.status).toBe(200);
      entries.push(...res.body.data);
      if (!res.body.hasMore) return entries.reverse();
      cursor = res.body.nextCursor;
    }
  }

  const verify = async () =>
    (await platform.request('GET', '/v0.13/admin/audit-log/verify', { token: tokens.get(OPERATOR_OF.admin) })).body;

  describe('four eyes on money', () => {
    const as = (login: string) => tokens.get(login)!;
    let partner: { projectId: string; token: string };
    const api = (method: string, path: string, body?: unknown) =>
      platform.request(method, `/v0.13${path}`, { token: partner.token, body });
    const transaction = async (id: string) => (await api('GET', `/transactions/${id}`)).body;

    /** A wallet payout to a bank account the sandbox never answers and has none of (.96), unconfirmed once 301 s have passed. */
    async function unconfirmedPayout(amount: string): Promise<string> {
      const customer = await platform.endorsedCustomer(partner.token, {}, ['basic', 'cryptoCustody', 'usd']);
      const wallet = await api('POST', `/customers/${customer.id}/wallets`, {
        asset: 'usdc',
        network: 'meridianchain',
      });
      expect((await api('POST', `/sandbox/wallets/${wallet.body.id}/fund`, { amount: '900.00' })).status).toBe(200);
      const account = await api('POST', '/external-accounts', {
        owner: { kind: 'customer', customerId: customer.id },
        type: 'bankUs',
        bankUs: { accountNumber: '123456789012', routingNumber: '021000021' },
      });
      await eventually(async () =>
        (await api('GET', `/external-accounts/${account.body.id}`)).body.status === 'active' ? true : undefined,
      );
      const quote = await api('POST', '/quotes', {
        customerId: customer.id,
        source: { type: 'walletOms', details: { id: wallet.body.id }, amount },
        destination: { type: 'bankUs', details: { id: account.body.id, network: 'ach', accountHolder: 'customer' } },
      });
      const made = await api('POST', '/transactions', { quoteId: quote.body.id });
      expect(made.status).toBe(201);
      // Its payout sent first: the 300 s run from the sending.
      await eventually(async () =>
        (await transaction(made.body.id)).legs.some(
          (l: { kind: string; status: string }) => l.kind === 'payout' && l.status === 'pending',
        )
          ? true
          : undefined,
      );
      expect((await api('POST', '/sandbox/clock/advance', { seconds: 301 })).status).toBe(200);
      await eventually(async () =>
        (await transaction(made.body.id)).subStatus === 'processing.payoutUnconfirmed' ? true : undefined,
      );
      return made.body.id;
    }

    beforeAll(async () => {
      const made = await operate('POST', '/v0.13/admin/projects', { token: as('ada'), body: { name: 'four eyes' } });
      platform.projects.push(made.body.id);
      const keys = await operate('POST', `/v0.13/admin/projects/${made.body.id}/api-keys`, { token: as('ada') });
      partner = { projectId: made.body.id, token: await platform.token(keys.body.apiKey, keys.body.apiSecret) };
    }, START_TIMEOUT_MS);

    it('takes a USD threshold per project (null none, "0.00" every action), refusing anything else unchanged', async () => {
      const path = `/v0.13/admin/projects/${partner.projectId}`;
      // A sandbox project starts with none.
      expect((await platform.request('GET', path, { token: as('vera') })).body.fourEyesThreshold).toBeNull();
      for (const fourEyesThreshold of ['-1.00', 'abc', 100, '1.005', '']) {
        const refused = await operate('PATCH', path, { token: as('ada'), body: { fourEyesThreshold } });
        expect({ fourEyesThreshold, status: refused.status, error: refused.body.error }).toEqual({
          fourEyesThreshold,
          status: 400,
          error: expect.stringMatching(/^Invalid/),
        });
      }
      expect((await platform.request('GET', path, { token: as('vera') })).body.fourEyesThreshold).toBeNull();
      const set = await operate('PATCH', path, { token: as('ada'), body: { fourEyesThreshold: '100' } });
      expect(set).toMatchObject({ status: 200, body: { fourEyesThreshold: '100.00' } });
      // An operator may not change it.
      expect((await operate('PATCH', path, { token: as('olga'), body: { fourEyesThreshold: null } })).status).toBe(403);
    });

    it('makes an action at or above it a request that another operator approves, once; the requester cannot', async () => {
      const id = await unconfirmedPayout('150.96');
      const key = `four-eyes-${id}`;
      const requested = await operate('POST', `/v0.13/admin/transactions/${id}/mark-failed`, {
        token: as('olga'),
        body: { reason: 'the bank lost it' },
        idempotencyKey: key,
      });
      expect(requested.status).toBe(202);
      const approval = requested.body;
      expect(approval).toMatchObject({
        object: 'approval',
        projectId: partner.projectId,
        transactionId: id,
        action: 'markFailed',
        status: 'pending',
        reason: 'the bank lost it',
        value: '150.96',
        threshold: '100.00',
        requestedBy: { subject: 'olga', name: 'Olga Operator', role: 'operator' },
        decidedBy: null,
        result: null,
      });
      expect(approval.id).toMatch(/^apr_[0-9a-z]{26}$/);
      // The same request again answers the same request; nothing else is made.
      const again = await operate('POST', `/v0.13/admin/transactions/${id}/mark-failed`, {
        token: as('olga'),
        body: { reason: 'the bank lost it' },
        idempotencyKey: key,
      });
      expect(again).toMatchObject({ status: 202, body: approval });
      expect((await transaction(id)).subStatus).toBe('processing.payoutUnconfirmed');
      const pending = await platform.request(
        'GET',
        `/v0.13/admin/approvals?status=pending&projectId=${partner.projectId}`,
        { token: as('vera') },
      );
      expect(pending.body.data).toEqual([approval]);

      // Not by its requester, not by a viewer; nothing changes.
      const own = await operate('POST', `/v0.13/admin/approvals/${approval.id}/approve`, {
        token: as('olga'),
        body: {},
      });
      expect(own.status).toBe(403);
      expect(own.body.error).toBe('OwnApprovalRefused');
      expect(
        (await operate('POST', `/v0.13/admin/approvals/${approval.id}/approve`, { token: as('vera'), body: {} }))
          .status,
      ).toBe(403);
      expect((await transaction(id)).subStatus).toBe('processing.payoutUnconfirmed');

      const approved = await operate('POST', `/v0.13/admin/approvals/${approval.id}/approve`, {
        token: as('otto'),
        body: {},
      });
      expect(approved).toMatchObject({
        status: 200,
        body: {
          id: approval.id,
          status: 'approved',
          decidedBy: { subject: 'otto', name: 'Otto Operator' },
          result: 'markedFailed',
        },
      });
      expect((await transaction(id)).subStatus).toBe('failed.outboundFailed');
      const twice = await operate('POST', `/v0.13/admin/approvals/${approval.id}/approve`, {
        token: as('ada'),
        body: {},
      });
      expect(twice).toMatchObject({ status: 409, body: { error: 'ApprovalNotPending' } });
      expect(
        await platform.request('GET', `/v0.13/admin/approvals/${approval.id}`, { token: as('vera') }),
      ).toMatchObject({ status: 200, body: approved.body });

      // A rejected request never acts.
      const refund = await operate('POST', `/v0.13/admin/transactions/${id}/refund`, { token: as('otto'), body: {} });
      expect(refund).toMatchObject({ status: 202, body: { action: 'refund', status: 'pending' } });
      const rejected = await operate('POST', `/v0.13/admin/approvals/${refund.body.id}/reject`, {
        token: as('olga'),
        body: { reason: 'not yet: the customer asked to wait' },
      });
      expect(rejected).toMatchObject({
        status: 200,
        body: {
          status: 'rejected',
          rejectionReason: 'not yet: the customer asked to wait',
          decidedBy: { subject: 'olga' },
        },
      });
      const late = await operate('POST', `/v0.13/admin/approvals/${refund.body.id}/approve`, {
        token: as('ada'),
        body: {},
      });
      expect(late).toMatchObject({ status: 409, body: { error: 'ApprovalNotPending' } });
      expect((await transaction(id)).subStatus).toBe('failed.outboundFailed');

      // Nor does one that expired (24 hours on the project's clock).
      const expiring = await operate('POST', `/v0.13/admin/transactions/${id}/refund`, { token: as('otto'), body: {} });
      expect(expiring.status).toBe(202);
      expect((await api('POST', '/sandbox/clock/advance', { seconds: 24 * 3600 })).status).toBe(200);
      const expired = await platform.request('GET', `/v0.13/admin/approvals/${expiring.body.id}`, {
        token: as('vera'),
      });
      expect(expired.body.status).toBe('expired');
      const tooLate = await operate('POST', `/v0.13/admin/approvals/${expiring.body.id}/approve`, {
        token: as('olga'),
        body: {},
      });
      expect(tooLate).toMatchObject({ status: 409, body: { error: 'ApprovalNotPending' } });
      expect((await transaction(id)).subStatus).toBe('failed.outboundFailed');
      const listed = await platform.request('GET', `/v0.13/admin/approvals?status=expired&transactionId=${id}`, {
        token: as('vera'),
      });
      expect(listed.body.data.map((a: { id: string }) => a.id)).toEqual([expiring.body.id]);

      // Bad input on the new routes: a clear 4xx.
      expectError(
        await platform.request('GET', '/v0.13/admin/approvals/nope', { token: as('vera') }),
        400,
        'InvalidApprovalID',
      );
      expectError(
        await platform.request('GET', '/v0.13/admin/approvals/apr_01h455vb4pex5vsknk084sn02q', { token: as('vera') }),
        404,
        'ApprovalNotFound',
      );
      expectError(
        await platform.request('GET', '/v0.13/admin/approvals?status=maybe', { token: as('vera') }),
        400,
        'InvalidRequest',
      );
      expectError(
        await operate('POST', `/v0.13/admin/approvals/${approval.id}/reject`, {
          token: as('otto'),
          body: { reason: 7 },
        }),
        400,
        'InvalidRequest',
      );
    });

    it('lets an action below the threshold act at once', async () => {
      const id = await unconfirmedPayout('20.96');
      const acted = await operate('POST', `/v0.13/admin/transactions/${id}/mark-failed`, {
        token: as('olga'),
        body: {},
      });
      expect(acted).toMatchObject({ status: 200, body: { result: 'markedFailed' } });
    });
  });

  describe('the audit log', () => {
    it('holds a request entry, then a response entry, for every action of the file: who, what, from where', async () => {
      const breakGlass = await operate('POST', '/v0.13/admin/projects', {
        token: ADMIN_TOKEN,
        body: { name: 'Made with the static token' },
      });
      platform.projects.push(breakGlass.body.id);
      const entries = await auditLog();
      expect(actions.length).toBeGreaterThan(20);
      // Every action, and the dashboard sign-in (recorded by the sign-in itself, not by an operator route).
      const signIns = entries.filter((e) => e.action === 'sign-in');
      expect(signIns.map((e) => [e.phase, e.actor.subject, e.status])).toEqual([
        ['request', 'olga', null],
        ['response', 'olga', 303],
      ]);
      expect(new Set(entries.filter((e) => e.action !== 'sign-in').map((e) => e.requestId))).toEqual(
        new Set(actions.map((a) => a.requestId)),
      );
      for (const action of actions) {
        const [request, response, ...more] = entries.filter((e) => e.requestId === action.requestId);
        expect(more).toEqual([]);
        expect(request).toMatchObject({ object: 'auditEntry', phase: 'request', requestEntryId: null, status: null });
        expect(request.id).toMatch(/^aud_[0-9a-z]{26}$/);
        expect(request.actor.subject).toBe(action.subject);
        expect(request.action).toMatch(/^(POST|PATCH|DELETE) \/v0\.13\/admin\//);
        expect(request.sourceAddress).toMatch(/127\.0\.0\.1$/);
        expect(response).toMatchObject({
          phase: 'response',
          requestEntryId: request.id,
          status: action.status,
          actor: request.actor,
          action: request.action,
        });
        expect(entries.indexOf(response)).toBeGreaterThan(entries.indexOf(request));
      }
      const byToken = entries.filter((e) => e.requestId === breakGlass.headers.get('x-request-id'));
      expect(byToken[0].actor).toEqual({
        subject: 'admin-token',
        name: 'static admin token (break-glass)',
        role: 'admin',
        via: 'admin-token',
      });
      expect(byToken[1]).toMatchObject({ status: 201, targetType: 'projects', targetId: breakGlass.body.id });
      const ada = entries.find((e) => e.actor.subject === OPERATOR_OF.admin);
      expect(ada.actor).toEqual({ subject: 'ada', name: 'Ada Admin', role: 'admin', via: 'sso' });
    });

    it('records what an action changed, the reason given, and never a secret; and finds entries by filter', async () => {
      const since = new Date().toISOString();
      const admin = tokens.get(OPERATOR_OF.admin)!;
      const project = (await operate('POST', '/v0.13/admin/projects', { token: admin, body: { name: 'Audited' } }))
        .body;
      platform.projects.push(project.id);
      const patched = await operate('PATCH', `/v0.13/admin/projects/${project.id}`, {
        token: admin,
        body: { features: { cashPickup: true } },
      });
      expect(patched.status).toBe(200);
      const keys = await operate('POST', `/v0.13/admin/projects/${project.id}/api-keys`, { token: admin });
      expect(keys.status).toBe(201);
      const refund = await operate('POST', '/v0.13/admin/transactions/txn_01h455vb4pex5vsknk084sn02q/refund', {
        token: tokens.get(OPERATOR_OF.operator),
        body: { reason: 'customer asked for it back' },
      });
      expect(refund.status).toBe(404);

      const mine = await auditLog(`&targetId=${project.id}`);
      // The create's request named no project yet (its entry has no target): its answer does.
      expect(mine.map((e) => [e.phase, e.action])).toEqual([
        ['response', 'POST /v0.13/admin/projects'],
        ['request', 'PATCH /v0.13/admin/projects/:projectId'],
        ['response', 'PATCH /v0.13/admin/projects/:projectId'],
        ['request', 'POST /v0.13/admin/projects/:projectId/api-keys'],
        ['response', 'POST /v0.13/admin/projects/:projectId/api-keys'],
      ]);
      expect(mine[0]).toMatchObject({ status: 201, before: null, after: { id: project.id, name: 'Audited' } });
      const patch = mine[2];
      expect(patch.request).toEqual({ features: { cashPickup: true } });
      expect(patch.before.features.cashPickup).toBe(false);
      expect(patch.after.features.cashPickup).toBe(true);
      expect(mine[4].after).toMatchObject({ apiKey: keys.body.apiKey, apiSecret: '[redacted]' });
      const text = JSON.stringify(await auditLog());
      expect(text).not.toContain(keys.body.apiSecret);

      const refunds = await auditLog(`&action=${encodeURIComponent('POST /v0.13/admin/transactions/:id/refund')}`);
      const attempt = refunds.filter((e) => e.requestId === refund.headers.get('x-request-id'));
      expect(attempt.map((e) => [e.phase, e.reason, e.status, e.targetType, e.targetId])).toEqual([
        ['request', 'customer asked for it back', null, 'transactions', 'txn_01h455vb4pex5vsknk084sn02q'],
        ['response', 'customer asked for it back', 404, 'transactions', 'txn_01h455vb4pex5vsknk084sn02q'],
      ]);
      expect(attempt[1].after).toMatchObject({ error: 'TransactionNotFound' });
      expect(attempt[0].actor.subject).toBe(OPERATOR_OF.operator);

      const recent = await auditLog(`&createdAfter=${encodeURIComponent(since)}`);
      expect(recent).toHaveLength(8);
      expect((await auditLog('&actor=ada')).every((e) => e.actor.subject === 'ada')).toBe(true);
      expect(
        (await platform.request('GET', '/v0.13/admin/audit-log?createdAfter=yesterday', { token: admin })).status,
      ).toBe(400);
    });

    it('refuses an action it cannot record (503), and the action does nothing', async () => {
      const admin = tokens.get(OPERATOR_OF.admin)!;
      const support = tokens.get(OPERATOR_OF.support)!;
      const endpoint = await platform.request('POST', '/v0.13/webhooks', {
        token: await platform.token(),
        body: { url: 'https://93.184.216.34/audit', subscriptions: ['*'] },
      });
      const before = (await auditLog()).length;
      await platform.running.dataSource.query(`ALTER TABLE gateway.audit_log RENAME TO audit_log_away`);
      try {
        const project = await operate('POST', '/v0.13/admin/projects', { token: admin, body: { name: 'Unrecorded' } });
        expect(project.body).toMatchObject({ error: 'ServiceUnavailable', status: 503 });
        const disable = await operate('POST', `/v0.13/admin/webhooks/${endpoint.body.id}/disable`, { token: support });
        expect(disable.body).toMatchObject({ error: 'ServiceUnavailable', status: 503 });
      } finally {
        await platform.running.dataSource.query(`ALTER TABLE gateway.audit_log_away RENAME TO audit_log`);
      }
      actions.splice(-2);
      const names = (await platform.request('GET', '/v0.13/admin/projects?limit=100', { token: admin })).body.data.map(
        (p: { name: string }) => p.name,
      );
      expect(names).not.toContain('Unrecorded');
      const read = await platform.request('GET', `/v0.13/admin/webhooks/${endpoint.body.id}`, { token: admin });
      expect(read.body.status).toBe('enabled');
      expect((await auditLog()).length).toBe(before);
    });

    it('verifies its hash chain, and stops verifying at the entry changed or deleted in the database', async () => {
      const entries = await auditLog();
      expect(await verify()).toEqual({ valid: true, entries: entries.length, firstInvalidEntryId: null });
      const db = platform.running.dataSource;
      const changed = entries[Math.floor(entries.length / 2)];
      await db.query(`UPDATE gateway.audit_log SET reason = 'nothing to see here' WHERE id = $1`, [changed.id]);
      expect(await verify()).toEqual({
        valid: false,
        entries: entries.indexOf(changed),
        firstInvalidEntryId: changed.id,
      });
      await db.query(`UPDATE gateway.audit_log SET reason = $2 WHERE id = $1`, [changed.id, changed.reason]);
      expect((await verify()).valid).toBe(true);
      // An entry deleted: the one after it no longer follows the one before.
      const deleted = entries[5];
      await db.query(`DELETE FROM gateway.audit_log WHERE id = $1`, [deleted.id]);
      expect(await verify()).toEqual({ valid: false, entries: 5, firstInvalidEntryId: entries[6].id });
    });
  });
});
