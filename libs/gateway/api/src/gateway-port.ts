// The gateway port (libs/contracts ports.ts): a project's settings as the
// gateway, which owns them, knows them at this moment. In one process the other
// services call this class; across processes they post to
// GatewayInternalController on the gateway's own port.
import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, GatewayPort, type ProjectSettings } from '@mm/contracts';
import { GatewayService } from '@mm/gateway/application';
import { InternalRoute, NoIdempotencyKey } from '@mm/platform/http';
import { isId } from '@mm/platform/ids';

@Injectable()
export class GatewayPortAdapter extends GatewayPort {
  constructor(private readonly gateway: GatewayService) {
    super();
  }

  async project(projectId: string): Promise<ProjectSettings> {
    if (!isId('project', projectId)) throw new ApiError('ProjectNotFound');
    const row = await this.gateway.requireProject(projectId);
    return { projectId: row.id, features: row.features, limits: row.limits, attributionTimeoutHours: row.attribution_timeout_hours };
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
}
