// The gateway port (libs/contracts ports.ts): a project's settings, and whether
// an API key is active, as the gateway, which owns them, knows them at this
// moment; and the operators' audit log, which every process appends to. In one process the other services call this class; across processes
// they post to GatewayInternalController on the gateway's own port.
import { Body, Controller, HttpCode, Injectable, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { ApiError, GatewayPort, type AuditEntryInput, type ProjectSettings } from '@mm/contracts';
import { GatewayService } from '@mm/gateway/application';
import { AuditLog, ProjectSettings as Projects } from '@mm/gateway/infrastructure';
import { InternalRoute, NoIdempotencyKey } from '@mm/platform/http';
import { isId } from '@mm/platform/ids';

@Injectable()
export class GatewayPortAdapter extends GatewayPort {
  constructor(
    private readonly projects: Projects,
    private readonly gateway: GatewayService,
    private readonly auditLog: AuditLog,
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
      fourEyesThreshold: row.four_eyes_threshold,
    };
  }

  /** Read from the keys' table: asked only for requests that reached a service without passing here. */
  async apiKeyActive(apiKey: string, projectId: string): Promise<boolean> {
    return (await this.gateway.usableUntil(apiKey, projectId)) > Date.now();
  }

  /** Stamped with the wall clock: operators act in real time, whatever a project's sandbox clock says. */
  appendAudit(entry: AuditEntryInput): Promise<{ id: string }> {
    return this.auditLog.append(entry, new Date());
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

  @Post('audit-entries')
  @InternalRoute()
  @NoIdempotencyKey()
  @HttpCode(200)
  appendAudit(
    @Body() body: AuditEntryInput & { request: string; before: string; after: string },
  ): Promise<{ id: string }> {
    // The bodies come as JSON text (the port's HTTP client), so that their depth counts against no parser's limit.
    const parsed = (text: string) => JSON.parse(text) as unknown;
    return this.port.appendAudit({
      ...body,
      request: parsed(body.request),
      before: parsed(body.before),
      after: parsed(body.after),
    });
  }
}
