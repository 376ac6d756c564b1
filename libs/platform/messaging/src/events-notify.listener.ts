// Low-latency wake-up for log readers: EventStore.append notifies EVENTS_CHANNEL
// with its schema, and PostgreSQL delivers a NOTIFY only once its transaction
// commits. Polling stays the fallback, so a lost notification or a dropped
// connection costs latency, never an event.
import type { LoggerService } from '@nestjs/common';
import { Client, type ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';

export const EVENTS_CHANNEL = 'mm_events';

export class EventsNotifyListener {
  private client?: Client;
  private connecting?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private stopped = true;
  private readonly schemas: ReadonlySet<string>;

  constructor(
    private readonly config: ClientConfig,
    schemas: string[],
    private readonly onEvents: (schema: string) => void,
    private readonly logger: LoggerService,
    private readonly reconnectMs = 1000,
  ) {
    this.schemas = new Set(schemas);
  }

  /** Resolves once LISTEN is in place; rejects if the first connection fails. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    this.connecting = (async () => {
      const client = new Client(this.config);
      client.on('notification', ({ channel, payload }) => {
        if (channel === EVENTS_CHANNEL && payload && this.schemas.has(payload)) this.onEvents(payload);
      });
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client));
      try {
        await client.connect();
        await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      if (this.stopped) await client.end();
      else this.client = client;
    })();
    return this.connecting;
  }

  private lost(client: Client, error?: Error): void {
    if (this.stopped || client !== this.client) return;
    this.client = undefined;
    this.logger.warn(`LISTEN ${EVENTS_CHANNEL} connection lost (${error?.message ?? 'closed'}); polling until it is back`);
    void client.end().catch(() => undefined);
    this.reconnect();
  }

  private reconnect(): void {
    this.retry = setTimeout(() => {
      this.connect().then(
        // Whatever was appended while the connection was down: read it now.
        () => {
          if (!this.stopped) this.schemas.forEach((schema) => this.onEvents(schema));
        },
        (error: Error) => {
          if (this.stopped) return;
          this.logger.warn(`LISTEN ${EVENTS_CHANNEL} reconnect failed (${error.message})`);
          this.reconnect();
        },
      );
    }, this.reconnectMs);
  }
}

/** Settings for a dedicated LISTEN connection to the database a DataSource writes to. */
export function listenConnectionConfig(dataSource: DataSource): ClientConfig {
  const options = dataSource.options as PostgresDataSourceOptions;
  const credentials = options.replication?.master ?? options;
  return {
    connectionString: credentials.url,
    host: credentials.host,
    port: credentials.port,
    user: credentials.username,
    password: credentials.password,
    database: credentials.database,
    ssl: credentials.ssl as ClientConfig['ssl'], // the same object TypeORM hands to pg
    connectionTimeoutMillis: options.connectTimeoutMS,
    application_name: options.applicationName ?? credentials.applicationName,
  };
}
