// LISTEN connections that come back by themselves. PostgreSQL delivers a NOTIFY
// only once its transaction commits, so a listener hears of committed changes
// only. While the connection is down notifications are lost: callers are told
// (onLost) and, once it is back, told again (onResumed) so they can catch up.
//
// A process holds one LISTEN connection per database, whatever the number of its
// listeners (the log readers' wake-up, the webhook worker's, each cache feed's):
// PostgreSQL wakes every backend that listens in a database at each NOTIFY there,
// on whatever channel, and each woken backend reads the notification queue; six
// listening connections of one process cost six wake-ups a commit (ADR 0052).
// Each PgListener is a member of its database's shared connection: it hears its
// own channels, and its statements (query) take their turn on that connection.
import type { LoggerService } from '@nestjs/common';
import { Client, type ClientConfig } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDataSourceOptions } from 'typeorm/driver/postgres/PostgresDataSourceOptions';
import { sessionUrlOf } from './data-source';

export interface PgListenerHandlers {
  onNotification(channel: string, payload: string): void;
  /** The connection dropped: notifications from now on may be missed. */
  onLost?(): void;
  /** LISTEN is in place again after a loss. */
  onResumed?(): void;
}

const CHANNEL_NAME = /^[a-z_]+$/;

export class PgListener {
  private connection?: ListenConnection;

  constructor(
    private readonly config: ClientConfig,
    readonly channels: string[],
    readonly handlers: PgListenerHandlers,
    readonly logger: LoggerService,
    readonly reconnectMs = 1000,
  ) {
    for (const channel of channels) if (!CHANNEL_NAME.test(channel)) throw new Error(`invalid channel name ${channel}`);
  }

  get listening(): boolean {
    return this.connection?.up === true;
  }

  /**
   * A statement on the LISTEN connection itself (an acknowledgement that must follow what was heard), after
   * every statement asked on it before; false while it is down.
   */
  async query(sql: string, params: unknown[] = []): Promise<boolean> {
    return this.connection ? this.connection.query(sql, params) : false;
  }

  /** Resolves once LISTEN is in place on each of its channels; rejects if the connection cannot be made now. */
  async start(): Promise<void> {
    if (this.connection) return;
    const connection = ListenConnection.of(this.config);
    this.connection = connection;
    try {
      await connection.join(this);
    } catch (error) {
      this.connection = undefined;
      throw error;
    }
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await connection?.leave(this);
  }
}

/** The shared LISTEN connection of each database this process listens to, by its settings. */
const connections = new Map<string, ListenConnection>();

/** One LISTEN connection to a database, shared by the process's PgListeners of it. */
class ListenConnection {
  private client?: Client;
  private connecting?: Promise<void>;
  private retry?: NodeJS.Timeout;
  private readonly members = new Set<PgListener>();
  /** Members told of a loss, not yet of the connection's return. */
  private readonly toldLost = new Set<PgListener>();
  /** Channels LISTENed on the current client. */
  private readonly listened = new Set<string>();
  /** The statements asked on this connection so far, each after the one before. */
  private inLine: Promise<void> = Promise.resolve();

  private constructor(
    private readonly key: string,
    private readonly config: ClientConfig,
  ) {}

  static of(config: ClientConfig): ListenConnection {
    const { connectionString, host, port, user, password, database, ssl, application_name } = config;
    const key = JSON.stringify([
      connectionString,
      host,
      port,
      user,
      typeof password === 'string' ? password : '',
      database,
      ssl ?? null,
      application_name,
    ]);
    let connection = connections.get(key);
    if (!connection) connections.set(key, (connection = new ListenConnection(key, config)));
    return connection;
  }

  get up(): boolean {
    return this.client !== undefined;
  }

  async join(member: PgListener): Promise<void> {
    this.members.add(member);
    try {
      if (!this.client) {
        // A joiner does not wait for the retry of a lost connection: it connects now, for everyone.
        clearTimeout(this.retry);
        this.retry = undefined;
        await this.connect();
      }
      await this.listen(member.channels);
    } catch (error) {
      await this.leave(member);
      if (this.members.size > 0 && !this.client) this.reconnect();
      throw error;
    }
  }

  async leave(member: PgListener): Promise<void> {
    if (!this.members.delete(member)) return;
    this.toldLost.delete(member);
    if (this.members.size > 0) {
      // Channels no one else listens to are given up; a failure leaves them heard and ignored.
      const still = new Set(this.channels());
      const unheard = member.channels.filter((channel) => this.listened.has(channel) && !still.has(channel));
      if (unheard.length > 0 && this.client) {
        for (const channel of unheard) this.listened.delete(channel);
        await this.query(unheard.map((channel) => `UNLISTEN ${channel}`).join('; ')).catch(() => undefined);
      }
      return;
    }
    if (connections.get(this.key) === this) connections.delete(this.key);
    clearTimeout(this.retry);
    this.retry = undefined;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    this.listened.clear();
    await client?.end().catch(() => undefined);
  }

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

  /** LISTEN on those of `channels` the current client does not listen to yet. */
  private async listen(channels: string[]): Promise<void> {
    const fresh = channels.filter((channel) => !this.listened.has(channel));
    if (fresh.length === 0) return;
    if (!(await this.query(fresh.map((channel) => `LISTEN ${channel}`).join('; '))))
      throw new Error('the LISTEN connection is down');
    for (const channel of fresh) this.listened.add(channel);
  }

  /** Every member's channels, once each. */
  private channels(): string[] {
    return [...new Set([...this.members].flatMap((m) => m.channels))];
  }

  private get logger(): LoggerService | undefined {
    return this.members.values().next().value?.logger;
  }

  /** Connects and listens on every member's channels; members told of a loss are told it is over. */
  private connect(): Promise<void> {
    this.connecting ??= (async () => {
      // Keep-alive: a peer that vanished without closing is noticed, not trusted forever.
      const client = new Client({ ...this.config, keepAlive: true });
      client.on('notification', ({ channel, payload }) => this.dispatch(channel, payload ?? ''));
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client));
      const channels = this.channels();
      try {
        await client.connect();
        if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${c}`).join('; '));
      } catch (error) {
        await client.end().catch(() => undefined);
        throw error;
      }
      if (this.members.size === 0) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      this.inLine = Promise.resolve();
      this.listened.clear();
      for (const channel of channels) this.listened.add(channel);
      const resumed = [...this.toldLost];
      this.toldLost.clear();
      for (const member of resumed) member.handlers.onResumed?.();
    })().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private dispatch(channel: string, payload: string): void {
    for (const member of this.members) {
      if (!member.channels.includes(channel)) continue;
      try {
        member.handlers.onNotification(channel, payload);
      } catch (error) {
        // One member's failure is not the others' to bear.
        member.logger.error(
          `a ${channel} notification handler failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  private lost(client: Client, error?: Error): void {
    if (client !== this.client) return;
    this.client = undefined;
    this.listened.clear();
    this.logger?.warn(
      `LISTEN ${this.channels().join(', ')} connection lost (${error?.message ?? 'closed'}); reconnecting`,
    );
    for (const member of this.members) {
      this.toldLost.add(member);
      member.handlers.onLost?.();
    }
    void client.end().catch(() => undefined);
    this.reconnect();
  }

  private reconnect(): void {
    if (this.retry || this.members.size === 0) return;
    const delay = Math.min(...[...this.members].map((m) => m.reconnectMs));
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.client || this.members.size === 0) return;
      this.connect().catch((error: Error) => {
        if (this.members.size === 0) return;
        this.logger?.warn(`LISTEN ${this.channels().join(', ')} reconnect failed (${error.message})`);
        this.reconnect();
      });
    }, delay);
  }
}

/** Settings for a dedicated LISTEN connection to the database a DataSource writes to. */
export function listenConnectionConfig(dataSource: DataSource): ClientConfig {
  const options = dataSource.options as PostgresDataSourceOptions;
  // Behind a pooler in transaction mode, LISTEN needs a session of its own: PostgreSQL's, past the pooler.
  const direct = sessionUrlOf(dataSource);
  if (direct)
    return {
      connectionString: direct,
      connectionTimeoutMillis: options.connectTimeoutMS,
      application_name: options.applicationName,
    };
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
