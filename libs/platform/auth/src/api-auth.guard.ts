// One guard for every route (STYLE: every route is guarded or explicitly
// public): partner routes need a bearer token, /admin routes an operator's
// token with the route's role, sandbox-only routes answer 404 in production. A body the parsers
// refused is raised here, once the caller is known.
import { Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { accessOfMethod, ApiError, resourceOfRoute, scopeNamesOf, scopesAllow } from '@mm/contracts';
import { internalToken, PlatformConfig } from '@mm/platform/config';
import {
  API_BASE_PATH,
  BEARER_ERRORS,
  raiseBodyProblem,
  OPERATOR_ROLE,
  roleAllows,
  ROUTE_ACCESS,
  SANDBOX_ONLY,
  type OperatorRole,
  type ApiRequest,
  type Caller,
  type RouteAccess,
} from '@mm/platform/http';
import { DirectRequestKeyCheck, GATEWAY_CHECKED_HEADER } from './gateway-check';
import { OperatorAuthenticator } from './operator-authenticator';
import { sameSecret } from './same-secret';
import { TokenVerifier } from './token-verifier';
import { VerifiedTokens } from './verified-tokens';

/** The credential of an `Authorization: Bearer <credential>` header; the scheme is case-insensitive (RFC 7235). */
export function bearerCredential(header: string | undefined): string | undefined {
  return header ? /^bearer +(\S+) *$/i.exec(header)?.[1] : undefined;
}

/**
 * A partner's bearer token to its caller: from VerifiedTokens when seen before, else verified in full. In a
 * service running alone, a request the gateway did not check (its GATEWAY_CHECKED_HEADER) also needs the
 * gateway's word that the token's key is active now (DirectRequestKeyCheck; ADR 0057).
 */
@Injectable()
export class BearerAuthenticator {
  constructor(
    private readonly verifier: TokenVerifier,
    private readonly verified: VerifiedTokens,
    @Optional() private readonly direct?: DirectRequestKeyCheck,
  ) {}

  /** gatewayChecked: the request's GATEWAY_CHECKED_HEADER, if any (only a service running alone reads it). */
  async authenticate(authorization: string | undefined, gatewayChecked?: string | string[]): Promise<Caller> {
    const token = bearerCredential(authorization);
    if (!token) throw BEARER_ERRORS.missing();
    const caller = await this.callerOf(token);
    if (this.direct && !this.direct.checkedByGateway(token, gatewayChecked)) await this.direct.requireActive(caller);
    return caller;
  }

  private async callerOf(token: string): Promise<Caller> {
    const key = VerifiedTokens.keyOf(token);
    const remembered = this.verified.lookup(key);
    if (remembered) return remembered;
    const mark = this.verified.mark();
    const { caller, expiresAtMs } = await this.verifier.verify(token);
    this.verified.remember(key, caller, mark, expiresAtMs);
    return caller;
  }
}

@Injectable()
export class ApiAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: PlatformConfig,
    private readonly bearer: BearerAuthenticator,
    private readonly operators: OperatorAuthenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<ApiRequest>();
    request.caller = await this.callerOf(context, request);
    // Authentication first, then the body (ADR 0008): what the parsers refused is raised only now,
    // so an unauthenticated request is a 401 whatever body it sent.
    raiseBodyProblem(request);
    return true;
  }

  private async callerOf(context: ExecutionContext, request: ApiRequest): Promise<Caller> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(SANDBOX_ONLY, targets) && !this.config.isSandbox) {
      // Exactly what an unknown route answers: production does not reveal the simulation routes.
      throw new ApiError('NotFound', `no route ${request.method} ${request.url.split('?')[0]}`);
    }
    const access = this.reflector.getAllAndOverride<RouteAccess>(ROUTE_ACCESS, targets) ?? 'partner';
    if (access === 'public' || access === 'publishable-key') return { kind: 'public' };
    if (access === 'admin') {
      const operator = await this.operators.authenticate(bearerCredential(request.headers.authorization));
      // Fails closed: an operator route that names no role is open to nobody (every AdminRoute names one).
      const needed = this.reflector.getAllAndOverride<OperatorRole | undefined>(OPERATOR_ROLE, targets);
      if (!needed || !roleAllows(operator.role, needed))
        throw new ApiError(
          'InsufficientRole',
          `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]} needs the ${needed ?? 'undeclared'} ` +
            `role; this token's is ${operator.role}`,
        );
      return { kind: 'admin', operator };
    }
    if (access === 'internal') {
      // Service to service only. The gateway serves its own on the public port, so to anyone without the
      // service credential an internal route is what an unknown route is.
      const token = bearerCredential(request.headers.authorization);
      if (!token || !sameSecret(token, internalToken(this.config)))
        throw new ApiError('NotFound', `no route ${request.method} ${request.url.split('?')[0]}`);
      return { kind: 'internal' };
    }
    const caller = await this.bearer.authenticate(
      request.headers.authorization,
      request.headers[GATEWAY_CHECKED_HEADER],
    );
    requireScope(caller, request);
    return caller;
  }
}

/**
 * A restricted key's token reaches only the routes its scopes cover (docs/sdk.md, Restricted keys): 403 naming
 * the scope the route needs, before anything is read or changed.
 */
function requireScope(caller: Caller, request: ApiRequest): void {
  const scopes = caller.scopes ?? null;
  if (scopes === null) return;
  const route = request.routeOptions.url ?? request.url.split('?')[0];
  const resource = resourceOfRoute(route.replace(`/${API_BASE_PATH}`, ''));
  const access = accessOfMethod(request.method);
  if (scopesAllow(scopes, resource, access)) return;
  const held = scopes.length > 0 ? scopes.join(', ') : 'none';
  throw new ApiError(
    'InsufficientScope',
    resource
      ? `${request.method} ${route} needs the scope ${scopeNamesOf(resource)
          .map((name) => `${name}:${access}`)
          .join(' or ')}; this key's scopes are ${held}`
      : `${request.method} ${route} needs a key with every scope; this key's scopes are ${held}`,
  );
}
