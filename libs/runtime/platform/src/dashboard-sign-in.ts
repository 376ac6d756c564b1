// The dashboard's operator sign-in through the deployment's OpenID provider (docs/operators.md, "Signing in to the
// dashboard"): the public entry is the confidential client and runs the authorization code flow with PKCE
// (openid-client). What the flow carries between the steps (the PKCE verifier, state and nonce; then the signed-in
// operator's access token) travels in short-lived cookies sealed with the deployment's key ring, HttpOnly and
// scoped to /dashboard/auth, so no token is ever in an address: the page collects the token with a same-origin
// POST, which also clears it. Each sign-in goes into the operators' audit log.
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from '@nestjs/common';
import { parse as parseCookies, serialize as cookie } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { generators, Issuer, type BaseClient } from 'openid-client';
import { ApiError, GatewayPort } from '@mm/contracts';
import { OperatorAuthenticator } from '@mm/platform/auth';
import { lazyKeyRing, PlatformConfig } from '@mm/platform/config';

const AUTH_PATH = '/dashboard/auth';
/** The redirect URI operators' IdPs register: the dashboard's origin followed by this. */
export const SIGN_IN_CALLBACK = `${AUTH_PATH}/callback`;
const FLOW_COOKIE = 'mm_sso_flow';
const HANDOFF_COOKIE = 'mm_sso_operator';
/** How long a sign-in may take at the IdP. */
const FLOW_SECONDS = 600;
/** How long the page has to collect the token after the IdP sent the operator back. */
const HANDOFF_SECONDS = 60;

interface Flow {
  verifier: string;
  state: string;
  nonce: string;
  redirectUri: string;
}

interface Handoff {
  token: string;
  name: string;
  role: string;
  expiresAt: string | null;
}

export async function serveOperatorSignIn(scope: FastifyInstance, app: NestFastifyApplication): Promise<void> {
  const config = app.get(PlatformConfig);
  const logger = new Logger('dashboard-sign-in');
  const keyRing = lazyKeyRing(config, logger);
  const seal = (value: unknown, purpose: string) => {
    const ring = keyRing();
    const sealed = ring.seal(Buffer.from(JSON.stringify(value)), `dashboard ${purpose}`);
    return `${ring.currentId}.${sealed.toString('base64url')}`;
  };
  const open = <T>(value: string | undefined, purpose: string): T | undefined => {
    if (!value) return undefined;
    const at = value.indexOf('.');
    try {
      const plain = keyRing().open(
        value.slice(0, at),
        Buffer.from(value.slice(at + 1), 'base64url'),
        `dashboard ${purpose}`,
        `the dashboard's ${purpose} cookie`,
      );
      return JSON.parse(plain.toString('utf8')) as T;
    } catch {
      return undefined;
    }
  };
  const secure = (request: FastifyRequest) => request.protocol === 'https';
  const setCookie = (reply: FastifyReply, request: FastifyRequest, name: string, value: string, options: object) =>
    reply.header(
      'set-cookie',
      cookie(name, value, { httpOnly: true, path: AUTH_PATH, secure: secure(request), ...options }),
    );

  let client: Promise<BaseClient> | undefined;
  const clientFor = () =>
    (client ??= Issuer.discover(config.MM_OIDC_ISSUER as string).then(
      (issuer) =>
        new issuer.Client({
          client_id: config.MM_OIDC_CLIENT_ID as string,
          client_secret: config.MM_OIDC_CLIENT_SECRET,
          response_types: ['code'],
        }),
      (error: Error) => {
        client = undefined;
        throw error;
      },
    ));
  const enabled = () => Boolean(config.MM_OIDC_ISSUER && config.MM_OIDC_CLIENT_SECRET);
  const failed = (reply: FastifyReply, reason: string) =>
    reply.redirect(`/dashboard/#/sign-in-failed?reason=${encodeURIComponent(reason)}`, 303);

  scope.get(`${AUTH_PATH}/config`, (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ sso: enabled() }),
  );

  scope.get(`${AUTH_PATH}/login`, async (request, reply) => {
    if (!enabled()) return failed(reply, 'no OpenID provider is configured (MM_OIDC_ISSUER, MM_OIDC_CLIENT_SECRET)');
    const flow: Flow = {
      verifier: generators.codeVerifier(),
      state: generators.state(),
      nonce: generators.nonce(),
      redirectUri: `${request.protocol}://${request.host}${SIGN_IN_CALLBACK}`,
    };
    let url: string;
    try {
      url = (await clientFor()).authorizationUrl({
        scope: 'openid profile email',
        redirect_uri: flow.redirectUri,
        code_challenge: generators.codeChallenge(flow.verifier),
        code_challenge_method: 'S256',
        state: flow.state,
        nonce: flow.nonce,
      });
    } catch (error) {
      logger.warn(`the OpenID provider cannot be reached: ${(error as Error).message}`);
      return failed(reply, 'the OpenID provider cannot be reached; try again shortly');
    }
    // Lax: the IdP sends the operator back with a top-level navigation from its own site.
    setCookie(reply, request, FLOW_COOKIE, seal(flow, 'sign-in flow'), { sameSite: 'lax', maxAge: FLOW_SECONDS });
    return reply.header('cache-control', 'no-store').redirect(url, 303);
  });

  scope.get(SIGN_IN_CALLBACK, async (request, reply) => {
    const flow = open<Flow>(parseCookies(request.headers.cookie ?? '')[FLOW_COOKIE], 'sign-in flow');
    setCookie(reply, request, FLOW_COOKIE, '', { sameSite: 'lax', maxAge: 0 });
    if (!flow) return failed(reply, 'the sign-in expired or was not started here; sign in again');
    let token: string;
    try {
      const oidc = await clientFor();
      const tokens = await oidc.callback(flow.redirectUri, oidc.callbackParams(request.raw), {
        code_verifier: flow.verifier,
        state: flow.state,
        nonce: flow.nonce,
      });
      if (!tokens.access_token) throw new Error('the OpenID provider issued no access token');
      token = tokens.access_token;
    } catch (error) {
      logger.warn(`a sign-in failed: ${(error as Error).message}`);
      return failed(reply, 'the OpenID provider did not confirm the sign-in; sign in again');
    }
    let handoff: Handoff;
    try {
      const operator = await app.get(OperatorAuthenticator).authenticate(token);
      const exp = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')).exp as number | undefined;
      handoff = {
        token,
        name: operator.name,
        role: operator.role,
        expiresAt: exp ? new Date(exp * 1000).toISOString() : null,
      };
      await recordSignIn(app, request, operator);
    } catch (error) {
      return failed(reply, error instanceof ApiError ? (error.causeText ?? error.errorName) : 'the sign-in failed');
    }
    setCookie(reply, request, HANDOFF_COOKIE, seal(handoff, 'operator hand-off'), {
      sameSite: 'strict',
      maxAge: HANDOFF_SECONDS,
    });
    return reply.header('cache-control', 'no-store').redirect('/dashboard/#/signed-in', 303);
  });

  // The page's own request (same origin, the strict cookie): the operator's token, once.
  scope.post(`${AUTH_PATH}/session`, (request, reply) => {
    const handoff = open<Handoff>(parseCookies(request.headers.cookie ?? '')[HANDOFF_COOKIE], 'operator hand-off');
    setCookie(reply, request, HANDOFF_COOKIE, '', { sameSite: 'strict', maxAge: 0 });
    void reply.header('cache-control', 'no-store');
    if (!handoff) return reply.code(401).send({ error: 'Unauthorized', cause: 'no sign-in to collect' });
    return reply.send(handoff);
  });
}

/** A sign-in, in the operators' audit log: the request (who, from where) and its answer. */
async function recordSignIn(
  app: NestFastifyApplication,
  request: FastifyRequest,
  operator: { subject: string; name: string; role: string; via: string },
): Promise<void> {
  const gateway = app.get(GatewayPort);
  const entry = {
    actor: operator,
    action: 'sign-in',
    targetType: 'dashboard',
    targetId: null,
    reason: null,
    requestId: String(request.id),
    sourceAddress: request.ip ?? null,
    request: null,
    before: null,
  };
  const { id } = await gateway.appendAudit({ ...entry, phase: 'request', status: null, after: null });
  await gateway.appendAudit({ ...entry, phase: 'response', requestEntryId: id, status: 303, after: null });
}
