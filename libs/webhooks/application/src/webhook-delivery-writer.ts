// How a delivery this process queues reaches a worker (ADR 0053, ADR 0055). While
// this process's worker has room, the deliveries a transaction queues are leased
// to it by their insert and, once the transaction has committed, offered to it
// through the local queue, so that no claim has to find them. The others wait in
// the table, and after the commit this process's worker is woken in memory to
// claim them, or, when this process runs none, every process's by a NOTIFY: any
// worker may claim any due delivery, and the others' polls find what a busy one
// leaves. A NOTIFY cost PostgreSQL a second commit a test send, under the queue's
// lock, and a wake-up of the listening backend: about a tenth of its time an event
// in a burst (ADR 0053). Nothing is offered or woken for a transaction that rolls
// back; none of this adds a statement to the transaction.
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '@mm/platform/database';
import {
  DELIVERIES_CHANNEL,
  WebhookDeliveries,
  WebhookEndpointsCache,
  type ClaimedDelivery,
  type DeliveryCommon,
  type DeliveryLease,
  type DeliveryRow,
  type DeliveryStatus,
  type LiveEndpoint,
  type NewDelivery,
} from '@mm/webhooks/infrastructure';
import { LEASE_MARGIN_MS, LocalDeliveryQueue, type LocalDeliveryConsumer } from './local-delivery-queue';

/** The deliveries of one insert leased to this process's worker. */
interface HandOff extends DeliveryLease {
  leases: Map<string, number>;
  worker: LocalDeliveryConsumer;
  /** performance.now() before the insert: the leases run from a moment after it. */
  since: number;
  endpoints: Map<string, LiveEndpoint>;
}

export type RequeueSelection =
  { ids: string[] } | { status: DeliveryStatus; createdAfter?: string; createdBefore?: string };

@Injectable()
export class WebhookDeliveryWriter {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly deliveries: WebhookDeliveries,
    private readonly endpoints: WebhookEndpointsCache,
    private readonly queue: LocalDeliveryQueue,
  ) {}

  /**
   * The deliveries of one event, one row per endpoint, once: a redelivered event finds its rows and adds none.
   * Once the transaction has committed, the queued rows leased to this process's worker are offered to it, and a
   * worker is woken or notified for any other queued row (once a transaction, however many rows). Returns the
   * rows inserted now.
   */
  async insert(deliveries: NewDelivery[], common: DeliveryCommon): Promise<DeliveryRow[]> {
    if (deliveries.length === 0) return [];
    const handOff = await this.handOff(common.projectId, deliveries);
    const rows = await this.deliveries.insert(deliveries, common, handOff);
    // A repeat inserts nothing: only the rows inserted now are handed over (a row already there is someone else's).
    const handed = handOff ? rows.filter((row) => handOff.leases.has(row.id)) : [];
    if (handed.length > 0) await this.handOver(handOff!, handed, common);
    if (rows.some((row) => row.status === 'queued' && !handOff?.leases.has(row.id))) await this.queuedInTable();
    return rows;
  }

  /**
   * One queued delivery of an event no endpoint has had yet (a test send), its insert travelling with the
   * transaction's next statement or its COMMIT; its hand-over (or a wake-up) follows the commit. Returns the
   * row as inserted.
   */
  async insertNew(delivery: NewDelivery & { status: 'queued' }, common: DeliveryCommon): Promise<DeliveryRow> {
    const handOff = await this.handOff(common.projectId, [delivery]);
    const row = await this.deliveries.insertNew(delivery, common, handOff);
    if (handOff) await this.handOver(handOff, [row], common);
    else await this.queuedInTable();
    return row;
  }

  /** Deliveries a partner asked for (POST /webhooks/{id}/deliveries), queued in the table; in the order given. */
  async insertRequested(
    projectId: string,
    webhookId: string,
    deliveries: Array<{ id: string; eventId: string; event: string; resourceId: string | null; body: string }>,
    createdAt: string,
  ): Promise<DeliveryRow[]> {
    if (deliveries.length === 0) return [];
    const rows = await this.deliveries.insertRequested(projectId, webhookId, deliveries, createdAt);
    await this.queuedInTable();
    return rows;
  }

  /** A retry (WebhookDeliveries.requeue): what it queues again is claimed from the table. Returns the ids requeued. */
  async requeue(webhookId: string, selection: RequeueSelection, at: string, retentionDays: number): Promise<string[]> {
    const ids = await this.deliveries.requeue(webhookId, selection, at, retentionDays);
    if (ids.length > 0) await this.queuedInTable();
    return ids;
  }

  /**
   * Wakes a worker once this transaction has committed: this process's own, in memory, when it runs one, else
   * every process's, by a NOTIFY (UnitOfWork.notifyOnCommit).
   */
  private async queuedInTable(): Promise<void> {
    if (!this.queue.worker) return this.uow.notifyOnCommit(DELIVERIES_CHANNEL, '');
    await this.uow.afterCommit(async () => {
      // Stopped since (the process is shutting down): the other processes' workers are told instead.
      if (!this.queue.wake()) await this.uow.notifyOnCommit(DELIVERIES_CHANNEL, '');
    });
  }

  /**
   * The queued deliveries of this insert that go to this process's worker, leased to it from the insert, each
   * for its endpoint's timeout and the margin a claim gives; undefined when none do. Only an endpoint of the
   * cached live ones, with its key, is handed over: the worker sends with what the cache holds.
   */
  private async handOff(projectId: string, deliveries: NewDelivery[]): Promise<HandOff | undefined> {
    const worker = this.queue.worker;
    const queued = deliveries.filter((d) => d.status === 'queued');
    if (!worker || queued.length === 0) return undefined;
    const since = performance.now();
    const handOff: HandOff = { worker, token: randomUUID(), since, leases: new Map(), endpoints: new Map() };
    if (this.queue.accepts()) {
      for (const e of await this.endpoints.live(projectId)) handOff.endpoints.set(e.id, e);
      for (const d of queued) {
        const endpoint = handOff.endpoints.get(d.webhookId);
        if (endpoint?.status === 'enabled') handOff.leases.set(d.id, endpoint.timeout_ms + LEASE_MARGIN_MS);
      }
    }
    if (handOff.leases.size < queued.length) this.queue.leftInTable();
    return handOff.leases.size > 0 ? handOff : undefined;
  }

  /** After the commit, the worker is offered the rows leased to it: what a claim of them would have answered. */
  private async handOver(handOff: HandOff, rows: DeliveryRow[], common: DeliveryCommon): Promise<void> {
    const deliveries: ClaimedDelivery[] = rows.map((row) => {
      const endpoint = handOff.endpoints.get(row.webhook_id)!;
      return {
        id: row.id,
        project_id: row.project_id,
        webhook_id: row.webhook_id,
        event_id: row.event_id,
        resource_id: row.resource_id,
        test: row.test,
        body: row.body,
        attempt_count: 0,
        earlier_attempts: 0,
        url: endpoint.url,
        timeout_ms: endpoint.timeout_ms,
        notify_threshold_secs: endpoint.notify_threshold_secs,
        lease_token: handOff.token,
        encryption_key_id: endpoint.encryption_key_id,
        key_sealed: endpoint.key_sealed,
        previous_keys: endpoint.previous_keys,
        claimed_at: new Date(common.createdAt),
      };
    });
    await this.uow.afterCommit(async () => this.queue.offer(handOff.worker, deliveries, handOff.since));
  }
}
