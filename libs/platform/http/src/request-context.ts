import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling: set by the auth guard before anything else runs. */
export interface Caller {
  kind: 'partner' | 'admin' | 'public' | 'internal';
  projectId?: string;
  apiKey?: string;
}

export type ApiRequest = FastifyRequest & { caller?: Caller };

/** The project of the bearer token: every read and write is scoped to it. */
export const ProjectId = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const request = ctx.switchToHttp().getRequest<ApiRequest>();
  const projectId = request.caller?.projectId;
  if (!projectId) throw new Error('ProjectId used on a route without a partner token');
  return projectId;
});
