import { SetMetadata } from '@nestjs/common';

export const ROUTE_ACCESS = 'mm:access';
export type RouteAccess = 'partner' | 'public' | 'admin' | 'publishable-key' | 'internal';

/** No bearer token: the token endpoint, health, docs. */
export const Public = () => SetMetadata(ROUTE_ACCESS, 'public' satisfies RouteAccess);
/** Operator routes under /admin: the MM_ADMIN_TOKEN bearer. */
export const AdminRoute = () => SetMetadata(ROUTE_ACCESS, 'admin' satisfies RouteAccess);
/** Routes one service calls on another (ADR 0019): the internal token, never forwarded by the gateway. */
export const InternalRoute = () => SetMetadata(ROUTE_ACCESS, 'internal' satisfies RouteAccess);
/** Browser routes authenticated by a publishable key in the Api-Key header. */
export const PublishableKeyRoute = () => SetMetadata(ROUTE_ACCESS, 'publishable-key' satisfies RouteAccess);

export const IDEMPOTENCY = 'mm:idempotency';
export type IdempotencyMode = 'required' | 'optional' | 'none';
/** A POST that creates nothing (the token exchange) takes no Idempotency-Key. */
export const NoIdempotencyKey = () => SetMetadata(IDEMPOTENCY, 'none' satisfies IdempotencyMode);
/** Operator routes honour a key when given one. */
export const OptionalIdempotencyKey = () => SetMetadata(IDEMPOTENCY, 'optional' satisfies IdempotencyMode);

export const SANDBOX_ONLY = 'mm:sandbox-only';
/** Simulation routes: 404 in production. */
export const SandboxOnly = () => SetMetadata(SANDBOX_ONLY, true);

export const IDEMPOTENCY_SEALED = 'mm:idempotency-sealed';
/**
 * The response carries a secret shown once (a webhook signing key): the idempotency record keeps
 * it sealed with the key ring, so a retry with the same key still gets it and the table never
 * holds it in the clear.
 */
export const SealedReplay = () => SetMetadata(IDEMPOTENCY_SEALED, true);
