// The request log for partners (docs/request-logs.md): every API request of the token's project, newest first,
// with its masked bodies, filtered by status, method, path and request id. A key with every scope reads it (it
// shows every resource's bodies, so no restricted key does); operators' requests are not in it.
import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { ApiError } from '@mm/contracts';
import { RequestLogs, type RequestLogFilters, type RequestLogRow } from '@mm/gateway/infrastructure';
import {
  API_BASE_PATH,
  ApiPage,
  decodeCursor,
  JSON_VALUE,
  ListQuery,
  pageLimit,
  ProjectId,
  toPage,
  type Page,
} from '@mm/platform/http';
import { idPattern, isId } from '@mm/platform/ids';

const METHODS = /^(GET|POST|PATCH|PUT|DELETE|HEAD|OPTIONS)$/;

export class ListRequestLogsQuery extends ListQuery {
  @ApiPropertyOptional({ description: 'one status code (`404`) or a class of them (`4xx`)', example: '4xx' })
  @IsOptional()
  @IsString()
  @Matches(/^[1-5](\d\d|xx)$/, { message: 'status must be a status code (404) or a class of them (4xx)' })
  status?: string;

  @ApiPropertyOptional({ description: 'the HTTP method, any case', example: 'POST' })
  @IsOptional()
  @IsString()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @Matches(METHODS, { message: 'method must be one of GET, POST, PATCH, PUT, DELETE, HEAD, OPTIONS' })
  method?: string;

  @ApiPropertyOptional({
    description: `a path and everything under it, with or without /${API_BASE_PATH}: \`/transactions\` finds the list and each transaction`,
    example: '/transactions',
  })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  @Matches(/^\/\S*$/, { message: 'path must start with / and hold no spaces' })
  path?: string;

  @ApiPropertyOptional({ description: "a request's X-Request-Id" })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  requestId?: string;
}

export class RequestLogResponse {
  @ApiProperty({ pattern: idPattern('requestLog'), example: 'rlog_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ example: 'POST' }) method!: string;
  @ApiProperty({ example: `/${API_BASE_PATH}/customers` }) path!: string;
  @ApiProperty({ example: 201 }) status!: number;
  @ApiProperty({ description: 'the X-Request-Id the response carried' }) requestId!: string;
  @ApiProperty({ type: String, nullable: true }) idempotencyKey!: string | null;
  @ApiProperty({ description: 'from the request received to the response sent, in milliseconds' })
  durationMs!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ ...JSON_VALUE, description: 'the JSON body sent, masked (docs/request-logs.md); null when none' })
  requestBody!: unknown;
  @ApiProperty({ ...JSON_VALUE, description: 'the JSON body answered, masked; null when none' })
  responseBody!: unknown;
}

function toRequestLog(row: RequestLogRow): RequestLogResponse {
  return {
    id: row.id,
    method: row.method,
    path: row.path,
    status: row.status,
    requestId: row.request_id,
    idempotencyKey: row.idempotency_key,
    durationMs: Number(row.duration_ms),
    createdAt: new Date(row.created_at).toISOString(),
    requestBody: row.request_body,
    responseBody: row.response_body,
  };
}

function filtersOf(query: ListRequestLogsQuery): RequestLogFilters {
  const status = query.status;
  const path = query.path?.replace(/(.)\/+$/, '$1');
  return {
    status:
      status === undefined
        ? undefined
        : status.endsWith('xx')
          ? { from: Number(status[0]) * 100, to: Number(status[0]) * 100 + 99 }
          : { from: Number(status), to: Number(status) },
    method: query.method,
    path: path === undefined || path.startsWith(`/${API_BASE_PATH}/`) ? path : `/${API_BASE_PATH}${path}`,
    requestId: query.requestId,
  };
}

@ApiTags('Request logs')
@ApiBearerAuth('bearer')
@Controller('request-logs')
export class RequestLogsController {
  constructor(private readonly logs: RequestLogs) {}

  @Get()
  @ApiOperation({ summary: "The project's API requests, newest first, with their masked bodies" })
  @ApiPage(RequestLogResponse)
  async list(@ProjectId() projectId: string, @Query() query: ListRequestLogsQuery): Promise<Page<RequestLogResponse>> {
    const limit = pageLimit(query);
    const rows = await this.logs.list(projectId, filtersOf(query), decodeCursor(query.cursor), limit);
    const page = toPage(rows, limit, (row) => row.id);
    return { ...page, data: page.data.map(toRequestLog) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One API request of the project' })
  @ApiOkResponse({ type: RequestLogResponse })
  async get(@ProjectId() projectId: string, @Param('id') id: string): Promise<RequestLogResponse> {
    const row = isId('requestLog', id) ? await this.logs.get(projectId, id) : undefined;
    if (!row) throw new ApiError('RequestLogNotFound', 'no such request log entry in this project');
    return toRequestLog(row);
  }
}
