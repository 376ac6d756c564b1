// Low-latency wake-up for log readers: EventStore.append notifies EVENTS_CHANNEL
// with its schema. Polling stays the fallback, so a lost notification or a
// dropped connection costs latency, never an event.
import type { LoggerService } from '@nestjs/common';
import type { ClientConfig } from 'pg';
import { PgListener } from '@mm/platform/database';
import { EVENTS_CHANNEL } from '@mm/platform/event-store';

export { listenConnectionConfig } from '@mm/platform/database';
export { EVENTS_CHANNEL };

export class EventsNotifyListener {
  private readonly listener: PgListener;

  constructor(
    config: ClientConfig,
    schemas: string[],
    onEvents: (schema: string) => void,
    logger: LoggerService,
    reconnectMs = 1000,
  ) {
    const watched = new Set(schemas);
    this.listener = new PgListener(
      config,
      [EVENTS_CHANNEL],
      {
        onNotification: (_channel, schema) => {
          if (watched.has(schema)) onEvents(schema);
        },
        // Whatever was appended while the connection was down: read it now.
        onResumed: () => watched.forEach(onEvents),
      },
      logger,
      reconnectMs,
    );
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  stop(): Promise<void> {
    return this.listener.stop();
  }
}
