// Platform-mode event transport: Nest @EventPattern handlers fed straight from
// the services' events tables by one checkpointed Subscription per consumer
// group. A handler runs inside the subscription's transaction, so its writes
// and the checkpoint commit together: one effect per event and group, however
// many processes run the group (ARCHITECTURE: Event sourcing, precisely).
import { Logger, type LoggerService } from '@nestjs/common';
import { BaseRpcContext, Server, type CustomTransportStrategy, type MessageHandler } from '@nestjs/microservices';
import { lastValueFrom } from 'rxjs';
import type { UnitOfWork } from '@mm/platform/database';
import { Subscription, type EventStore, type RecordedEvent } from '@mm/platform/event-store';
import { inEventSpan } from './event-span';
import { EventsNotifyListener, listenConnectionConfig } from './events-notify.listener';
import { logSubscriptionErrors } from './subscription-errors';

export interface PgLogTransportOptions {
  uow: UnitOfWork;
  /** Consumer group: one checkpoint per source; the instances of a group share the work. */
  group: string;
  sources: EventStore[];
  /** Fallback polling interval when no notification arrives. */
  idlePollMs?: number;
  batchSize?: number;
  logger?: LoggerService;
}

/** What `@Ctx()` gives a handler on this transport. */
export class PgLogContext extends BaseRpcContext<[event: RecordedEvent, group: string]> {
  getEvent(): RecordedEvent {
    return this.args[0];
  }

  getGroup(): string {
    return this.args[1];
  }
}

/** Transport id: `@EventPattern(pattern, PG_LOG_TRANSPORT)` binds a handler to this transport only. */
export const PG_LOG_TRANSPORT = Symbol.for('mm.pg-log-transport');

export class PgLogTransport extends Server implements CustomTransportStrategy {
  override transportId = PG_LOG_TRANSPORT;
  protected override readonly logger: LoggerService;
  private subscription?: Subscription;
  private listener?: EventsNotifyListener;

  constructor(private readonly options: PgLogTransportOptions) {
    super();
    this.logger = options.logger ?? new Logger(PgLogTransport.name);
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(() => callback(), callback);
  }

  async close(): Promise<void> {
    const { subscription, listener } = this;
    this.subscription = undefined;
    this.listener = undefined;
    await subscription?.stop();
    await listener?.stop();
    if (subscription) this._status$.next('disconnected');
  }

  on(): never {
    throw new Error('PgLogTransport emits no events; observe `status` instead');
  }

  /** The running subscription. */
  unwrap<T>(): T {
    if (!this.subscription) throw new Error('PgLogTransport is not listening');
    return this.subscription as T;
  }

  private async start(): Promise<void> {
    if (this.subscription) return;
    const { uow, group, sources, batchSize, idlePollMs } = this.options;
    const subscription = new Subscription(uow, group, sources, (event) => this.deliver(event), {
      batchSize,
      idlePollMs,
      // The types with a handler here (all registered before the transport listens): the others pass by unread.
      types: [...this.messageHandlers.keys()],
      onError: logSubscriptionErrors(this.logger, group, 'its handler failed; the batch rolls back and is retried'),
      // Distributed mode on one database: a service that consumes another may start before that one has
      // created its schema, or that one may not run at all (start:distributed with some services).
      onAbsent: (schemas) =>
        this.logger.debug?.(
          `${group}: no events log of ${schemas.join(', ')} yet (its service has not created it on this database): read from its start once there is`,
        ),
    });
    const listener = new EventsNotifyListener(
      listenConnectionConfig(uow.dataSource),
      sources.map((s) => s.schema),
      (schema) => subscription.wake(schema),
      this.logger,
    );
    // LISTEN before the first poll: whatever commits after it wakes the subscription.
    await listener.start();
    subscription.start();
    this.subscription = subscription;
    this.listener = listener;
    this._status$.next('connected');
  }

  private readonly handlers = new Map<string, MessageHandler | null>();

  /**
   * Nest's lookup first tries JSON.parse on the pattern, which throws for every event type: remembered
   * per type instead (handlers are all registered before the transport listens).
   */
  override getHandlerByPattern(pattern: string): MessageHandler | null {
    let handler = this.handlers.get(pattern);
    if (handler === undefined) {
      handler = super.getHandlerByPattern(pattern);
      this.handlers.set(pattern, handler);
    }
    return handler;
  }

  private async deliver(event: RecordedEvent): Promise<void> {
    const handler = this.getHandlerByPattern(event.type);
    if (!handler) return; // no handler in this group: the checkpoint moves past it
    const rpcContext = new PgLogContext([event, this.options.group]);
    await inEventSpan(event, this.options.group, 'postgresql', () =>
      // Processing hooks wrap the call; the start hook returns done() (typed void), as ServerKafka relies on too.
      Promise.resolve(
        this.onProcessingStartHook(this.transportId, rpcContext, async () => {
          // A value, a Promise or a stream (several handlers of one pattern), settled in full; a
          // failure rejects here and the subscription rolls the batch back.
          await lastValueFrom(this.transformToObservable(await handler(event, rpcContext)), {
            defaultValue: undefined,
          });
          this.onProcessingEndHook?.(this.transportId, rpcContext);
        }),
      ),
    );
  }
}
