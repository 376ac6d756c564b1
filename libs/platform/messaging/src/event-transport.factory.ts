// The one switch between the two ways to run (ARCHITECTURE: One codebase, two
// ways to run it): the same @EventPattern handlers, fed by either transport.
//   app.connectMicroservice({ strategy: createEventTransport({ mode: 'postgres', ... }) })
import { KafkaEventServer, type KafkaEventServerOptions } from './kafka-event.server';
import { PgLogTransport, type PgLogTransportOptions } from './pg-log.transport';

export type EventTransportOptions =
  ({ mode: 'postgres' } & PgLogTransportOptions) | ({ mode: 'kafka' } & KafkaEventServerOptions);

export function createEventTransport(options: EventTransportOptions): KafkaEventServer | PgLogTransport {
  return options.mode === 'kafka' ? new KafkaEventServer(options) : new PgLogTransport(options);
}
