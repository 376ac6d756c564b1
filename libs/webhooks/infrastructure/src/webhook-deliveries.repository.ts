// The delivery queue and history (ADR 0018). The fan-out creates a delivery row
// once per (event, endpoint); a partner may ask for more (ADR 0034). The worker
// claims due rows FOR UPDATE SKIP LOCKED and leases them for one attempt, or is
// handed what its own process queued, leased by the insert (ADR 0055; the
// application layer names the rows, DeliveryLease), so a process that dies
// mid-attempt only delays the row until its lease runs out. A lease is the one
// attempt in flight: a retry asked meanwhile waits for it to end (ADR 0059).
// Every query takes the project or the endpoint id.
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import { WebhookEndpointsCache } from './webhook-endpoints.cache';
import { previousKeysColumn, type PreviousSigningKey } from './webhook-signing-keys.repository';

export type DeliveryStatus = 'queued' | 'delivered' | 'failed' | 'skipped';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['queued', 'delivered', 'failed', 'skipped'];

/** The channel a new queued delivery notifies (on commit), so the worker starts at once. */
export const DELIVERIES_CHANNEL = 'mm_webhook_deliveries';

export interface DeliveryRow {
  id: string;
  project_id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  resource_id: string | null;
  test: boolean;
  body: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  attempt: number;
  attempted_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
}

/** A claimed delivery: what one attempt needs. */
export interface ClaimedDelivery {
  id: string;
  project_id: string;
  webhook_id: string;
  /** evt_: sent in the Webhook-Event-Id header. */
  event_id: string;
  /** The resource the event is of; with `test`, whether its sends keep an order (a test send's does not). */
  resource_id: string | null;
  test: boolean;
  body: string;
  /** Attempts since the last retry: the schedule's "attempts so far" (spec: Delivery and verification 3). */
  attempt_count: number;
  /** Attempts made before the last retry: this attempt's number is earlier_attempts + attempt_count + 1. */
  earlier_attempts: number;
  url: string;
  timeout_ms: number;
  notify_threshold_secs: number;
  lease_token: string;
  encryption_key_id: string | null;
  key_sealed: Buffer | null;
  /** Retired keys that still sign beside the current one. */
  previous_keys: PreviousSigningKey[];
  /** The project's time when the claim found it due, read in PostgreSQL: the attempt's attemptedAt. */
  claimed_at: Date;
}

/**
 * The rows of one insert leased from the insert to this process's worker (ADR 0055), which is handed them
 * after the commit without a claim.
 */
export interface DeliveryLease {
  /** The lease's token, one for the insert's rows. */
  token: string;
  /** Delivery id → lease length (ms) of the rows leased; the others are inserted unleased. */
  leases: ReadonlyMap<string, number>;
}

/** One attempt's record and the delivery's next state. */
export interface RecordedAttempt {
  id: string;
  leaseToken: string;
  /** Its number in the delivery's history, which retries do not restart. */
  attempt: number;
  attemptedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  status: DeliveryStatus;
  /** Seconds after the record (project time) before the next attempt; null when none follows. */
  retryAfterSecs: number | null;
}

export interface NewDelivery {
  id: string;
  webhookId: string;
  status: 'queued' | 'skipped';
  body: string;
}

/** What every delivery of one event shares. */
export interface DeliveryCommon {
  projectId: string;
  eventId: string;
  event: string;
  resourceId: string | null;
  test: boolean;
  createdAt: string;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventId?: string;
  test?: boolean;
  createdAfter?: string;
  createdBefore?: string;
}

/** Project time in SQL: the wall clock plus the project's sandbox offset. */
const PROJECT_NOW = (alias: string) =>
  `clock_timestamp() + make_interval(secs => COALESCE(${alias}.offset_ms, 0) / 1000.0)`;

const DELIVERY_COLUMNS =
  'id, project_id, webhook_id, event_id, event, resource_id, test, body, status, attempt_count, next_attempt_at, last_attempt_at, delivered_at, created_at, updated_at';

@Injectable()
export class WebhookDeliveries {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly endpoints: WebhookEndpointsCache,
  ) {}

  /** The endpoints an event of this project fans out to: enabled ones get it queued, suspended ones skipped. */
  async subscribedEndpoints(
    projectId: string,
    event: string,
    allCovers: boolean,
  ): Promise<Array<{ id: string; status: 'enabled' | 'suspended' }>> {
    const endpoints = await this.endpoints.live(projectId);
    return endpoints
      .filter(
        (e) =>
          event === 'webhook.test' || e.subscriptions.includes(event) || (allCovers && e.subscriptions.includes('*')),
      )
      .map((e) => ({ id: e.id, status: e.status }));
  }

  /**
   * One row per endpoint, once: a redelivered event finds its rows and adds none; the rows `lease` names are
   * leased from the insert. Returns the rows inserted now.
   */
  async insert(deliveries: NewDelivery[], common: DeliveryCommon, lease?: DeliveryLease): Promise<DeliveryRow[]> {
    if (deliveries.length === 0) return [];
    return this.uow.query<DeliveryRow>(
      `INSERT INTO webhooks.deliveries (id, project_id, webhook_id, event_id, event, resource_id, test, body, status, next_attempt_at, created_at, updated_at, lease_until, lease_token)
       SELECT d.id, $1, d.webhook_id, $2, $3, $4, $5, d.body, d.status, CASE WHEN d.status = 'queued' THEN $6::timestamptz END, $6, $6,
              clock_timestamp() + make_interval(secs => d.lease_ms / 1000.0), CASE WHEN d.lease_ms IS NOT NULL THEN $12::uuid END
         FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::int[]) AS d (id, webhook_id, body, status, lease_ms)
       ON CONFLICT (webhook_id, event_id) WHERE NOT requested DO NOTHING
       RETURNING ${DELIVERY_COLUMNS}`,
      [
        common.projectId,
        common.eventId,
        common.event,
        common.resourceId,
        common.test,
        common.createdAt,
        deliveries.map((d) => d.id),
        deliveries.map((d) => d.webhookId),
        deliveries.map((d) => d.body),
        deliveries.map((d) => d.status),
        deliveries.map((d) => lease?.leases.get(d.id) ?? null),
        lease?.token ?? null,
      ],
    );
  }

  /**
   * One queued delivery of an event no endpoint has had yet (a test send: its evt_ is new, so no row can
   * be there already), leased from the insert when `lease` names it. Its insert travels with the transaction's
   * next statement or its COMMIT (UnitOfWork.defer), not in a round trip of its own; returns the row as inserted.
   */
  async insertNew(
    delivery: NewDelivery & { status: 'queued' },
    common: DeliveryCommon,
    lease?: DeliveryLease,
  ): Promise<DeliveryRow> {
    const leaseMs = lease?.leases.get(delivery.id) ?? null;
    await this.uow.defer(
      `INSERT INTO webhooks.deliveries (id, project_id, webhook_id, event_id, event, resource_id, test, body, status, next_attempt_at, created_at, updated_at, lease_until, lease_token)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $9, $9, clock_timestamp() + make_interval(secs => $10::int / 1000.0), $11::uuid)`,
      [
        delivery.id,
        common.projectId,
        delivery.webhookId,
        common.eventId,
        common.event,
        common.resourceId,
        common.test,
        delivery.body,
        common.createdAt,
        leaseMs,
        lease?.token ?? null,
      ],
    );
    const at = new Date(common.createdAt);
    const row: DeliveryRow = {
      id: delivery.id,
      project_id: common.projectId,
      webhook_id: delivery.webhookId,
      event_id: common.eventId,
      event: common.event,
      resource_id: common.resourceId,
      test: common.test,
      body: delivery.body,
      status: 'queued',
      attempt_count: 0,
      next_attempt_at: at,
      last_attempt_at: null,
      delivered_at: null,
      created_at: at,
      updated_at: at,
    };
    return row;
  }

  /**
   * Deliveries a partner asked for (POST /webhooks/{id}/deliveries): new rows to one endpoint, queued
   * now, whatever it already received of these events. Returns them, in the order given.
   */
  async insertRequested(
    projectId: string,
    webhookId: string,
    deliveries: Array<{ id: string; eventId: string; event: string; resourceId: string | null; body: string }>,
    createdAt: string,
  ): Promise<DeliveryRow[]> {
    if (deliveries.length === 0) return [];
    const column = <K extends keyof (typeof deliveries)[number]>(key: K) => deliveries.map((d) => d[key]);
    const rows = await this.uow.query<DeliveryRow>(
      `INSERT INTO webhooks.deliveries (id, project_id, webhook_id, event_id, event, resource_id, test, body, status, next_attempt_at, requested, created_at, updated_at)
       SELECT d.id, $1, $2, d.event_id, d.event, d.resource_id, false, d.body, 'queued', $3, true, $3, $3
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS d (id, event_id, event, resource_id, body, n)
        ORDER BY d.n
       RETURNING ${DELIVERY_COLUMNS}`,
      [
        projectId,
        webhookId,
        createdAt,
        column('id'),
        column('eventId'),
        column('event'),
        column('resourceId'),
        column('body'),
      ],
    );
    return deliveries.map((d) => rows.find((r) => r.id === d.id)!);
  }

  /**
   * Leases up to `limit` due deliveries of enabled endpoints for `leaseMs` of wall time each (plus
   * the endpoint's timeout), with what an attempt needs. Rows another process holds are skipped. A retry
   * asked while a lease that then ran out was held (its process died, or gave the delivery back unattempted)
   * is this attempt: the attempt count starts again with it.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.uow.query<ClaimedDelivery>(
      `WITH due AS (
         SELECT d.id, e.timeout_ms, ${PROJECT_NOW('c')} AS project_now FROM webhooks.deliveries d
           JOIN webhooks.endpoints e ON e.id = d.webhook_id
           LEFT JOIN platform.sandbox_clocks c ON c.project_id = d.project_id
          WHERE d.status = 'queued' AND e.status = 'enabled' AND e.deleted_at IS NULL
            AND d.next_attempt_at <= ${PROJECT_NOW('c')}
            AND (d.lease_until IS NULL OR d.lease_until < clock_timestamp())
          ORDER BY d.next_attempt_at, d.id
          LIMIT $1
          FOR UPDATE OF d SKIP LOCKED)
       UPDATE webhooks.deliveries d
          SET lease_until = clock_timestamp() + make_interval(secs => (due.timeout_ms + $2) / 1000.0), lease_token = $3::uuid,
              attempt_count = CASE WHEN d.retry_requested THEN 0 ELSE d.attempt_count END,
              earlier_attempts = CASE WHEN d.retry_requested THEN d.earlier_attempts + d.attempt_count ELSE d.earlier_attempts END,
              retry_requested = false
         FROM due, webhooks.endpoints e
         LEFT JOIN webhooks.signing_keys k ON k.webhook_id = e.id AND k.retired_at IS NULL
        WHERE d.id = due.id AND e.id = d.webhook_id
       RETURNING d.id, d.project_id, d.webhook_id, d.event_id, d.resource_id, d.test, d.body, d.attempt_count, d.earlier_attempts, e.url, e.timeout_ms, e.notify_threshold_secs,
                 d.lease_token::text AS lease_token, k.encryption_key_id, k.key_sealed, due.project_now AS claimed_at,
                 ${previousKeysColumn('due.project_now')}`,
      [limit, leaseMs, randomUUID()],
    );
  }

  /**
   * Lengthens a delivery's lease to `leaseMs` from now, while it is still this lease's (no claim has taken it
   * since): false when another lease holds it. For a delivery that waited for its turn so long that its lease
   * might not cover a whole attempt.
   */
  async renewLease(id: string, leaseToken: string, leaseMs: number): Promise<boolean> {
    const rows = await this.uow.query(
      `UPDATE webhooks.deliveries SET lease_until = clock_timestamp() + make_interval(secs => $3::float8 / 1000.0)
        WHERE id = $1 AND lease_token = $2::uuid RETURNING id`,
      [id, leaseToken, leaseMs],
    );
    return rows.length > 0;
  }

  /** Gives back a claimed delivery unattempted, while the lease is still this claim's: it is due again at once. */
  async release(id: string, leaseToken: string): Promise<void> {
    await this.uow.query(
      `UPDATE webhooks.deliveries SET lease_until = NULL, lease_token = NULL WHERE id = $1 AND lease_token = $2::uuid`,
      [id, leaseToken],
    );
  }

  /**
   * Several attempts at once (the worker records them in batches): every attempt's record, and
   * each delivery's new state only while its lease is still that attempt's. A delivery retried while the
   * attempt was in flight is queued again instead, due at once, its attempt count started again (ADR 0059).
   * Returns the ids updated, and among them those queued again for a retry.
   */
  async recordAttempts(attempts: RecordedAttempt[]): Promise<{ updated: Set<string>; retried: Set<string> }> {
    if (attempts.length === 0) return { updated: new Set(), retried: new Set() };
    const column = <K extends keyof RecordedAttempt>(key: K) => attempts.map((a) => a[key]);
    // Nobody waits on the record: it travels with the update below.
    await this.uow.defer(
      `INSERT INTO webhooks.delivery_attempts (delivery_id, attempt, attempted_at, duration_ms, status_code, error, response_body)
       SELECT * FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[])`,
      [
        column('id'),
        column('attempt'),
        column('attemptedAt'),
        column('durationMs'),
        column('statusCode'),
        column('error'),
        column('responseBody'),
      ],
    );
    // The record's time and the next attempt's are read here, in PostgreSQL, on the project's clock as
    // it stands now: never a process's copy of it, which may not have heard the latest advance.
    const updated = await this.uow.query<{ id: string; retried: boolean }>(
      `WITH v AS (
         SELECT v.*, ${PROJECT_NOW('c')} AS at
           FROM unnest($1::text[], $2::uuid[], $3::text[], $4::float8[], $5::timestamptz[]) AS v (id, lease_token, status, retry_after_secs, attempted_at)
           JOIN webhooks.deliveries d0 ON d0.id = v.id
           LEFT JOIN platform.sandbox_clocks c ON c.project_id = d0.project_id)
       UPDATE webhooks.deliveries d
          SET status = CASE WHEN d.retry_requested THEN 'queued' ELSE v.status END,
              attempt_count = CASE WHEN d.retry_requested THEN 0 ELSE d.attempt_count + 1 END,
              earlier_attempts = CASE WHEN d.retry_requested THEN d.earlier_attempts + d.attempt_count + 1 ELSE d.earlier_attempts END,
              next_attempt_at = CASE WHEN d.retry_requested THEN v.at ELSE v.at + make_interval(secs => v.retry_after_secs) END,
              retry_requested = false, lease_until = NULL, lease_token = NULL,
              last_attempt_at = v.attempted_at, delivered_at = CASE WHEN v.status = 'delivered' THEN v.at ELSE d.delivered_at END, updated_at = v.at
         FROM v
        WHERE d.id = v.id AND d.lease_token = v.lease_token
       RETURNING d.id, d.status = 'queued' AND d.attempt_count = 0 AS retried`,
      [column('id'), column('leaseToken'), column('status'), column('retryAfterSecs'), column('attemptedAt')],
    );
    return {
      updated: new Set(updated.map((r) => r.id)),
      retried: new Set(updated.filter((r) => r.retried).map((r) => r.id)),
    };
  }

  /**
   * Requeues now, with the attempt count reset; returns the ids requeued. A delivery with an attempt in flight
   * (leased, by any process's worker: claimed, or handed over by its insert) keeps its lease, and so its one
   * attempt at a time: it is marked, and queued again, due at once, when that attempt is recorded (ADR 0059).
   * Its attempts are numbered on: the count of those before the retry is kept beside the count that restarts.
   */
  async requeue(
    webhookId: string,
    selection: { ids: string[] } | { status: DeliveryStatus; createdAfter?: string; createdBefore?: string },
    at: string,
    retentionDays: number,
  ): Promise<string[]> {
    const byIds = 'ids' in selection;
    // In flight: a lease that has not run out, by the test a claim makes (a lease that ran out is claimable); the
    // wall clock read once for the row.
    const inFlight = `COALESCE(d.lease_until >= w.now, false)`;
    const rows = await this.uow.query<{ id: string }>(
      `UPDATE webhooks.deliveries d
          SET status = 'queued', retry_requested = ${inFlight},
              attempt_count = CASE WHEN ${inFlight} THEN d.attempt_count ELSE 0 END,
              earlier_attempts = CASE WHEN ${inFlight} THEN d.earlier_attempts ELSE d.earlier_attempts + d.attempt_count END,
              next_attempt_at = CASE WHEN ${inFlight} THEN d.next_attempt_at ELSE $2 END,
              lease_until = CASE WHEN ${inFlight} THEN d.lease_until END, lease_token = CASE WHEN ${inFlight} THEN d.lease_token END,
              updated_at = $2
         FROM (SELECT clock_timestamp() AS now) w
        WHERE d.webhook_id = $1 AND d.created_at >= $2::timestamptz - make_interval(days => $3)
          AND ${byIds ? 'd.id = ANY($4::text[])' : `d.status = $4 AND ($5::timestamptz IS NULL OR d.created_at >= $5) AND ($6::timestamptz IS NULL OR d.created_at < $6)`}
        RETURNING d.id`,
      byIds
        ? [webhookId, at, retentionDays, selection.ids]
        : [
            webhookId,
            at,
            retentionDays,
            selection.status,
            selection.createdAfter ?? null,
            selection.createdBefore ?? null,
          ],
    );
    return rows.map((r) => r.id);
  }

  /** Newest first; only what the retention window keeps. */
  async list(
    webhookId: string,
    filter: DeliveryFilter,
    before: string | undefined,
    limit: number,
    notBefore: string,
  ): Promise<DeliveryRow[]> {
    return this.uow.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhooks.deliveries
        WHERE webhook_id = $1 AND created_at >= $2
          AND ($3::text IS NULL OR id < $3)
          AND ($4::text IS NULL OR status = $4)
          AND ($5::text IS NULL OR event_id = $5)
          AND ($6::boolean IS NULL OR test = $6)
          AND ($7::timestamptz IS NULL OR created_at >= $7)
          AND ($8::timestamptz IS NULL OR created_at < $8)
        ORDER BY id DESC LIMIT $9`,
      [
        webhookId,
        notBefore,
        before ?? null,
        filter.status ?? null,
        filter.eventId ?? null,
        filter.test ?? null,
        filter.createdAfter ?? null,
        filter.createdBefore ?? null,
        limit + 1,
      ],
    );
  }

  /**
   * A delivery and its attempts, read in one statement: one snapshot, so the attempt count and the attempts listed
   * always agree (an attempt's record and the count's update commit together, and two reads could straddle them).
   */
  async detail(
    webhookId: string,
    id: string,
    notBefore: string,
  ): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] } | undefined> {
    const [row] = await this.uow.query<DeliveryRow & { attempts: Array<AttemptRow & { attempted_at: string }> }>(
      `SELECT ${DELIVERY_COLUMNS},
              (SELECT coalesce(json_agg(json_build_object('attempt', a.attempt, 'attempted_at', a.attempted_at,
                        'duration_ms', a.duration_ms, 'status_code', a.status_code, 'error', a.error,
                        'response_body', a.response_body) ORDER BY a.id), '[]')
                 FROM webhooks.delivery_attempts a WHERE a.delivery_id = d.id) AS attempts
         FROM webhooks.deliveries d WHERE d.webhook_id = $1 AND d.id = $2 AND d.created_at >= $3`,
      [webhookId, id, notBefore],
    );
    if (!row) return undefined;
    const { attempts, ...delivery } = row;
    // JSON carries the time as text.
    return { delivery, attempts: attempts.map((a) => ({ ...a, attempted_at: new Date(a.attempted_at) })) };
  }

  /** Deletes the history older than the retention window, on each project's clock; returns how many went. */
  async purge(retentionDays: number, batch = 1000): Promise<number> {
    const rows = await this.uow.query(
      `DELETE FROM webhooks.deliveries WHERE id IN (
         SELECT d.id FROM webhooks.deliveries d LEFT JOIN platform.sandbox_clocks c ON c.project_id = d.project_id
          WHERE d.created_at < ${PROJECT_NOW('c')} - make_interval(days => $1) AND d.status <> 'queued'
          LIMIT $2)
       RETURNING id`,
      [retentionDays, batch],
    );
    return rows.length;
  }

  // --- endpoint health (spec: Delivery and verification 4) ---

  /** A failed attempt: starts a down episode unless one is running; returns its start. */
  async markFailure(webhookId: string, at: string): Promise<{ downSince: Date; started: boolean }> {
    const [row] = await this.uow.query<{ down_since: Date }>(
      `INSERT INTO webhooks.endpoint_health (webhook_id, down_since, last_failure_at) VALUES ($1, $2, $2)
       ON CONFLICT (webhook_id) DO UPDATE SET last_failure_at = $2, down_since = COALESCE(webhooks.endpoint_health.down_since, $2)
       RETURNING down_since`,
      [webhookId, at],
    );
    const downSince = new Date(row.down_since);
    return { downSince, started: downSince.getTime() === new Date(at).getTime() };
  }

  /** Successes (endpoint → time of its last one) end down episodes; returns the endpoints that were down (a healthy endpoint's row is not written). */
  async markSuccesses(lastSuccess: Map<string, string>): Promise<string[]> {
    if (lastSuccess.size === 0) return [];
    const rows = await this.uow.query<{ webhook_id: string }>(
      `UPDATE webhooks.endpoint_health h SET last_success_at = v.at, down_since = NULL, notified_at = NULL
         FROM unnest($1::text[], $2::timestamptz[]) AS v (webhook_id, at)
        WHERE h.webhook_id = v.webhook_id AND h.down_since IS NOT NULL
       RETURNING h.webhook_id`,
      [[...lastSuccess.keys()], [...lastSuccess.values()]],
    );
    return rows.map((r) => r.webhook_id);
  }

  async downSince(webhookId: string): Promise<Date | undefined> {
    const [row] = await this.uow.query<{ down_since: Date | null }>(
      `SELECT down_since FROM webhooks.endpoint_health WHERE webhook_id = $1`,
      [webhookId],
    );
    return row?.down_since ? new Date(row.down_since) : undefined;
  }

  /** Noted at the project's time in PostgreSQL. */
  async markNotified(projectId: string, webhookId: string): Promise<void> {
    await this.uow.query(
      `UPDATE webhooks.endpoint_health SET notified_at = ${PROJECT_NOW('c')} FROM (SELECT $1::text AS project_id) p LEFT JOIN platform.sandbox_clocks c ON c.project_id = p.project_id WHERE webhook_id = $2`,
      [projectId, webhookId],
    );
  }

  /** `enable` resets the down clock. */
  async resetHealth(webhookId: string): Promise<void> {
    await this.uow.query(
      `UPDATE webhooks.endpoint_health SET down_since = NULL, notified_at = NULL WHERE webhook_id = $1`,
      [webhookId],
    );
  }
}
