// Gateway use cases: projects and their credentials (through ProjectCommands), token issue and start-up
// bootstrap.
import { randomBytes, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import { ApiError, type ProjectChanges, type ProjectFeatures } from '@mm/contracts';
import { NO_FEATURES } from '@mm/gateway/domain';
import { GatewayReadModels, SecretHasher, SigningKeys, type ProjectRow } from '@mm/gateway/infrastructure';
import {
  TOKEN_ALGORITHM,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  TOKEN_LIFETIME_SECONDS,
  type ApiKeyRegistry,
} from '@mm/platform/auth';
import { PlatformConfig } from '@mm/platform/config';
import { UnitOfWork } from '@mm/platform/database';
import { runCommand } from '@mm/platform/event-store';
import { newId } from '@mm/platform/ids';
import { ProjectCommands } from './project.commands';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text; bytes >= 248 are skipped so every character is equally likely. */
function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) if (b < 248 && out.length < length) out += BASE62[b % 62];
  }
  return out;
}

export interface IssuedToken {
  accessToken: string;
  tokenType: 'bearer';
  expiresIn: number;
  expiresAt: string;
}

export interface BootstrapResult {
  projectId: string;
  apiKey?: string;
  apiSecret?: string;
  created: boolean;
}

@Injectable()
export class GatewayService implements ApiKeyRegistry {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly commands: ProjectCommands,
    private readonly readModels: GatewayReadModels,
    private readonly hasher: SecretHasher,
    private readonly signingKeys: SigningKeys,
    private readonly config: PlatformConfig,
  ) {}

  async createProject(name: string, features: Partial<ProjectFeatures> = {}): Promise<ProjectRow> {
    const projectId = newId('project');
    const at = new Date().toISOString();
    return runCommand(this.uow, async () => {
      const merged = { ...NO_FEATURES, ...features };
      await this.commands.handle(projectId, projectId, {
        type: 'CreateProject',
        projectId,
        name,
        features: merged,
        at,
      });
      return (await this.readModels.project(projectId))!;
    });
  }

  async updateProject(projectId: string, changes: ProjectChanges): Promise<ProjectRow> {
    return runCommand(this.uow, async () => {
      await this.requireProject(projectId);
      const at = new Date().toISOString();
      // Answered once no process decides on the settings as they were (a switch that refuses acts on the
      // next request: ADR 0057).
      await this.commands.handle(projectId, projectId, { type: 'UpdateProject', changes, at });
      return (await this.readModels.project(projectId))!;
    });
  }

  async requireProject(projectId: string): Promise<ProjectRow> {
    const row = await this.readModels.project(projectId);
    if (!row) throw new ApiError('ProjectNotFound');
    return row;
  }

  /** A new key pair; the secret is returned here and never again. */
  async createApiKey(
    projectId: string,
    pair?: { apiKey: string; apiSecret: string },
  ): Promise<{ apiKey: string; apiSecret: string }> {
    const mode = this.config.keyMode;
    const apiKey = pair?.apiKey ?? `sk_${mode}_${base62(24)}`;
    const apiSecret = pair?.apiSecret ?? base62(40);
    const secretHash = await this.hasher.hash(apiSecret);
    return runCommand(this.uow, async () => {
      await this.requireProject(projectId);
      const at = new Date().toISOString();
      await this.commands.handle(projectId, projectId, { type: 'IssueApiKey', apiKey, mode, secretHash, at });
      return { apiKey, apiSecret };
    });
  }

  async revokeApiKey(apiKey: string): Promise<{ apiKey: string; projectId: string; revokedAt: string }> {
    return runCommand(this.uow, async () => {
      const row = await this.readModels.apiKey(apiKey);
      if (!row) throw new ApiError('ApiKeyNotFound');
      const at = new Date().toISOString();
      // Answered once no process answers from a token of the key verified before (docs: "stop working at once").
      await this.commands.handle(row.project_id, row.project_id, { type: 'RevokeApiKey', apiKey, at });
      const after = (await this.readModels.apiKey(apiKey))!;
      return { apiKey, projectId: row.project_id, revokedAt: new Date(after.revoked_at ?? at).toISOString() };
    });
  }

  async createPublishableKey(projectId: string): Promise<{ publishableKey: string }> {
    const mode = this.config.keyMode;
    const publishableKey = `pk_${mode}_${base62(24)}`;
    return runCommand(this.uow, async () => {
      await this.requireProject(projectId);
      const at = new Date().toISOString();
      await this.commands.handle(projectId, projectId, { type: 'IssuePublishableKey', publishableKey, mode, at });
      return { publishableKey };
    });
  }

  async revokePublishableKey(publishableKey: string): Promise<void> {
    await runCommand(this.uow, async () => {
      const row = await this.readModels.publishableKey(publishableKey);
      if (!row) throw new ApiError('ApiKeyNotFound', 'publishable key not found');
      const at = new Date().toISOString();
      await this.commands.handle(row.project_id, row.project_id, { type: 'RevokePublishableKey', publishableKey, at });
    });
  }

  /**
   * POST /auth/token. Every refusal is the spec's 401 with `cause` `signature` (spec: Errors), and
   * `error_description` says what to fix without telling a caller who lacks the secret whether the
   * key exists (ADR 0027): a key of the other mode is known by its prefix alone, an unknown key and a
   * wrong secret get the same words, and only a caller who holds the right secret learns that its
   * key was revoked.
   */
  async issueToken(apiKey: string, apiSecret: string): Promise<IssuedToken> {
    const refuse = (description: string) => new ApiError('Unauthorized', 'signature', {}, description);
    if (!apiKey.startsWith(`sk_${this.config.keyMode}_`)) {
      const other = /^sk_(?:[a-z]+_)?(sdbx|live)_/.exec(apiKey)?.[1];
      throw refuse(
        other && other !== this.config.keyMode
          ? `a ${other === 'live' ? 'production' : 'sandbox'} API key cannot be used on the ${this.config.MM_ENVIRONMENT} host; use a key starting with sk_${this.config.keyMode}_`
          : `not an API key of this host: keys here start with sk_${this.config.keyMode}_`,
      );
    }
    const row = await this.readModels.apiKey(apiKey);
    const secretOk = row
      ? await this.hasher.matches(apiSecret, row.secret_hash)
      : await this.hasher.hash(apiSecret).then(() => false);
    if (!row || !secretOk || row.mode !== this.config.keyMode) {
      throw refuse(
        'invalid API key or secret: the pair does not match an active key; check the secret (shown once, when the key pair was created) or create a new pair',
      );
    }
    if (row.revoked_at) throw refuse('this API key was revoked; create a new key pair');
    const { kid, privateKey } = await this.signingKeys.activeKey();
    const issuedAt = Math.floor(Date.now() / 1000);
    const accessToken = sign({ projectId: row.project_id, mode: row.mode }, privateKey, {
      algorithm: TOKEN_ALGORITHM,
      keyid: kid,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      subject: apiKey,
      jwtid: randomUUID(),
      expiresIn: TOKEN_LIFETIME_SECONDS,
    });
    return {
      accessToken,
      tokenType: 'bearer',
      expiresIn: TOKEN_LIFETIME_SECONDS,
      expiresAt: new Date((issuedAt + TOKEN_LIFETIME_SECONDS) * 1000).toISOString(),
    };
  }

  async isActive(apiKey: string, projectId: string): Promise<boolean> {
    const row = await this.readModels.apiKey(apiKey);
    return Boolean(row && !row.revoked_at && row.project_id === projectId);
  }

  /**
   * Start-up (API-CONTRACT: Addresses, modes, start-up): the bootstrap key pair
   * when configured and not yet present; with none configured and an empty
   * database, a project named default and a fresh key pair.
   */
  async bootstrap(): Promise<BootstrapResult | undefined> {
    const { MM_BOOTSTRAP_API_KEY: apiKey, MM_BOOTSTRAP_API_SECRET: apiSecret } = this.config;
    // One process at a time decides, so two instances starting together create one project.
    return this.uow.run(async () => {
      await this.uow.query(`SELECT pg_advisory_xact_lock(7346002)`);
      if (apiKey && apiSecret) {
        const existing = await this.readModels.apiKey(apiKey);
        if (existing) return { projectId: existing.project_id, apiKey, created: false };
        const project = (await this.readModels.projectByName('default')) ?? (await this.createProject('default'));
        await this.createApiKey(project.id, { apiKey, apiSecret });
        return { projectId: project.id, apiKey, apiSecret, created: true };
      }
      if ((await this.readModels.countProjects()) > 0) {
        const existing = await this.readModels.projectByName('default');
        const key = existing ? await this.readModels.firstActiveApiKey(existing.id) : undefined;
        return existing ? { projectId: existing.id, apiKey: key?.api_key, created: false } : undefined;
      }
      const project = await this.createProject('default');
      const pair = await this.createApiKey(project.id);
      return { projectId: project.id, ...pair, created: true };
    });
  }
}
