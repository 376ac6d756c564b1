import { createHash } from 'node:crypto';
import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  HttpCode,
  Options,
  Param,
  Patch,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExcludeEndpoint,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { ApiError, type ProjectLimits } from '@mm/contracts';
import { GatewayService } from '@mm/gateway/application';
import { SigningKeys, GatewayReadModels, type ApiKeyRow, type ProjectRow } from '@mm/gateway/infrastructure';
import { PlatformConfig } from '@mm/platform/config';
import {
  AdminRoute,
  ApiPage,
  decodeCursor,
  Idempotent,
  ListQuery,
  ProjectId,
  NoIdempotencyKey,
  NoStore,
  pageLimit,
  PartnerAudited,
  Public,
  PublishableKeyRoute,
  ShownOnce,
  toPage,
  type AuditedRequest,
  type Page,
} from '@mm/platform/http';
import { isId } from '@mm/platform/ids';
import { formatAmount } from '@mm/platform/money';
import {
  ApiKeyPairResponse,
  ApiKeyResponse,
  CreateApiKeyRequest,
  CreateProjectRequest,
  RollApiKeyRequest,
  JsonWebKeySetResponse,
  ProjectResponse,
  PublishableKeyResponse,
  RevokedApiKeyResponse,
  RiskConfigResponse,
  TokenRequest,
  TokenResponse,
  UpdateProjectRequest,
} from './gateway.dto';

/** Every limit removed: what `limits: null` means in a PATCH. */
const NO_LIMITS: { [K in keyof Required<ProjectLimits>]: null } = {
  perTransactionMin: null,
  perTransactionMax: null,
  perTransactionMultiple: null,
  dailyBankPayoutCap: null,
  monthlyBankPayoutCap: null,
};

/** What an API key list's cursor names: a key (bootstrap keys are named by whoever set them). */
const API_KEY_CURSOR = /^\S{1,200}$/;

const iso = (at: Date | null) => (at ? new Date(at).toISOString() : null);

/** A key as operators see it: never its secret or the secret's hash. */
function toApiKey(row: ApiKeyRow, now = Date.now()): ApiKeyResponse {
  const expired = row.expires_at !== null && new Date(row.expires_at).getTime() <= now;
  return {
    object: 'apiKey',
    apiKey: row.api_key,
    projectId: row.project_id,
    name: row.name,
    scopes: row.scopes,
    status: row.revoked_at ? 'revoked' : expired ? 'expired' : 'active',
    createdAt: new Date(row.created_at).toISOString(),
    lastUsedAt: iso(row.last_used_at),
    expiresAt: iso(row.expires_at),
    rolledInto: row.rolled_into,
    revokedAt: iso(row.revoked_at),
  };
}

function toProject(row: ProjectRow): ProjectResponse {
  return {
    id: row.id,
    object: 'project',
    name: row.name,
    features: row.features,
    limits: row.limits,
    attributionTimeoutHours: row.attribution_timeout_hours,
    fourEyesThreshold: row.four_eyes_threshold,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

@ApiTags('Authentication')
@Controller()
export class AuthController {
  constructor(
    private readonly gateway: GatewayService,
    private readonly signingKeys: SigningKeys,
  ) {}

  @Post('auth/token')
  @Public()
  @NoStore()
  @NoIdempotencyKey()
  @UseGuards(ThrottlerGuard)
  @HttpCode(200)
  @ApiOperation({ summary: 'Exchange an API key pair for a bearer token (60 minutes); rate limited per client IP' })
  @ApiOkResponse({ type: TokenResponse })
  token(@Body() body: TokenRequest): Promise<TokenResponse> {
    return this.gateway.issueToken(body.apiKey, body.apiSecret);
  }

  @Get('.well-known/jwks.json')
  @Public()
  @ApiOperation({ summary: "The token issuer's public keys (JWKS)" })
  @ApiOkResponse({ type: JsonWebKeySetResponse })
  jwks() {
    return this.signingKeys.jwks();
  }
}

@ApiTags('Risk')
@Controller('risk')
export class RiskConfigController {
  constructor(
    private readonly readModels: GatewayReadModels,
    private readonly config: PlatformConfig,
  ) {}

  /** A browser's preflight for GET config (or any OPTIONS of it): the CORS hook answers it (204) before any handler runs. */
  @Options('config')
  @PublishableKeyRoute()
  @ApiExcludeEndpoint()
  preflight(): void {
    // Never reached: the CORS hook answers every OPTIONS on this route before its handler.
  }

  @Get('config')
  @PublishableKeyRoute()
  @UseGuards(ThrottlerGuard)
  @ApiSecurity('publishableKey')
  @ApiHeader({ name: 'Api-Key', description: 'publishable key (pk_sdbx_… / pk_live_…)', required: true })
  @ApiOperation({ summary: 'Browser risk configuration: provider identifiers only' })
  @ApiOkResponse({ type: RiskConfigResponse })
  async riskConfig(
    @Headers('api-key') apiKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RiskConfigResponse> {
    void reply.header('cache-control', 'no-store');
    if (!apiKey) throw new ApiError('Unauthorized', 'publishable key required in the Api-Key header');
    const mode = /^pk_(sdbx|live)_/.exec(apiKey)?.[1];
    if (!mode) throw new ApiError('Unauthorized', 'invalid publishable key');
    // The key's mode is in its prefix: a host refuses the other mode's keys without knowing them.
    if (mode !== this.config.keyMode) {
      throw new ApiError(
        'Forbidden',
        `a ${mode === 'live' ? 'production' : 'sandbox'} key cannot be used on the ${this.config.MM_ENVIRONMENT} host`,
      );
    }
    const row = await this.readModels.publishableKey(apiKey);
    if (!row || row.revoked_at || row.mode !== mode)
      throw new ApiError('Unauthorized', row?.revoked_at ? 'publishable key revoked' : 'invalid publishable key');
    const clientId = this.config.MM_RISK_CLIENT_ID ?? (this.config.isSandbox ? 'sandbox-risk-client' : undefined);
    if (!clientId) throw new ApiError('RiskConfigUnavailable', 'risk configuration unavailable');
    // The provider's identifier for this partner: derived from the project, naming no customer.
    const partnerId = `ptn_${createHash('sha256').update(row.project_id).digest('hex').slice(0, 24)}`;
    return { clientId, partnerId };
  }
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin')
export class AdminController {
  constructor(
    private readonly gateway: GatewayService,
    private readonly readModels: GatewayReadModels,
  ) {}

  private projectId(value: string): string {
    if (!isId('project', value)) throw new ApiError('ProjectNotFound', 'no project with this id');
    return value;
  }

  @AdminRoute('admin')
  @Post('projects')
  @Idempotent()
  @ApiOperation({ summary: 'Create a project' })
  @ApiCreatedResponse({ type: ProjectResponse })
  async createProject(@Body() body: CreateProjectRequest): Promise<ProjectResponse> {
    return toProject(await this.gateway.createProject(body.name, body.features));
  }

  @AdminRoute('viewer')
  @Get('projects')
  @ApiOperation({ summary: 'List projects, newest first' })
  @ApiPage(ProjectResponse)
  async listProjects(@Query() query: ListQuery): Promise<Page<ProjectResponse>> {
    const limit = pageLimit(query);
    const rows = await this.readModels.listProjects(decodeCursor(query.cursor), limit);
    const page = toPage(rows, limit, (r) => r.id);
    return { ...page, data: page.data.map(toProject) };
  }

  @AdminRoute('viewer')
  @Get('projects/:projectId')
  @ApiOkResponse({ type: ProjectResponse })
  async getProject(@Param('projectId') projectId: string): Promise<ProjectResponse> {
    return toProject(await this.gateway.requireProject(this.projectId(projectId)));
  }

  @AdminRoute('admin')
  @Patch('projects/:projectId')
  @Idempotent()
  @ApiOperation({
    summary: 'Change features, bank payout limits, the attribution timeout or the four-eyes threshold',
  })
  @ApiOkResponse({ type: ProjectResponse })
  async updateProject(
    @Param('projectId') projectId: string,
    @Body() body: UpdateProjectRequest,
    @Req() request: AuditedRequest,
  ): Promise<ProjectResponse> {
    // The project as it was, for the operators' audit log.
    request.auditBefore = toProject(await this.gateway.requireProject(this.projectId(projectId)));
    const { features, attributionTimeoutHours, fourEyesThreshold } = body;
    // null removes every limit: each set to null, as naming them all would.
    const limits = body.limits === null ? NO_LIMITS : body.limits;
    return toProject(
      await this.gateway.updateProject(this.projectId(projectId), {
        features,
        limits,
        attributionTimeoutHours,
        // Kept as written, two decimal places ("0.00": every action).
        fourEyesThreshold: fourEyesThreshold == null ? fourEyesThreshold : formatAmount(fourEyesThreshold, 2),
      }),
    );
  }

  @AdminRoute('admin')
  @Post('projects/:projectId/api-keys')
  @NoStore()
  // The secret is kept only as a hash (spec: Authentication 1), so the response cannot be replayed:
  // a retry with the same Idempotency-Key is refused naming the key made, and makes no second pair.
  @Idempotent()
  @ShownOnce('apiSecret')
  @ApiOperation({
    summary:
      'Create an API key pair; the secret is shown only in this response. A retry with the same Idempotency-Key makes no second pair: it is refused (409 IdempotentReplayUnavailable) naming the key made',
  })
  @ApiCreatedResponse({ type: ApiKeyPairResponse })
  async createApiKey(
    @Param('projectId') projectId: string,
    @Body() body: CreateApiKeyRequest,
  ): Promise<ApiKeyPairResponse> {
    const { row, apiSecret } = await this.gateway.createApiKey(this.projectId(projectId), body ?? {});
    return { apiKey: row.api_key, apiSecret };
  }

  @AdminRoute('viewer')
  @Get('projects/:projectId/api-keys')
  @ApiOperation({ summary: "A project's API keys, newest first: never a secret" })
  @ApiPage(ApiKeyResponse)
  async listApiKeys(@Param('projectId') projectId: string, @Query() query: ListQuery): Promise<Page<ApiKeyResponse>> {
    const id = (await this.gateway.requireProject(this.projectId(projectId))).id;
    const limit = pageLimit(query);
    const rows = await this.readModels.listApiKeys(id, decodeCursor(query.cursor, API_KEY_CURSOR), limit);
    const page = toPage(rows, limit, (r) => r.api_key);
    return { ...page, data: page.data.map((row) => toApiKey(row)) };
  }

  @AdminRoute('admin')
  @Post('api-keys/:apiKey/roll')
  @NoStore()
  @Idempotent()
  @ShownOnce('apiSecret')
  @ApiOperation({
    summary:
      'Roll an API key: a new pair with its name and scopes (the secret shown only here); the key rolled stops working expiresInSeconds from now, in every process',
  })
  @ApiCreatedResponse({ type: ApiKeyPairResponse })
  async rollApiKey(@Param('apiKey') apiKey: string, @Body() body: RollApiKeyRequest): Promise<ApiKeyPairResponse> {
    const { row, apiSecret } = await this.gateway.rollApiKey(apiKey, body?.expiresInSeconds ?? 0);
    return { apiKey: row.api_key, apiSecret };
  }

  @AdminRoute('admin')
  @Delete('api-keys/:apiKey')
  @ApiOperation({ summary: 'Revoke an API key; its tokens stop working at once' })
  @ApiOkResponse({ type: RevokedApiKeyResponse })
  async revokeApiKey(@Param('apiKey') apiKey: string): Promise<RevokedApiKeyResponse> {
    const revoked = await this.gateway.revokeApiKey(apiKey);
    return { object: 'apiKey', ...revoked, status: 'revoked' };
  }

  @AdminRoute('admin')
  @Post('projects/:projectId/publishable-keys')
  @NoStore()
  @Idempotent()
  @ApiOperation({ summary: 'Create a publishable key for GET /risk/config' })
  @ApiCreatedResponse({ type: PublishableKeyResponse })
  createPublishableKey(@Param('projectId') projectId: string): Promise<PublishableKeyResponse> {
    return this.gateway.createPublishableKey(this.projectId(projectId));
  }

  @AdminRoute('admin')
  @Delete('publishable-keys/:publishableKey')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a publishable key' })
  @ApiNoContentResponse()
  async revokePublishableKey(@Param('publishableKey') publishableKey: string): Promise<void> {
    await this.gateway.revokePublishableKey(publishableKey);
  }
}

/**
 * The project's own keys, for whoever holds one of them with every scope (docs/sdk.md, "API keys"): the
 * same as the operator routes, within the token's project. A restricted key cannot reach them, so no key
 * makes another with more than it has.
 */
@ApiTags('API keys')
@ApiBearerAuth('bearer')
@PartnerAudited()
@Controller('api-keys')
export class ApiKeysController {
  constructor(
    private readonly gateway: GatewayService,
    private readonly readModels: GatewayReadModels,
  ) {}

  @Get()
  @ApiOperation({ summary: "The project's API keys, newest first: never a secret" })
  @ApiPage(ApiKeyResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListQuery): Promise<Page<ApiKeyResponse>> {
    const limit = pageLimit(query);
    const rows = await this.readModels.listApiKeys(projectId, decodeCursor(query.cursor, API_KEY_CURSOR), limit);
    const page = toPage(rows, limit, (r) => r.api_key);
    return { ...page, data: page.data.map((row) => toApiKey(row)) };
  }

  @Post()
  @NoStore()
  @Idempotent()
  @ShownOnce('apiSecret')
  @ApiOperation({ summary: 'Create an API key pair in the project; the secret is shown only in this response' })
  @ApiCreatedResponse({ type: ApiKeyPairResponse })
  async create(@ProjectId() projectId: string, @Body() body: CreateApiKeyRequest): Promise<ApiKeyPairResponse> {
    const { row, apiSecret } = await this.gateway.createApiKey(projectId, body ?? {});
    return { apiKey: row.api_key, apiSecret };
  }

  @Post(':apiKey/roll')
  @NoStore()
  @Idempotent()
  @ShownOnce('apiSecret')
  @ApiOperation({
    summary:
      "Roll one of the project's keys: a new pair with its name and scopes; the key rolled stops working expiresInSeconds from now",
  })
  @ApiCreatedResponse({ type: ApiKeyPairResponse })
  async roll(
    @ProjectId() projectId: string,
    @Param('apiKey') apiKey: string,
    @Body() body: RollApiKeyRequest,
  ): Promise<ApiKeyPairResponse> {
    const { row, apiSecret } = await this.gateway.rollApiKey(apiKey, body?.expiresInSeconds ?? 0, projectId);
    return { apiKey: row.api_key, apiSecret };
  }

  @Delete(':apiKey')
  @ApiOperation({ summary: "Revoke one of the project's keys; its tokens stop working at once" })
  @ApiOkResponse({ type: RevokedApiKeyResponse })
  async revoke(@ProjectId() projectId: string, @Param('apiKey') apiKey: string): Promise<RevokedApiKeyResponse> {
    const revoked = await this.gateway.revokeApiKey(apiKey, projectId);
    return { object: 'apiKey', ...revoked, status: 'revoked' };
  }
}
