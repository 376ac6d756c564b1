// The operators' audit log (docs/operators.md, Audit log): listed newest first with filters, and its hash chain
// verified end to end. Operators' routes only, for admins: partners never reach it.
import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';
import { auditEntryOf, AuditLog, type AuditRow } from '@mm/gateway/infrastructure';
import {
  AdminRoute,
  ApiPage,
  decodeCursor,
  JSON_VALUE,
  ListQuery,
  pageLimit,
  toPage,
  type Page,
} from '@mm/platform/http';

export class ListAuditLogQuery extends ListQuery {
  @ApiPropertyOptional({
    description: "only this actor's entries: their subject at the IdP (admin-token for the static token)",
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  actor?: string;

  @ApiPropertyOptional({
    description: 'only this action: the route, as `POST /v0.13/admin/projects/:projectId/api-keys`',
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  action?: string;

  @ApiPropertyOptional({ description: 'only entries about this object (a project, transaction, key, endpoint id)' })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  targetId?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'only entries made after this time' })
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true })
  createdAfter?: string;
}

export class AuditActorResponse {
  @ApiProperty({ description: "the IdP's subject, or admin-token for the static token" }) subject!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['viewer', 'support', 'operator', 'admin'] }) role!: string;
  @ApiProperty({ enum: ['sso', 'admin-token'] }) via!: string;
}

export class AuditEntryResponse {
  @ApiProperty({ example: 'aud_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['auditEntry'] }) object!: 'auditEntry';
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({
    enum: ['request', 'response'],
    description: 'request: recorded before the route acted; response: its answer, naming the request entry',
  })
  phase!: 'request' | 'response';
  @ApiProperty({ type: String, nullable: true }) requestEntryId!: string | null;
  @ApiProperty({ type: AuditActorResponse }) actor!: AuditActorResponse;
  @ApiProperty({ example: 'PATCH /v0.13/admin/projects/:projectId' }) action!: string;
  @ApiProperty({ example: 'projects' }) targetType!: string;
  @ApiProperty({ type: String, nullable: true }) targetId!: string | null;
  @ApiProperty({ type: String, nullable: true }) reason!: string | null;
  @ApiProperty() requestId!: string;
  @ApiProperty({ type: String, nullable: true }) sourceAddress!: string | null;
  @ApiProperty({ ...JSON_VALUE, description: "the request's body, secrets redacted" }) request!: unknown;
  @ApiProperty({ type: Number, nullable: true }) status!: number | null;
  @ApiProperty({ ...JSON_VALUE, description: 'the target before the action, where the route read it' })
  before!: unknown;
  @ApiProperty({ ...JSON_VALUE, description: "the answer's body, secrets redacted" }) after!: unknown;
  @ApiProperty({ description: 'SHA-256 of the previous hash and this entry in canonical JSON (RFC 8785)' })
  hash!: string;
  @ApiProperty() previousHash!: string;
}

export class AuditLogVerificationResponse {
  @ApiProperty({ description: 'whether every entry is as written and in its place' }) valid!: boolean;
  @ApiProperty({ description: 'entries checked before the first that breaks the chain (all of them when valid)' })
  entries!: number;
  @ApiProperty({ type: String, nullable: true }) firstInvalidEntryId!: string | null;
}

function toEntry(row: AuditRow): AuditEntryResponse {
  const { id, ...entry } = auditEntryOf(row);
  return { id, object: 'auditEntry', ...entry, hash: row.hash, previousHash: row.previous_hash };
}

@ApiTags('Operator')
@ApiBearerAuth('bearer')
@Controller('admin/audit-log')
export class AuditLogController {
  constructor(private readonly auditLog: AuditLog) {}

  @AdminRoute('admin')
  @Get()
  @ApiOperation({ summary: 'Every operator action: its request, then its answer; newest first, with filters' })
  @ApiPage(AuditEntryResponse)
  async list(@Query() query: ListAuditLogQuery): Promise<Page<AuditEntryResponse>> {
    const limit = pageLimit(query);
    const rows = await this.auditLog.list(
      {
        actor: query.actor,
        action: query.action,
        targetId: query.targetId,
        createdAfter: query.createdAfter ? new Date(query.createdAfter) : undefined,
      },
      decodeCursor(query.cursor),
      limit,
    );
    const page = toPage(rows, limit, (row) => row.id);
    return { ...page, data: page.data.map(toEntry) };
  }

  @AdminRoute('admin')
  @Get('verify')
  @ApiOperation({
    summary: 'Check the hash chain from the first entry: the first entry edited, deleted or out of place breaks it',
  })
  @ApiOkResponse({ type: AuditLogVerificationResponse })
  verify(): Promise<AuditLogVerificationResponse> {
    return this.auditLog.verify();
  }
}
