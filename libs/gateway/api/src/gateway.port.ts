// The gateway port (libs/contracts ports.ts): a project's settings, and whether
// an API key is active, as the gateway, which owns them, knows them at this
// moment. In one process the other services call this class; across processes
// they post to GatewayInternalController on the gateway's own port.
import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, GatewayPort, type ProjectSettings } from '@mm/contracts';
import { GatewayService } from '@mm/gateway/application';
import { ProjectSettings as Projects } from '@mm/gateway/infrastructure';
import { InternalRoute, NoIdempotencyKey } from '@mm/platform/http';
import { isId } from '@mm/platform/ids';

@Injectable()
export class GatewayPortAdapter extends GatewayPort {
  constructor(
    private readonly projects: Projects,
    private readonly gateway: GatewayService,
  ) {
    super();
  }

  /** From memory once read: an operator's change is answered only once every process has dropped it (ADR 0057). */
  async project(projectId: string): Promise<ProjectSettings> {
    const row = isId('project', projectId) ? await this.projects.project(projectId) : undefined;
    if (!row) throw new ApiError('ProjectNotFound');
    // Copies: the caller's objects are its own, never the remembered ones.
    return {
      projectId: row.id,
      features: { ...row.features },
      limits: { ...row.limits },
      attributionTimeoutHours: row.attribution_timeout_hours,
    };
  }

  /** Read from the keys' table: asked only for requests that reached a service without passing here. */
  apiKeyActive(apiKey: string, projectId: string): Promise<boolean> {
    return this.gateway.isActive(apiKey, projectId);
  }
}

@ApiExcludeController()
@Controller('internal/gateway')
export class GatewayInternalController {
  constructor(private readonly port: GatewayPortAdapter) {}

  @Post('project')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  project(@Body() body: { projectId: string }): Promise<ProjectSettings> {
    return this.port.project(String(body.projectId));
  }

  @Post('api-key')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  async apiKey(@Body() body: { apiKey: string; projectId: string }): Promise<{ active: boolean }> {
    return { active: await this.port.apiKeyActive(String(body.apiKey), String(body.projectId)) };
  }
}
