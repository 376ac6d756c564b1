// Cursor lists (API-CONTRACT: Common shapes): {data, hasMore, nextCursor},
// query `limit` (1-100, default 20) and `cursor`; newest first. Ids are
// time-ordered TypeIDs, so "newer than" is "greater id" and the cursor is the
// last id returned, wrapped so clients treat it as opaque.
import { applyDecorators, type Type as ClassType } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { ApiError } from '@mm/contracts';

export class ListQuery {
  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100)
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional() @IsString() @MaxLength(200)
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

export function encodeCursor(lastId: string): string {
  return Buffer.from(JSON.stringify({ before: lastId })).toString('base64url');
}

/** The id to continue before, or undefined for the first page. */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof parsed.before === 'string' && /^[a-z]+_[0-9a-z-]{26,36}$/.test(parsed.before)) return parsed.before;
  } catch {
    // fall through
  }
  throw new ApiError('InvalidCursor', 'cursor must be a nextCursor value returned by this list');
}

export function pageLimit(query: ListQuery): number {
  return query.limit ?? 20;
}

/** rows were fetched with LIMIT limit + 1: the extra row only says there is more. */
export function toPage<T>(rows: T[], limit: number, idOf: (row: T) => string): Page<T> {
  const data = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { data, hasMore, nextCursor: hasMore && data.length > 0 ? encodeCursor(idOf(data[data.length - 1])) : null };
}

/** OpenAPI: a 200 list of Model, {data, hasMore, nextCursor}. */
export function ApiPage(model: ClassType<unknown>) {
  return applyDecorators(
    ApiExtraModels(model),
    ApiOkResponse({
      schema: {
        type: 'object',
        required: ['data', 'hasMore', 'nextCursor'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(model) } },
          hasMore: { type: 'boolean' },
          nextCursor: { oneOf: [{ type: 'string' }, { type: 'null' }], description: 'pass as cursor for the next page' },
        },
      },
    }),
  );
}
