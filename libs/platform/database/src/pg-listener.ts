// A dedicated LISTEN connection that comes back by itself. PostgreSQL delivers a
// NOTIFY only once its transaction commits, so a listener hears of committed
// changes only. While the connection is down notifications are lost: callers are
// told (onLost) and, once it is back, told again (onResumed) so they can catch up.
import type { LoggerService } from '@nestjs/common';
import { Client, type ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';

export interface PgListenerHandlers {
  onNotification(channel: string, payload: string): void;
  /** The connection dropped: notifications from now on may be missed. */
  onLost?(): void;
  /** LISTEN is in place again after a loss. */
  onResumed?(): void;
}

export class PgListener {
  private client?: Client;
  private connecting?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private stopped = true;

  constructor(
    private readonly config: ClientConfig,
    private readonly channels: string[],
    private readonly handlers: PgListenerHandlers,
    private readonly logger: LoggerService,
    private readonly reconnectMs = 1000,
  ) {
    for (const channel of channels) if (!/^[a-z_]+$/.test(channel)) throw new Error(`invalid channel name ${channel}`);
  }

  get listening(): boolean {
    return this.client !== undefined;
  }

  /** A statement on the LISTEN connection itself (an acknowledgement that must follow what was heard); false while it is down. */
  async query(sql: string, params: unknown[] = []): Promise<boolean> {
    const client = this.client;
    if (!client) return false;
    // One at a time on the connection, in the order asked (pg is to stop queueing a query behind another).
    const turn = this.inLine.then(() => client.query(sql, params));
    this.inLine = turn.then(
      () => undefined,
      () => undefined,
    );
    await turn;
    return true;
  }

  /** The statements asked on this connection so far, each after the one before. */
  private inLine: Promise<void> = Promise.resolve();

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
      // Keep-alive: a peer that vanished without closing is noticed, not trusted forever.
      const client = new Client({ ...this.config, keepAlive: true });
      client.on('notification', ({ channel, payload }) => this.handlers.onNotification(channel, payload ?? ''));
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client));
      try {
        await client.connect();
        await client.query(this.channels.map((c) => `LISTEN ${c}`).join('; '));
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
    this.logger.warn(`LISTEN ${this.channels.join(', ')} connection lost (${error?.message ?? 'closed'}); reconnecting`);
    this.handlers.onLost?.();
    void client.end().catch(() => undefined);
    this.reconnect();
  }

  private reconnect(): void {
    this.retry = setTimeout(() => {
      this.connect().then(
        () => {
          if (!this.stopped) this.handlers.onResumed?.();
        },
        (error: Error) => {
          if (this.stopped) return;
          this.logger.warn(`LISTEN ${this.channels.join(', ')} reconnect failed (${error.message})`);
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
