import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';

export const ROUTE_ACCESS = 'mm:access';
export type RouteAccess = 'partner' | 'public' | 'admin' | 'publishable-key' | 'internal';

/** No bearer token: the token endpoint, health, docs. */
export const Public = () => SetMetadata(ROUTE_ACCESS, 'public' satisfies RouteAccess);
/** Operator routes under /admin: the MM_ADMIN_TOKEN bearer. */
export const AdminRoute = () => SetMetadata(ROUTE_ACCESS, 'admin' satisfies RouteAccess);
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
