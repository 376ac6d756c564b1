// Cursor lists (API-CONTRACT: Common shapes): {data, hasMore, nextCursor},
// query `limit` (1-100, default 20) and `cursor`; newest first. Ids are
// time-ordered TypeIDs, so "newer than" is "greater id" and the cursor is the
// last id returned, wrapped so clients treat it as opaque.
import { applyDecorators, type Type as ClassType } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsOptional, IsString, MaxLength, registerDecorator } from 'class-validator';
import { ApiError } from '@mm/contracts';

export const MAX_PAGE_LIMIT = 100;
/** A page size as a query string writes it: base-10 digits, no sign, exponent, point, spaces or leading zero. */
const PLAIN_LIMIT = /^[1-9][0-9]{0,2}$/;

/**
 * `limit` (issue 42, item 9): a plain base-10 integer from 1 to 100, or one message. Number() would read
 * "1e2", "0x10", " 5", "5.0" and "+5" as numbers; a query parameter that is not written as the API writes
 * numbers is a mistake to report, not a value to guess at.
 */
function IsPageLimit() {
  return applyDecorators(
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && PLAIN_LIMIT.test(value) ? Number(value) : value,
    ),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: 'isPageLimit',
        target: target.constructor,
        propertyName: propertyName as string,
        options: {
          message: `must be a whole number from 1 to ${MAX_PAGE_LIMIT} in plain digits (no sign, exponent, decimal point, spaces or leading zero)`,
        },
        validator: {
          validate: (value: unknown) =>
            Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_PAGE_LIMIT,
        },
      }),
  );
}

export class ListQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
    default: 20,
    description: 'the page size, in plain digits',
  })
  @IsOptional()
  @IsPageLimit()
  limit?: number;

  @ApiPropertyOptional({ description: 'nextCursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
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

/** The id to continue before, or undefined for the first page; `pattern`: what an id of the list looks like. */
export function decodeCursor(cursor: string | undefined, pattern = /^[a-z]+_[0-9a-z-]{26,36}$/): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { before?: unknown };
    if (typeof parsed.before === 'string' && pattern.test(parsed.before)) return parsed.before;
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
          nextCursor: {
            oneOf: [{ type: 'string' }, { type: 'null' }],
            description: 'pass as cursor for the next page',
          },
        },
      },
    }),
  );
}
