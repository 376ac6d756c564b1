// The fan-out reads a project's live endpoints for every partner event, and a
// test send, a retry or a resend the endpoint it names; they change rarely. They
// are kept per project in memory while the database can tell this process of
// every change (NotifiedCache: a trigger notifies on commit). An endpoint command
// is answered once every process has dropped its copy (ProjectCache.change), so
// an event after the answer fans out as the command left the endpoints, and a
// test send after it sees the endpoint as a GET would, whichever process serves
// it (ADR 0025).
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createChangeNotifyTrigger, dropChangeNotifyTrigger, ProjectCache, UnitOfWork } from '@mm/platform/database';
import type { EndpointRow } from './webhooks-read-models.repository';

export const ENDPOINT_CHANGES_CHANNEL = 'mm_webhook_endpoint_changes';

/** An endpoint row of a live endpoint, as a GET reads it. */
export type LiveEndpoint = EndpointRow & { status: 'enabled' | 'suspended' };

@Injectable()
export class WebhookEndpointsCache extends ProjectCache<LiveEndpoint[]> {
  constructor(uow: UnitOfWork) {
    super(uow, ENDPOINT_CHANGES_CHANNEL, 'webhook-endpoints');
  }

  /** The project's enabled and suspended endpoints, oldest id first. */
  live(projectId: string): Promise<LiveEndpoint[]> {
    return this.cached(projectId, () =>
      this.uow.query<LiveEndpoint>(
        `SELECT * FROM webhooks.endpoints
          WHERE project_id = $1 AND deleted_at IS NULL AND status IN ('enabled', 'suspended') ORDER BY id`,
        [projectId],
      ),
    );
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
