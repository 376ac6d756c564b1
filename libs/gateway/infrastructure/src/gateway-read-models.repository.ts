// Read models of the gateway, written inline by the command handlers in the
// same transaction as the events they derive from.
import { Injectable } from '@nestjs/common';
import type { ProjectFeatures, ProjectLimits } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';

export interface ProjectRow {
  id: string;
  name: string;
  features: ProjectFeatures;
  limits: ProjectLimits;
  attribution_timeout_hours: number;
  created_at: Date;
  updated_at: Date;
}

export interface ApiKeyRow {
  api_key: string;
  project_id: string;
  mode: 'sdbx' | 'live';
  secret_hash: string;
  revoked_at: Date | null;
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
    at: string;
  }): Promise<void> {
    await this.uow.query(
      `INSERT INTO gateway.projects (id, name, features, attribution_timeout_hours, created_at, updated_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $5)`,
      [p.id, p.name, JSON.stringify(p.features), p.attributionTimeoutHours, p.at],
    );
  }

  async updateProject(
    id: string,
    s: { features: ProjectFeatures; limits: ProjectLimits; attributionTimeoutHours: number },
    at: string,
  ): Promise<void> {
    await this.uow.query(
      `UPDATE gateway.projects SET features = $2::jsonb, limits = $3::jsonb, attribution_timeout_hours = $4, updated_at = $5 WHERE id = $1`,
      [id, JSON.stringify(s.features), JSON.stringify(s.limits), s.attributionTimeoutHours, at],
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
    at: string;
  }): Promise<void> {
    await this.uow.query(
      `INSERT INTO gateway.api_keys (api_key, project_id, mode, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5)`,
      [k.apiKey, k.projectId, k.mode, k.secretHash, k.at],
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
      `SELECT * FROM gateway.api_keys WHERE project_id = $1 AND revoked_at IS NULL ORDER BY created_at LIMIT 1`,
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
