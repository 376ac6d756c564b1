import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { ApiKeyScopes } from '@mm/contracts';
import type { OperatorRole } from './route-metadata';

/**
 * A person on an operator route: who their OpenID provider says they are (subject, name) and the role it gives
 * them; or the static admin token, break-glass, which acts as an admin without saying who.
 */
export interface Operator {
  subject: string;
  name: string;
  role: OperatorRole;
  via: 'sso' | 'admin-token';
}

/** Who is calling: set by the auth guard before anything else runs. */
export interface Caller {
  kind: 'partner' | 'admin' | 'public' | 'internal';
  projectId?: string;
  apiKey?: string;
  /** A partner's: its key's scopes, null for a key with every scope (docs/sdk.md, Restricted keys). */
  scopes?: ApiKeyScopes;
  /** On an operator route (kind admin): the operator. */
  operator?: Operator;
}

export type ApiRequest = FastifyRequest & { caller?: Caller };

/** The project of the bearer token: every read and write is scoped to it. */
export const ProjectId = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const request = ctx.switchToHttp().getRequest<ApiRequest>();
  const projectId = request.caller?.projectId;
  if (!projectId) throw new Error('ProjectId used on a route without a partner token');
  return projectId;
});
