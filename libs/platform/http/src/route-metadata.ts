import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { ApiExtension } from '@nestjs/swagger';

export const ROUTE_ACCESS = 'mm:access';
export type RouteAccess = 'partner' | 'public' | 'admin' | 'publishable-key' | 'internal';

/** No bearer token: the token endpoint, health, docs. */
export const Public = () => SetMetadata(ROUTE_ACCESS, 'public' satisfies RouteAccess);
/**
 * Operators' roles, each allowed what the ones before it are (docs/operators.md): viewer reads what operators
 * see; support also re-delivers webhooks; operator also moves held money (retry, refund, mark-failed,
 * complete-refund); admin also manages projects, their features and limits, and keys.
 */
export const OPERATOR_ROLES = ['viewer', 'support', 'operator', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export function isOperatorRole(value: unknown): value is OperatorRole {
  return (OPERATOR_ROLES as readonly unknown[]).includes(value);
}

/** Whether an operator of role `held` may use a route that needs `needed`. */
export function roleAllows(held: OperatorRole, needed: OperatorRole): boolean {
  return OPERATOR_ROLES.indexOf(held) >= OPERATOR_ROLES.indexOf(needed);
}

export const OPERATOR_ROLE = 'mm:operator-role';
/** The OpenAPI extension that names an operator route's role, for operators' tools and the role test. */
export const OPERATOR_ROLE_EXTENSION = 'x-operator-role';

/**
 * An operator route under /admin, and the least role that may call it: an operator's bearer token (their
 * OpenID provider's access token) or the static admin token where it is accepted (break-glass). Declared on
 * each route, so that none is reached by a role nobody chose for it.
 */
export const AdminRoute = (role: OperatorRole) =>
  applyDecorators(
    SetMetadata(ROUTE_ACCESS, 'admin' satisfies RouteAccess),
    SetMetadata(OPERATOR_ROLE, role),
    ApiExtension(OPERATOR_ROLE_EXTENSION, role),
  );
/** Routes one service calls on another (ADR 0019): the internal token, never forwarded by the gateway. */
export const InternalRoute = () => SetMetadata(ROUTE_ACCESS, 'internal' satisfies RouteAccess);
/**
 * What a browser may do cross-origin on a publishable-key route (spec: Authentication, item 5): send GET
 * with the Api-Key header, which takes a preflight. Every other route takes a secret-key bearer token and
 * answers no cross-origin request (configureHttpApp). Not strict about preflights: an OPTIONS without
 * Origin (no browser's) is answered as one is, not with @fastify/cors's plain-text 400, which is not the
 * API's error body.
 */
const BROWSER_CORS = {
  origin: '*',
  methods: ['GET'],
  allowedHeaders: ['Api-Key'],
  maxAge: 600,
  strictPreflight: false,
};

/**
 * Browser routes authenticated by a publishable key in the Api-Key header: the only routes that answer
 * cross-origin requests. A route's preflight (OPTIONS on its path) needs a route of its own with this too.
 */
export const PublishableKeyRoute = () =>
  applyDecorators(
    SetMetadata(ROUTE_ACCESS, 'publishable-key' satisfies RouteAccess),
    RouteConfig({ cors: BROWSER_CORS }),
  );

export const PARTNER_AUDITED = 'mm:partner-audited';
/**
 * A partner route whose every action goes into the operators' audit log, as an operator's does (docs/operators.md,
 * Audit log): the project's own keys made, rolled and revoked. The actor is the key that acted.
 */
export const PartnerAudited = () => SetMetadata(PARTNER_AUDITED, true);

export const IDEMPOTENCY = 'mm:idempotency';
export type IdempotencyMode = 'required' | 'none';
/**
 * A POST that creates nothing (the token exchange) takes no Idempotency-Key; nor do the routes one
 * service calls on another. Every other POST and PATCH, partner or operator, requires one (spec rule 6).
 */
export const NoIdempotencyKey = () => SetMetadata(IDEMPOTENCY, 'none' satisfies IdempotencyMode);

export const SANDBOX_ONLY = 'mm:sandbox-only';
/** Simulation routes: 404 in production. */
export const SandboxOnly = () => SetMetadata(SANDBOX_ONLY, true);

export const IDEMPOTENCY_SHOWN_ONCE = 'mm:idempotency-shown-once';
/**
 * The response carries a secret the platform keeps only as a hash (an API secret; spec: Authentication
 * 1), so it can be neither stored for a replay nor sent twice: the idempotency record keeps the response
 * without these fields, and a retry with the same key is refused (409 IdempotentReplayUnavailable)
 * naming what the first request made, instead of making a second one (ADR 0027).
 */
export const ShownOnce = (...secretFields: string[]) => SetMetadata(IDEMPOTENCY_SHOWN_ONCE, secretFields);

export const IDEMPOTENCY_SEALED = 'mm:idempotency-sealed';
/**
 * The response carries a secret shown once (a webhook signing key): the idempotency record keeps
 * it sealed with the key ring, so a retry with the same key still gets it and the table never
 * holds it in the clear.
 */
export const SealedReplay = () => SetMetadata(IDEMPOTENCY_SEALED, true);

/** A field that holds any JSON value, for ApiProperty: the document's JsonValue schema (configureHttpApp). */
export const JSON_VALUE = { oneOf: [{ $ref: '#/components/schemas/JsonValue' }] };
