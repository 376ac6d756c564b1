// One guard for every route (STYLE: every route is guarded or explicitly
// public): partner routes need a bearer token, /admin routes the operator
// token, sandbox-only routes answer 404 in production. A body the parsers
// refused is raised here, once the caller is known.
import { timingSafeEqual, createHash } from 'node:crypto';
import { Injectable, Optional, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '@mm/contracts';
import { internalToken, PlatformConfig } from '@mm/platform/config';
import {
  BEARER_ERRORS,
  raiseBodyProblem,
  ROUTE_ACCESS,
  SANDBOX_ONLY,
  type ApiRequest,
  type Caller,
  type RouteAccess,
} from '@mm/platform/http';
import { DirectRequestKeyCheck, GATEWAY_CHECKED_HEADER } from './gateway-check';
import { TokenVerifier } from './token-verifier';
import { VerifiedTokens } from './verified-tokens';

function sameSecret(a: string, b: string): boolean {
  // Compare digests so neither length nor content leaks through timing.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

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
      const token = bearerCredential(request.headers.authorization);
      const expected = this.config.MM_ADMIN_TOKEN;
      if (!expected || !token || !sameSecret(token, expected)) {
        throw new ApiError(
          'Unauthorized',
          expected ? 'operator token required' : 'operator routes are disabled: set MM_ADMIN_TOKEN',
        );
      }
      return { kind: 'admin' };
    }
    if (access === 'internal') {
      // Service to service only. The gateway serves its own on the public port, so to anyone without the
      // service credential an internal route is what an unknown route is.
      const token = bearerCredential(request.headers.authorization);
      if (!token || !sameSecret(token, internalToken(this.config)))
        throw new ApiError('NotFound', `no route ${request.method} ${request.url.split('?')[0]}`);
      return { kind: 'internal' };
    }
    return this.bearer.authenticate(request.headers.authorization, request.headers[GATEWAY_CHECKED_HEADER]);
  }
}
