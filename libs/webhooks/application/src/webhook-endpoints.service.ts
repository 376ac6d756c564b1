// Webhook endpoints (spec: Endpoints / Webhooks; Webhook endpoint and delivery).
// The signing key is made, sealed and stored in the command's transaction and
// returned once: by create, and by rotate-key.
import { Injectable } from '@nestjs/common';
import { ApiError } from '@mm/contracts';
import {
  subscriptionsProblem,
  WEBHOOK_DEFAULTS,
  type WebhookEndpointCommand,
  type WebhookEndpointSettings,
} from '@mm/webhooks/domain';
import { WebhooksReadModels, WebhookSigningKeys, type EndpointRow } from '@mm/webhooks/infrastructure';
import { ProjectClock } from '@mm/platform/clock';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { isId, newId } from '@mm/platform/ids';
import { WebhookEndpointCommands } from './webhook-endpoint.commands';
import { checkWebhookUrl } from './webhook-url-policy';

export { DOWN_NOTICE_TIMER } from './webhook-endpoint.commands';

export type WebhookEndpointInput = Partial<WebhookEndpointSettings>;

@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: WebhookEndpointCommands,
    private readonly readModels: WebhooksReadModels,
    private readonly signingKeys: WebhookSigningKeys,
    private readonly clock: ProjectClock,
    private readonly config: PlatformConfig,
  ) {}

  /** An operator's lookup (any project): the endpoint's project; 400 for a malformed id, 404 for none or deleted. */
  async projectOf(id: string): Promise<string> {
    if (!isId('webhook', id))
      throw new ApiError('InvalidWebhookID', `"${id.slice(0, 64)}" is not a webhook endpoint id (wh_…)`);
    const projectId = await this.readModels.projectOfEndpoint(id);
    if (!projectId) throw new ApiError('WebhookNotFound');
    return projectId;
  }

  /** 400 for a malformed id, 404 for one this project does not have (or deleted, unless includeDeleted). */
  async require(projectId: string, id: string, options: { includeDeleted?: boolean } = {}): Promise<EndpointRow> {
    if (!isId('webhook', id))
      throw new ApiError('InvalidWebhookID', `"${id.slice(0, 64)}" is not a webhook endpoint id (wh_…)`);
    const row = await this.readModels.endpoint(projectId, id, options);
    if (!row) throw new ApiError('WebhookNotFound');
    return row;
  }

  /**
   * The endpoint a test send, retry or resend goes to: 400 for a malformed id, 404 for one this project does
   * not have, WebhookNotEnabled for one that is not enabled. An enabled endpoint comes from the processes'
   * coherent copy of the project's live endpoints, without a round trip once held.
   */
  async requireEnabled(projectId: string, id: string): Promise<EndpointRow> {
    if (!isId('webhook', id))
      throw new ApiError('InvalidWebhookID', `"${id.slice(0, 64)}" is not a webhook endpoint id (wh_…)`);
    const endpoint = (await this.readModels.liveEndpoint(projectId, id)) ?? (await this.require(projectId, id));
    if (endpoint.status !== 'enabled')
      throw new ApiError('WebhookNotEnabled', `the endpoint is ${endpoint.status}; POST /webhooks/${id}/enable first`);
    return endpoint;
  }

  async create(
    projectId: string,
    input: WebhookEndpointInput & { url: string; subscriptions: string[] },
  ): Promise<{ endpoint: EndpointRow; signingKey: string }> {
    const settings = this.checked(input);
    return runCommand(this.uow, async () => {
      const webhookId = newId('webhook');
      const at = (await this.clock.now(projectId)).toISOString();
      const { row } = await this.commands.handle(
        projectId,
        webhookId,
        {
          type: 'CreateWebhookEndpoint',
          webhookId,
          projectId,
          url: settings.url!,
          subscriptions: settings.subscriptions!,
          timeoutMs: settings.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs,
          notifyThresholdSecs: settings.notifyThresholdSecs ?? WEBHOOK_DEFAULTS.notifyThresholdSecs,
          description: settings.description ?? null,
          at,
        },
        { newStream: true },
      );
      return { endpoint: row!, signingKey: await this.signingKeys.issue(webhookId, at) };
    });
  }

  async update(projectId: string, id: string, input: WebhookEndpointInput): Promise<EndpointRow> {
    const changes = this.checked(input);
    return this.run(projectId, id, (at) => ({ type: 'UpdateWebhookEndpoint', changes, at }));
  }

  enable(projectId: string, id: string): Promise<EndpointRow> {
    return this.run(projectId, id, (at) => ({ type: 'EnableWebhookEndpoint', at }));
  }

  disable(projectId: string, id: string): Promise<EndpointRow> {
    return this.run(projectId, id, (at) => ({ type: 'DisableWebhookEndpoint', at }));
  }

  async rotateKey(projectId: string, id: string): Promise<{ endpoint: EndpointRow; signingKey: string }> {
    return runCommand(this.uow, async () => {
      const before = await this.require(projectId, id);
      const at = (await this.clock.now(projectId)).toISOString();
      const { row } = await this.commands.handle(projectId, id, { type: 'RotateSigningKey', at });
      return { endpoint: row ?? before, signingKey: await this.signingKeys.issue(id, at) };
    });
  }

  async delete(projectId: string, id: string): Promise<void> {
    await this.run(projectId, id, (at) => ({ type: 'DeleteWebhookEndpoint', at }));
  }

  /** The delivery worker, in its transaction: returns whether the endpoint was suspended now. */
  async suspend(projectId: string, id: string, downSince: string): Promise<boolean> {
    return this.health(projectId, id, (at) => ({ type: 'SuspendWebhookEndpoint', downSince, at }));
  }

  /** The down notice, once per episode: returns whether it was given now. */
  async notifyDown(projectId: string, id: string, downSince: string): Promise<boolean> {
    return this.health(projectId, id, (at) => ({ type: 'NotifyEndpointDown', downSince, at }));
  }

  private async health(
    projectId: string,
    id: string,
    command: (at: string) => WebhookEndpointCommand,
  ): Promise<boolean> {
    return runCommand(this.uow, async () => {
      const endpoint = await this.readModels.endpoint(projectId, id);
      if (!endpoint) return false; // deleted meanwhile
      const at = (await this.clock.now(projectId)).toISOString();
      const { events } = await this.commands.handle(projectId, id, command(at));
      return events.length > 0;
    });
  }

  private async run(
    projectId: string,
    id: string,
    command: (at: string) => WebhookEndpointCommand,
  ): Promise<EndpointRow> {
    return runCommand(this.uow, async () => {
      const before = await this.require(projectId, id);
      const at = (await this.clock.now(projectId)).toISOString();
      const { row } = await this.commands.handle(projectId, id, command(at));
      return row ?? before;
    });
  }

  /** Spec Limits 5 and the URL policy; the DTO has checked types and ranges. */
  private checked(input: WebhookEndpointInput): WebhookEndpointInput {
    const settings: WebhookEndpointInput = { ...input };
    if (input.url !== undefined) settings.url = checkWebhookUrl(input.url, this.config.MM_ENVIRONMENT === 'production');
    if (input.subscriptions !== undefined) {
      const problem = subscriptionsProblem(input.subscriptions);
      if (problem) throw new ApiError('UnknownEventType', problem);
      settings.subscriptions = [...new Set(input.subscriptions)];
    }
    return settings;
  }
}
