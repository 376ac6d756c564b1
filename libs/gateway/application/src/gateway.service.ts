// Gateway use cases: projects and their credentials (through ProjectCommands), token issue and start-up
// bootstrap.
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { sign } from 'jsonwebtoken';
import { ApiError, normalizeScopes, type ProjectChanges, type ProjectFeatures } from '@mm/contracts';
import { NO_FEATURES, type NewApiKey } from '@mm/gateway/domain';
import {
  GatewayReadModels,
  SecretHasher,
  SigningKeys,
  type ApiKeyRow,
  type ProjectRow,
} from '@mm/gateway/infrastructure';
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
import { base62, usableUntil, type NewKeyPair } from './api-key-pairs';
import { ProjectCommands } from './project.commands';

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
        // Every money action of an operator waits for a second one in production; none does in a sandbox.
        fourEyesThreshold: this.config.isSandbox ? null : '0.00',
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
    options: { name?: string | null; scopes?: string[] | null } = {},
    pair?: { apiKey: string; apiSecret: string },
  ): Promise<NewKeyPair> {
    const { key, apiSecret } = await this.newKey(pair);
    // Stored as listed: each scope once, a read its write implies dropped.
    const scopes = options.scopes ? normalizeScopes(options.scopes) : null;
    return runCommand(this.uow, async () => {
      await this.requireProject(projectId);
      const at = new Date().toISOString();
      await this.commands.handle(projectId, projectId, {
        type: 'IssueApiKey',
        key,
        name: options.name ?? null,
        scopes,
        at,
      });
      return { row: (await this.readModels.apiKey(key.apiKey))!, apiSecret };
    });
  }

  /**
   * A new key pair with the key's name and scopes; the key itself stops working `expiresInSeconds` from now
   * (0: at once), in every process (docs/operators.md, "Rolling a key").
   */
  async rollApiKey(
    apiKey: string,
    expiresInSeconds: number,
    inProject?: string,
  ): Promise<NewKeyPair & { rolled: ApiKeyRow }> {
    const { key, apiSecret } = await this.newKey();
    return runCommand(this.uow, async () => {
      const row = await this.keyOf(apiKey, inProject);
      const now = Date.now();
      const at = new Date(now).toISOString();
      const expiresAt = new Date(now + expiresInSeconds * 1000).toISOString();
      await this.commands.handle(row.project_id, row.project_id, {
        type: 'RollApiKey',
        apiKey,
        successor: key,
        expiresAt,
        at,
      });
      const [successor, rolled] = await Promise.all([
        this.readModels.apiKey(key.apiKey),
        this.readModels.apiKey(apiKey),
      ]);
      return { row: successor!, apiSecret, rolled: rolled! };
    });
  }

  /** The key, of the given project when one is given (a partner's own keys): another project's is not found. */
  private async keyOf(apiKey: string, inProject?: string): Promise<ApiKeyRow> {
    const row = await this.readModels.apiKey(apiKey);
    if (!row || (inProject !== undefined && row.project_id !== inProject)) throw new ApiError('ApiKeyNotFound');
    return row;
  }

  private async newKey(pair?: { apiKey: string; apiSecret: string }): Promise<{ key: NewApiKey; apiSecret: string }> {
    const mode = this.config.keyMode;
    const apiSecret = pair?.apiSecret ?? base62(40);
    const key = {
      apiKey: pair?.apiKey ?? `sk_${mode}_${base62(24)}`,
      mode,
      secretHash: await this.hasher.hash(apiSecret),
    };
    return { key, apiSecret };
  }

  async revokeApiKey(
    apiKey: string,
    inProject?: string,
  ): Promise<{ apiKey: string; projectId: string; revokedAt: string }> {
    return runCommand(this.uow, async () => {
      const row = await this.keyOf(apiKey, inProject);
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
    const now = Date.now();
    const issuedAt = Math.floor(now / 1000);
    // A rolled key's tokens end with the key: a token is never valid for longer than the key that got it.
    const until = usableUntil(row);
    if (until <= now)
      throw refuse(`this API key expired after it was rolled; use the key it was rolled into, ${row.rolled_into}`);
    const lifetime = Math.min(TOKEN_LIFETIME_SECONDS, Math.floor(until / 1000) - issuedAt);
    if (lifetime < 1)
      throw refuse(`this API key expires in under a second after it was rolled; use ${row.rolled_into}`);
    const { kid, privateKey } = await this.signingKeys.activeKey();
    const claims = { projectId: row.project_id, mode: row.mode, ...(row.scopes ? { scopes: row.scopes } : {}) };
    const accessToken = sign(claims, privateKey, {
      algorithm: TOKEN_ALGORITHM,
      keyid: kid,
      issuer: TOKEN_ISSUER,
      audience: TOKEN_AUDIENCE,
      subject: apiKey,
      jwtid: randomUUID(),
      expiresIn: lifetime,
    });
    await this.readModels.markApiKeyUsed(apiKey, new Date(now));
    return {
      accessToken,
      tokenType: 'bearer',
      expiresIn: lifetime,
      expiresAt: new Date((issuedAt + lifetime) * 1000).toISOString(),
    };
  }

  async usableUntil(apiKey: string, projectId: string): Promise<number> {
    const row = await this.readModels.apiKey(apiKey);
    return row && row.project_id === projectId ? usableUntil(row) : 0;
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
        await this.createApiKey(project.id, { name: 'bootstrap' }, { apiKey, apiSecret });
        return { projectId: project.id, apiKey, apiSecret, created: true };
      }
      if ((await this.readModels.countProjects()) > 0) {
        const existing = await this.readModels.projectByName('default');
        const key = existing ? await this.readModels.firstActiveApiKey(existing.id) : undefined;
        return existing ? { projectId: existing.id, apiKey: key?.api_key, created: false } : undefined;
      }
      const project = await this.createProject('default');
      const { row, apiSecret: secret } = await this.createApiKey(project.id, { name: 'default' });
      return { projectId: project.id, apiKey: row.api_key, apiSecret: secret, created: true };
    });
  }
}
