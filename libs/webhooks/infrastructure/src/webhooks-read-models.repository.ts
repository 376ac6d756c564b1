// Read models of the webhooks service; every query takes the project id.
import { Injectable } from '@nestjs/common';
import type { WebhookEndpointStatus } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';
import { WebhookEndpointsCache } from './webhook-endpoints.cache';

export interface EndpointRow {
  id: string;
  project_id: string;
  url: string;
  subscriptions: string[];
  timeout_ms: number;
  notify_threshold_secs: number;
  description: string | null;
  status: WebhookEndpointStatus;
  version: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

const COLUMNS: Record<string, string> = {
  url: 'url',
  subscriptions: 'subscriptions',
  timeoutMs: 'timeout_ms',
  notifyThresholdSecs: 'notify_threshold_secs',
  description: 'description',
};

@Injectable()
export class WebhooksReadModels {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly cache: WebhookEndpointsCache,
  ) {}

  async insertEndpoint(
    e: Omit<EndpointRow, 'created_at' | 'updated_at' | 'deleted_at' | 'status'> & { at: string },
  ): Promise<EndpointRow> {
    const [row] = await this.cache.change(e.project_id, () =>
      this.uow.query<EndpointRow>(
        `INSERT INTO webhooks.endpoints (id, project_id, url, subscriptions, timeout_ms, notify_threshold_secs, description, status, version, created_at, updated_at)
         VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, 'enabled', $8, $9, $9) RETURNING *`,
        [
          e.id,
          e.project_id,
          e.url,
          JSON.stringify(e.subscriptions),
          e.timeout_ms,
          e.notify_threshold_secs,
          e.description,
          e.version,
          e.at,
        ],
      ),
    );
    return row;
  }

  async updateEndpoint(
    projectId: string,
    id: string,
    changes: Record<string, unknown>,
    version: number,
    at: string,
  ): Promise<EndpointRow | undefined> {
    const sets: string[] = [];
    const values: unknown[] = [projectId, id, version, at];
    for (const [field, value] of Object.entries(changes)) {
      const column = COLUMNS[field];
      if (!column) continue;
      values.push(field === 'subscriptions' ? JSON.stringify(value) : value);
      sets.push(`${column} = $${values.length}${field === 'subscriptions' ? '::jsonb' : ''}`);
    }
    const [row] = await this.cache.change(projectId, () =>
      this.uow.query<EndpointRow>(
        `UPDATE webhooks.endpoints SET ${[...sets, 'version = $3', 'updated_at = $4'].join(', ')} WHERE project_id = $1 AND id = $2 RETURNING *`,
        values,
      ),
    );
    return row;
  }

  async setEndpointStatus(
    projectId: string,
    id: string,
    status: WebhookEndpointStatus,
    version: number,
    at: string,
  ): Promise<EndpointRow | undefined> {
    const [row] = await this.cache.change(projectId, () =>
      this.uow.query<EndpointRow>(
        `UPDATE webhooks.endpoints SET status = $3, version = $4, updated_at = $5 WHERE project_id = $1 AND id = $2 RETURNING *`,
        [projectId, id, status, version, at],
      ),
    );
    return row;
  }

  /** A new version and update time only (a new signing key): the cached row shows updatedAt too. */
  async touchEndpoint(projectId: string, id: string, version: number, at: string): Promise<EndpointRow | undefined> {
    const [row] = await this.cache.change(projectId, () =>
      this.uow.query<EndpointRow>(
        `UPDATE webhooks.endpoints SET version = $3, updated_at = $4 WHERE project_id = $1 AND id = $2 RETURNING *`,
        [projectId, id, version, at],
      ),
    );
    return row;
  }

  async markEndpointDeleted(projectId: string, id: string, version: number, at: string): Promise<void> {
    await this.cache.change(projectId, () =>
      this.uow.query(
        `UPDATE webhooks.endpoints SET deleted_at = $3, version = $4, updated_at = $3 WHERE project_id = $1 AND id = $2`,
        [projectId, id, at, version],
      ),
    );
  }

  async endpoint(
    projectId: string,
    id: string,
    options: { includeDeleted?: boolean } = {},
  ): Promise<EndpointRow | undefined> {
    const [row] = await this.uow.query<EndpointRow>(
      `SELECT * FROM webhooks.endpoints WHERE project_id = $1 AND id = $2 AND ($3 OR deleted_at IS NULL)`,
      [projectId, id, options.includeDeleted === true],
    );
    return row;
  }

  /** The project of an endpoint that is not deleted, whichever project it is (an operator's lookup). */
  async projectOfEndpoint(id: string): Promise<string | undefined> {
    const [row] = await this.uow.query<{ project_id: string }>(
      `SELECT project_id FROM webhooks.endpoints WHERE id = $1 AND deleted_at IS NULL`,
      [id],
    );
    return row?.project_id;
  }

  /** The project's endpoint if it is enabled or suspended, from the processes' coherent copy (no round trip when held). */
  async liveEndpoint(projectId: string, id: string): Promise<EndpointRow | undefined> {
    return (await this.cache.live(projectId)).find((e) => e.id === id);
  }

  async listEndpoints(projectId: string, before: string | undefined, limit: number): Promise<EndpointRow[]> {
    return this.uow.query<EndpointRow>(
      `SELECT * FROM webhooks.endpoints WHERE project_id = $1 AND deleted_at IS NULL AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
      [projectId, before ?? null, limit + 1],
    );
  }
}
