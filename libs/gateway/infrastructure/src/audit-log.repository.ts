// The operators' audit log (docs/operators.md, Audit log): append-only, each entry chained to the one before it by
// a SHA-256 over the previous entry's hash and the entry's own fields in RFC 8785 canonical JSON, so that an
// entry edited or deleted in the database breaks the chain at that entry. One writer at a time (an advisory
// lock held to the end of the append's transaction), so two appends never chain to the same entry.
import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import canonicalize from 'canonicalize';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { AuditEntryInput } from '@mm/contracts';
import { UnitOfWork } from '@mm/platform/database';
import { newId } from '@mm/platform/ids';

/** The chain's first link: what the first entry's previous hash is. */
const GENESIS = '0'.repeat(64);
/** The advisory lock that makes appends one at a time (an arbitrary constant of this table's own). */
const APPEND_LOCK = 0x6d6d6175;
/** Entries hashed per round trip while verifying. */
const VERIFY_PAGE = 500;

export interface AuditRow {
  seq: string;
  id: string;
  created_at: Date;
  phase: 'request' | 'response';
  request_entry_id: string | null;
  actor_subject: string;
  actor_name: string;
  actor_role: string;
  actor_via: string;
  action: string;
  target_type: string;
  target_id: string | null;
  reason: string | null;
  request_id: string;
  source_address: string | null;
  request: unknown;
  status: number | null;
  before: unknown;
  after: unknown;
  previous_hash: string;
  hash: string;
}

export interface AuditFilters {
  actor?: string;
  action?: string;
  targetId?: string;
  createdAfter?: Date;
}

/** An entry as operators read it and as its hash covers it: every field but its position and the hashes. */
export function auditEntryOf(row: Omit<AuditRow, 'seq' | 'hash' | 'previous_hash'>) {
  return {
    id: row.id,
    createdAt: new Date(row.created_at).toISOString(),
    phase: row.phase,
    requestEntryId: row.request_entry_id,
    actor: { subject: row.actor_subject, name: row.actor_name, role: row.actor_role, via: row.actor_via },
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    reason: row.reason,
    requestId: row.request_id,
    sourceAddress: row.source_address,
    request: row.request ?? null,
    status: row.status,
    before: row.before ?? null,
    after: row.after ?? null,
  };
}

/** The entry's hash: over the previous entry's hash, then the entry in canonical JSON. */
function hashOf(row: Omit<AuditRow, 'seq' | 'hash'>): string {
  return createHash('sha256')
    .update(row.previous_hash)
    .update(canonicalize(auditEntryOf(row)) ?? '')
    .digest('hex');
}

/** A value as PostgreSQL's jsonb gives it back (key order aside, which canonical JSON ignores). */
function asStored(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

@Injectable()
export class AuditLog {
  constructor(private readonly uow: UnitOfWork) {}

  /** Appends the entry after the last one, in a transaction of its own; answers its id. */
  append(entry: AuditEntryInput, at: Date): Promise<{ id: string }> {
    return this.uow.runDetached(async () => {
      await this.uow.query(`SELECT pg_advisory_xact_lock($1)`, [APPEND_LOCK]);
      const [last] = await this.uow.query<{ hash: string }>(
        `SELECT hash FROM gateway.audit_log ORDER BY seq DESC LIMIT 1`,
      );
      const row: Omit<AuditRow, 'seq' | 'hash'> = {
        id: newId('auditEntry'),
        created_at: at,
        phase: entry.phase,
        request_entry_id: entry.requestEntryId ?? null,
        actor_subject: entry.actor.subject,
        actor_name: entry.actor.name,
        actor_role: entry.actor.role,
        actor_via: entry.actor.via,
        action: entry.action,
        target_type: entry.targetType,
        target_id: entry.targetId,
        reason: entry.reason,
        request_id: entry.requestId,
        source_address: entry.sourceAddress,
        request: asStored(entry.request),
        status: entry.status,
        before: asStored(entry.before),
        after: asStored(entry.after),
        previous_hash: last?.hash ?? GENESIS,
      };
      await this.uow.query(
        `INSERT INTO gateway.audit_log (id, created_at, phase, request_entry_id, actor_subject, actor_name, actor_role,
           actor_via, action, target_type, target_id, reason, request_id, source_address, request, status, before,
           after, previous_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
        [
          row.id,
          row.created_at,
          row.phase,
          row.request_entry_id,
          row.actor_subject,
          row.actor_name,
          row.actor_role,
          row.actor_via,
          row.action,
          row.target_type,
          row.target_id,
          row.reason,
          row.request_id,
          row.source_address,
          JSON.stringify(row.request),
          row.status,
          JSON.stringify(row.before),
          JSON.stringify(row.after),
          row.previous_hash,
          hashOf(row),
        ],
      );
      return { id: row.id };
    });
  }

  /** Newest first, after the cursor's entry (the last one of the page before), narrowed by the filters. */
  list(filters: AuditFilters, beforeId: string | undefined, limit: number): Promise<AuditRow[]> {
    return this.uow.query<AuditRow>(
      `SELECT * FROM gateway.audit_log
        WHERE ($1::text IS NULL OR seq < (SELECT seq FROM gateway.audit_log WHERE id = $1))
          AND ($2::text IS NULL OR actor_subject = $2)
          AND ($3::text IS NULL OR action = $3)
          AND ($4::text IS NULL OR target_id = $4)
          AND ($5::timestamptz IS NULL OR created_at > $5)
        ORDER BY seq DESC LIMIT $6`,
      [
        beforeId ?? null,
        filters.actor ?? null,
        filters.action ?? null,
        filters.targetId ?? null,
        filters.createdAfter ?? null,
        limit + 1,
      ],
    );
  }

  /**
   * Walks the chain from its first entry: each entry's previous hash must be the hash of the entry before it,
   * and its hash what its fields hash to. The first entry that breaks either is where the log was changed.
   */
  async verify(): Promise<{ valid: boolean; entries: number; firstInvalidEntryId: string | null }> {
    let previous = GENESIS;
    let entries = 0;
    let after = '0';
    for (;;) {
      const rows = await this.uow.query<AuditRow>(
        `SELECT * FROM gateway.audit_log WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [after, VERIFY_PAGE],
      );
      for (const row of rows) {
        if (row.previous_hash !== previous || hashOf(row) !== row.hash)
          return { valid: false, entries, firstInvalidEntryId: row.id };
        previous = row.hash;
        entries++;
      }
      if (rows.length < VERIFY_PAGE) return { valid: true, entries, firstInvalidEntryId: null };
      after = rows[rows.length - 1].seq;
    }
  }
}

/** The audit log's table: the gateway writes it, nothing updates or deletes it. */
export class GatewayAuditLog1700000001900 implements MigrationInterface {
  name = 'GatewayAuditLog1700000001900';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE gateway.audit_log (
        seq              bigserial   PRIMARY KEY,
        id               text        NOT NULL UNIQUE,
        created_at       timestamptz NOT NULL,
        phase            text        NOT NULL CHECK (phase IN ('request', 'response')),
        request_entry_id text,
        actor_subject    text        NOT NULL,
        actor_name       text        NOT NULL,
        actor_role       text        NOT NULL,
        actor_via        text        NOT NULL,
        action           text        NOT NULL,
        target_type      text        NOT NULL,
        target_id        text,
        reason           text,
        request_id       text        NOT NULL,
        source_address   text,
        request          jsonb       NOT NULL,
        status           integer,
        before           jsonb       NOT NULL,
        after            jsonb       NOT NULL,
        previous_hash    text        NOT NULL,
        hash             text        NOT NULL
      )`);
    await runner.query(`CREATE INDEX audit_log_actor_idx ON gateway.audit_log (actor_subject, seq DESC)`);
    await runner.query(`CREATE INDEX audit_log_target_idx ON gateway.audit_log (target_id, seq DESC)`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE gateway.audit_log`);
  }
}
