// One guard for every route (STYLE: every route is guarded or explicitly
// public): partner routes need a bearer token, /admin routes the operator
// token, sandbox-only routes answer 404 in production.
import { timingSafeEqual, createHash } from 'node:crypto';
import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { ApiError } from '@mm/contracts';
import { PlatformConfig } from '@mm/platform/config';
import { BEARER_ERRORS, BearerAuthError, ROUTE_ACCESS, SANDBOX_ONLY, type ApiRequest, type RouteAccess } from '@mm/platform/http';
import type { VerifiedToken } from './jwt.strategy';
import { VerifiedTokens } from './verified-tokens';

function sameSecret(a: string, b: string): boolean {
  // Compare digests so neither length nor content leaks through timing.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** The credential of an `Authorization: Bearer <credential>` header; the scheme is case-insensitive (RFC 7235). */
export function bearerCredential(header: string | undefined): string | undefined {
  return header ? /^bearer +(\S+) *$/i.exec(header)?.[1] : undefined;
}

/** passport-jwt's `info` for a failed verification, mapped to the spec's rows. */
export function bearerErrorFor(info: unknown): BearerAuthError {
  if (info instanceof BearerAuthError) return info;
  const e = info as { name?: string; message?: string } | undefined;
  if (e?.name === 'TokenExpiredError') return BEARER_ERRORS.expired();
  if (e?.message === 'No auth token') return BEARER_ERRORS.missing();
  if (e?.message === 'invalid signature') return BEARER_ERRORS.badSignature();
  return BEARER_ERRORS.invalid();
}

@Injectable()
export class ApiAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: PlatformConfig,
    private readonly verified: VerifiedTokens,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const request = context.switchToHttp().getRequest<ApiRequest>();
    if (this.reflector.getAllAndOverride<boolean>(SANDBOX_ONLY, targets) && !this.config.isSandbox) {
      // Exactly what an unknown route answers: production does not reveal the simulation routes.
      throw new ApiError('NotFound', `no route ${request.method} ${request.url.split('?')[0]}`);
    }
    const access = this.reflector.getAllAndOverride<RouteAccess>(ROUTE_ACCESS, targets) ?? 'partner';
    if (access === 'public' || access === 'publishable-key') {
      request.caller = { kind: 'public' };
      return true;
    }
    if (access === 'admin') {
      const token = bearerCredential(request.headers.authorization);
      const expected = this.config.MM_ADMIN_TOKEN;
      if (!expected || !token || !sameSecret(token, expected)) {
        throw new ApiError('Unauthorized', expected ? 'operator token required' : 'operator routes are disabled: set MM_ADMIN_TOKEN');
      }
      request.caller = { kind: 'admin' };
      return true;
    }
    return this.authenticatePartner(context, request);
  }

  /** A token seen before is answered from VerifiedTokens; any other is verified in full (passport-jwt). */
  private async authenticatePartner(context: ExecutionContext, request: ApiRequest): Promise<boolean> {
    const token = bearerCredential(request.headers.authorization);
    const key = token === undefined ? undefined : VerifiedTokens.keyOf(token);
    if (key !== undefined) {
      const caller = this.verified.lookup(key);
      if (caller) {
        request.caller = caller;
        return true;
      }
    }
    const mark = this.verified.mark();
    await super.canActivate(context);
    const verified = (request as ApiRequest & { user?: VerifiedToken }).user!;
    if (key !== undefined) this.verified.remember(key, verified.caller, verified.expiresAtMs, mark);
    return true;
  }

  override handleRequest<T = VerifiedToken>(error: unknown, user: T | false, info: unknown, context: ExecutionContext): T {
    if (error) throw error;
    if (!user) throw bearerErrorFor(info);
    context.switchToHttp().getRequest<ApiRequest>().caller = (user as unknown as VerifiedToken).caller;
    return user;
  }
}
