// Read models of the gateway, written inline by the command handlers in the
// same transaction as the events they derive from.
import { Injectable } from '@nestjs/common';
import type { ProjectFeatures, ProjectLimits } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';

/** A project's settings as a change leaves them. */
export interface ProjectSettingsUpdate {
  features: ProjectFeatures;
  limits: ProjectLimits;
  attributionTimeoutHours: number;
  fourEyesThreshold: string | null;
}

export interface ProjectRow {
  id: string;
  name: string;
  features: ProjectFeatures;
  limits: ProjectLimits;
  attribution_timeout_hours: number;
  four_eyes_threshold: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRow {
  api_key: string;
  project_id: string;
  mode: 'sdbx' | 'live';
  secret_hash: string;
  name: string | null;
  /** null: every scope. */
  scopes: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
  /** Set by a roll: when it stops working, and the key that replaced it. */
  expires_at: Date | null;
  rolled_into: string | null;
  last_used_at: Date | null;
}

export interface PublishableKeyRow {
  publishable_key: string;
  project_id: string;
  mode: 'sdbx' | 'live';
  revoked_at: Date | null;
}

@Injectable()
export class GatewayReadModels {
  constructor(private readonly uow: UnitOfWork) {}

  async insertProject(p: {
    id: string;
    name: string;
    features: ProjectFeatures;
    attributionTimeoutHours: number;
    fourEyesThreshold: string | null;
    at: string;
  }): Promise<void> {
    await this.uow.query(
      `INSERT INTO gateway.projects (id, name, features, attribution_timeout_hours, four_eyes_threshold, created_at, updated_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $6)`,
      [p.id, p.name, JSON.stringify(p.features), p.attributionTimeoutHours, p.fourEyesThreshold, p.at],
    );
  }

  async updateProject(id: string, s: ProjectSettingsUpdate, at: string): Promise<void> {
    await this.uow.query(
      `UPDATE gateway.projects SET features = $2::jsonb, limits = $3::jsonb, attribution_timeout_hours = $4, four_eyes_threshold = $5, updated_at = $6 WHERE id = $1`,
      [id, JSON.stringify(s.features), JSON.stringify(s.limits), s.attributionTimeoutHours, s.fourEyesThreshold, at],
    );
  }

  async project(id: string): Promise<ProjectRow | undefined> {
    const [row] = await this.uow.query<ProjectRow>(`SELECT * FROM gateway.projects WHERE id = $1`, [id]);
    return row;
  }

  async projectByName(name: string): Promise<ProjectRow | undefined> {
    const [row] = await this.uow.query<ProjectRow>(
      `SELECT * FROM gateway.projects WHERE name = $1 ORDER BY id LIMIT 1`,
      [name],
    );
    return row;
  }

  async listProjects(before: string | undefined, limit: number): Promise<ProjectRow[]> {
    return this.uow.query<ProjectRow>(
      `SELECT * FROM gateway.projects WHERE ($1::text IS NULL OR id < $1) ORDER BY id DESC LIMIT $2`,
      [before ?? null, limit + 1],
    );
  }

  async countProjects(): Promise<number> {
    const [row] = await this.uow.query<{ n: string }>(`SELECT count(*) AS n FROM gateway.projects`);
    return Number(row.n);
  }

  async insertApiKey(k: {
    apiKey: string;
    projectId: string;
    mode: string;
    secretHash: string;
    name: string | null;
    scopes: string[] | null;
    at: string;
  }): Promise<void> {
    await this.uow.query(
      `INSERT INTO gateway.api_keys (api_key, project_id, mode, secret_hash, name, scopes, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [k.apiKey, k.projectId, k.mode, k.secretHash, k.name, k.scopes, k.at],
    );
  }

  async rollApiKey(apiKey: string, successor: string, expiresAt: string): Promise<void> {
    await this.uow.query(`UPDATE gateway.api_keys SET expires_at = $2, rolled_into = $3 WHERE api_key = $1`, [
      apiKey,
      expiresAt,
      successor,
    ]);
  }

  /** When the key last obtained a token: kept to the second, so a burst of token requests writes once. */
  async markApiKeyUsed(apiKey: string, at: Date): Promise<void> {
    await this.uow.query(
      `UPDATE gateway.api_keys SET last_used_at = $2
       WHERE api_key = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 second')`,
      [apiKey, at],
    );
  }

  /** A project's keys, newest first; `after`: the last key of the previous page. */
  async listApiKeys(projectId: string, after: string | undefined, limit: number): Promise<ApiKeyRow[]> {
    return this.uow.query<ApiKeyRow>(
      `SELECT * FROM gateway.api_keys
       WHERE project_id = $1
         AND ($2::text IS NULL OR (created_at, api_key) < (SELECT created_at, api_key FROM gateway.api_keys WHERE api_key = $2))
       ORDER BY created_at DESC, api_key DESC LIMIT $3`,
      [projectId, after ?? null, limit + 1],
    );
  }

  async revokeApiKey(apiKey: string, at: string): Promise<void> {
    await this.uow.query(`UPDATE gateway.api_keys SET revoked_at = $2 WHERE api_key = $1`, [apiKey, at]);
  }

  async apiKey(apiKey: string): Promise<ApiKeyRow | undefined> {
    const [row] = await this.uow.query<ApiKeyRow>(`SELECT * FROM gateway.api_keys WHERE api_key = $1`, [apiKey]);
    return row;
  }

  async firstActiveApiKey(projectId: string): Promise<ApiKeyRow | undefined> {
    const [row] = await this.uow.query<ApiKeyRow>(
      `SELECT * FROM gateway.api_keys WHERE project_id = $1 AND revoked_at IS NULL AND expires_at IS NULL ORDER BY created_at LIMIT 1`,
      [projectId],
    );
    return row;
  }

  async insertPublishableKey(k: {
    publishableKey: string;
    projectId: string;
    mode: string;
    at: string;
  }): Promise<void> {
    await this.uow.query(
      `INSERT INTO gateway.publishable_keys (publishable_key, project_id, mode, created_at) VALUES ($1, $2, $3, $4)`,
      [k.publishableKey, k.projectId, k.mode, k.at],
    );
  }

  async revokePublishableKey(key: string, at: string): Promise<void> {
    await this.uow.query(`UPDATE gateway.publishable_keys SET revoked_at = $2 WHERE publishable_key = $1`, [key, at]);
  }

  async publishableKey(key: string): Promise<PublishableKeyRow | undefined> {
    const [row] = await this.uow.query<PublishableKeyRow>(
      `SELECT * FROM gateway.publishable_keys WHERE publishable_key = $1`,
      [key],
    );
    return row;
  }
}
