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
import { previousKeysColumn, type PreviousSigningKey } from './webhook-signing-keys.repository';
import type { EndpointRow } from './webhooks-read-models.repository';

export const ENDPOINT_CHANGES_CHANNEL = 'mm_webhook_endpoint_changes';

/**
 * An endpoint row of a live endpoint, as a GET reads it, with its current signing key as stored (sealed):
 * what the worker signs a delivery handed to it by its insert with (ADR 0055). A key is issued and
 * rotated in the transaction that writes the endpoint's row, so the row's change notice covers the key's.
 */
export type LiveEndpoint = EndpointRow & {
  status: 'enabled' | 'suspended';
  encryption_key_id: string | null;
  key_sealed: Buffer | null;
  previous_keys: PreviousSigningKey[];
};

@Injectable()
export class WebhookEndpointsCache extends ProjectCache<LiveEndpoint[]> {
  constructor(uow: UnitOfWork) {
    super(uow, ENDPOINT_CHANGES_CHANNEL, 'webhook-endpoints');
  }

  /** The project's enabled and suspended endpoints, oldest id first. */
  live(projectId: string): Promise<LiveEndpoint[]> {
    return this.cached(projectId, () =>
      this.uow.query<LiveEndpoint>(
        // Retired keys still signing by the wall clock: a project's clock is never behind it, and the worker
        // drops those past their time on the project's clock when it signs.
        `SELECT e.*, k.encryption_key_id, k.key_sealed, ${previousKeysColumn('now()')} FROM webhooks.endpoints e
           LEFT JOIN webhooks.signing_keys k ON k.webhook_id = e.id AND k.retired_at IS NULL
          WHERE e.project_id = $1 AND e.deleted_at IS NULL AND e.status IN ('enabled', 'suspended') ORDER BY e.id`,
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
    await createChangeNotifyTrigger(runner, {
      ...ENDPOINTS_TRIGGER,
      events: 'AFTER INSERT OR UPDATE OR DELETE',
      channel: ENDPOINT_CHANGES_CHANNEL,
      groupColumn: 'project_id',
    });
  }

  async down(runner: QueryRunner): Promise<void> {
    await dropChangeNotifyTrigger(runner, ENDPOINTS_TRIGGER);
  }
}
