// The fan-out reads a project's live endpoints for every partner event; they
// change rarely. They are kept per project in memory while the database can
// tell this process of every change (NotifiedCache: a trigger notifies on
// commit; this process marks its own changes before they commit).
import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger, listenConnectionConfig, NotifiedCache, NotifiedCacheFeed, UnitOfWork } from '@mm/platform/database';

export const ENDPOINT_CHANGES_CHANNEL = 'mm_webhook_endpoint_changes';

export interface LiveEndpoint {
  id: string;
  status: 'enabled' | 'suspended';
  subscriptions: string[];
}

@Injectable()
export class WebhookEndpointsCache implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly projects = new NotifiedCache<LiveEndpoint[]>({ maxEntries: 10_000, groupOf: (projectId) => projectId });
  private readonly feed: NotifiedCacheFeed;

  constructor(private readonly uow: UnitOfWork) {
    this.feed = new NotifiedCacheFeed(listenConnectionConfig(uow.dataSource), ENDPOINT_CHANGES_CHANNEL, this.projects, new Logger('webhook-endpoints'));
  }

  onApplicationBootstrap(): Promise<void> {
    return this.feed.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.feed.stop();
  }

  /** Before this process changes a project's endpoints: read afresh until the change is heard back. */
  changing(projectId: string): void {
    this.projects.beginChange(projectId);
  }

  /** The project's enabled and suspended endpoints, oldest id first. */
  async live(projectId: string): Promise<LiveEndpoint[]> {
    const cached = this.projects.lookup(projectId);
    if (cached) return cached;
    const mark = this.projects.mark();
    const rows = await this.uow.query<LiveEndpoint>(
      `SELECT id, status, subscriptions FROM webhooks.endpoints
        WHERE project_id = $1 AND deleted_at IS NULL AND status IN ('enabled', 'suspended') ORDER BY id`,
      [projectId],
    );
    this.projects.remember(projectId, rows, mark);
    return rows;
  }
}

const ENDPOINTS_TRIGGER = { name: 'notify_webhook_endpoint_changed', table: 'webhooks.endpoints' };

/** Every change of an endpoint row tells the processes that cache the project's endpoints. */
export class WebhookEndpointChanges1700000003200 implements MigrationInterface {
  name = 'WebhookEndpointChanges1700000003200';

  async up(runner: QueryRunner): Promise<void> {
    await createChangeNotifyTrigger(runner, { ...ENDPOINTS_TRIGGER, events: 'AFTER INSERT OR UPDATE OR DELETE', channel: ENDPOINT_CHANGES_CHANNEL, groupColumn: 'project_id' });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, ENDPOINTS_TRIGGER);
  }
}
