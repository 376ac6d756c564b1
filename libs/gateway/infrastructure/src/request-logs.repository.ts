// The request log (docs/request-logs.md): one row per partner API request, written in batches after the responses
// went out, read newest first by the project's partners, and purged past its retention. Bodies are stored as the
// recorder masked them; nothing here sees a header.
import { Injectable } from '@nestjs/common';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { UnitOfWork } from '@mm/platform/database';

export interface RequestLogRow {
  id: string;
  project_id: string;
  api_key: string | null;
  method: string;
  path: string;
  status: number;
  request_id: string;
  idempotency_key: string | null;
  duration_ms: number;
  created_at: Date;
  request_body: unknown;
  response_body: unknown;
}

export type NewRequestLog = Omit<RequestLogRow, 'created_at'> & { created_at: string };

export interface RequestLogFilters {
  /** One status code, or a class of them (400 to 499 for `4xx`). */
  status?: { from: number; to: number };
  method?: string;
  /** The path itself or any path under it. */
  path?: string;
  requestId?: string;
}

const COLUMNS = [
  'id',
  'project_id',
  'api_key',
  'method',
  'path',
  'status',
  'request_id',
  'idempotency_key',
  'duration_ms',
  'created_at',
  'request_body',
  'response_body',
] as const;
const TYPES = [
  'text',
  'text',
  'text',
  'text',
  'text',
  'int',
  'text',
  'text',
  'numeric',
  'timestamptz',
  'jsonb',
  'jsonb',
];

@Injectable()
export class RequestLogs {
  constructor(private readonly uow: UnitOfWork) {}

  /** Many entries in one statement (one array per column), as the recorder batches them. */
  async insert(entries: NewRequestLog[]): Promise<void> {
    if (entries.length === 0) return;
    const columns = COLUMNS.map((column) =>
      entries.map((entry) => {
        const value = entry[column];
        return column.endsWith('_body') ? (value === null ? null : JSON.stringify(value)) : value;
      }),
    );
    await this.uow.query(
      `INSERT INTO gateway.request_logs (${COLUMNS.join(', ')})
       SELECT * FROM unnest(${TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
       ON CONFLICT (id) DO NOTHING`,
      columns,
    );
  }

  /** Newest first, after the entry the cursor names, with at most one row more than the limit. */
  async list(
    projectId: string,
    filters: RequestLogFilters,
    after: string | undefined,
    limit: number,
  ): Promise<RequestLogRow[]> {
    return this.uow.query<RequestLogRow>(
      `SELECT * FROM gateway.request_logs
       WHERE project_id = $1
         AND ($2::int IS NULL OR status BETWEEN $2 AND $3)
         AND ($4::text IS NULL OR method = $4)
         AND ($5::text IS NULL OR path = $5 OR starts_with(path, $5 || '/'))
         AND ($6::text IS NULL OR request_id = $6)
         AND ($7::text IS NULL OR (created_at, id) <
               (SELECT created_at, id FROM gateway.request_logs WHERE id = $7 AND project_id = $1))
       ORDER BY created_at DESC, id DESC LIMIT $8`,
      [
        projectId,
        filters.status?.from ?? null,
        filters.status?.to ?? null,
        filters.method ?? null,
        filters.path ?? null,
        filters.requestId ?? null,
        after ?? null,
        limit + 1,
      ],
    );
  }

  async get(projectId: string, id: string): Promise<RequestLogRow | undefined> {
    const [row] = await this.uow.query<RequestLogRow>(
      `SELECT * FROM gateway.request_logs WHERE id = $1 AND project_id = $2`,
      [id, projectId],
    );
    return row;
  }

  /** Up to a batch of the entries made before this time are deleted; how many. */
  async purge(before: Date, batch = 5000): Promise<number> {
    const [{ count }] = await this.uow.query<{ count: number }>(
      `WITH purged AS (
         DELETE FROM gateway.request_logs
         WHERE id IN (SELECT id FROM gateway.request_logs WHERE created_at < $1 LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS count FROM purged`,
      [before.toISOString(), batch],
    );
    return count;
  }
}

/** The request log's table: read by project, newest first, and by request id. */
export class GatewayRequestLogs1700000001970 implements MigrationInterface {
  name = 'GatewayRequestLogs1700000001970';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.request_logs (
        id              text        PRIMARY KEY,
        project_id      text        NOT NULL,
        api_key         text,
        method          text        NOT NULL,
        path            text        NOT NULL,
        status          int         NOT NULL,
        request_id      text        NOT NULL,
        idempotency_key text,
        duration_ms     numeric     NOT NULL,
        created_at      timestamptz NOT NULL,
        request_body    jsonb,
        response_body   jsonb
      )`);
    await runner.query(
      `CREATE INDEX request_logs_by_project ON gateway.request_logs (project_id, created_at DESC, id DESC)`,
    );
    await runner.query(`CREATE INDEX request_logs_by_request_id ON gateway.request_logs (project_id, request_id)`);
    await runner.query(`CREATE INDEX request_logs_by_age ON gateway.request_logs (created_at)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.request_logs`);
  }
}
